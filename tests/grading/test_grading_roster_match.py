"""Which student a folder is: the roster's id, folder or name, in any case, with or without
accents and punctuation; a folder like two students, or like no one, matched to no one;
an LMS's own export read as a roster."""

from __future__ import annotations

from pathlib import Path

import pytest

from looplab.grading.lms import RosterError, load_roster
from looplab.grading.roster import Student, key, match

ROSTER = [
    Student("1007", "Hugo"),
    Student("1008", "Ana María"),
    Student("1009", "张三"),
    Student("1010", "Lovelace, Ada"),  # Canvas's sortable name
    Student("1011", "Li Wei"),
    Student("1012", "Li  Wei"),  # two students alike by name
    Student("1013", "Chen Jing", folder="cj-2026"),
    Student("1014", "Zoë Ng"),
]


def test_key_drops_case_accents_and_punctuation_and_keeps_every_script() -> None:
    assert key("Ana María") == key("ANA_MARIA") == key("ana-maria") == "anamaria"
    assert key("Zoë") == key("zoe") and key("Ｈｕｇｏ") == "hugo"  # full-width too (NFKD)
    assert key("Søren Łukasz") == key("soren_lukasz") and key("Straße") == key("STRASSE")
    assert key("张三") == "张三" and key("") == ""


def test_each_folder_is_matched_by_id_then_folder_then_name() -> None:
    folders = ["hugo", "ANA_MARIA", "1009", "ada_lovelace", "li_wei", "cj-2026", "ghost",
               "---", "Hugo"]  # fmt: skip
    found = match(folders, ROSTER)
    assert {f: s.id for f, s in found.by_folder.items()} == {
        "hugo": "1007", "Hugo": "1007",  # two folders of one student: one LMS row
        "ANA_MARIA": "1008", "1009": "1009", "ada_lovelace": "1010", "cj-2026": "1013",
    }  # fmt: skip
    why = found.unmatched["li_wei"]  # never a guess
    assert why.startswith("it is named like ") and "(1011)" in why and "(1012)" in why
    assert set(found.unmatched) == {"li_wei", "ghost", "---"}
    assert [s.id for s in found.missing] == ["1011", "1012", "1014"]
    lines = found.warnings()
    assert lines[0].startswith("folder '---' is not on the roster")
    assert "Zoë Ng (1014) on the roster handed nothing in; their LMS row is 0" in lines
    assert found.who("ghost") == Student("ghost", "ghost", "ghost")


def test_an_id_wins_over_a_name(tmp_path: Path) -> None:
    roster = [Student("bob", "Robert"), Student("2", "Bob")]
    assert match(["bob"], roster).by_folder["bob"].id == "bob"


def test_canvas_export_is_a_roster_its_points_row_skipped_its_sis_columns_kept(
    tmp_path: Path,
) -> None:
    (tmp_path / "canvas.csv").write_text(
        "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Quiz 1 (123)\n"
        "    Points Possible,,,,,10.00\n"
        '"Lovelace, Ada",4242,s001,ada@uni,A,\n',
        encoding="utf-8",
    )
    (ada,) = load_roster(tmp_path / "canvas.csv")
    assert (ada.id, ada.name) == ("4242", "Lovelace, Ada")
    assert dict(ada.extra) == {"SIS User ID": "s001", "SIS Login ID": "ada@uni", "Section": "A"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name\nAda\n", "needs the columns id and name"),
        ("id,name\n1,Ada\n1,Bob\n", "line 3: the id 1 is there twice"),
        ("id,name\n,Ada\n", "line 2 has no id"),
    ],
)
def test_a_roster_the_grader_cannot_use_is_one_line(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "r.csv").write_text(text, encoding="utf-8")
    with pytest.raises(RosterError, match=message):
        load_roster(tmp_path / "r.csv")
