"""A class split across machines: three shards, each a process of its own started the way a
Kubernetes Indexed Job starts its pods (`JOB_COMPLETION_INDEX`, tools/classroom/), merged
with `looplab-grade merge`, give byte for byte the gradebook, LMS CSV, HTML page and
feedback of one run on one machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, SOLVED, STUB, WRONG, check, write_notebook

from looplab.grading.cli import main
from looplab.grading.shards import shard_of

pytestmark = pytest.mark.slow  # grades a class twice, once in three processes

REPO = Path(__file__).resolve().parents[2]
SHARD = REPO / "tools/classroom/grade-shard.sh"
ROSTER = (
    "id,name\n1001,Ada\n1002,Bob\n1003,Chen Jing\n1004,Ana María\n1005,Dan\n1006,Eve\n"
    "1007,Zoë\n"
)
OPTIONS = ["--lessons", str(LESSONS), "--jobs", "1", "--deadline", "2026-12-01T00:00:00Z",
           "--late-penalty", "10"]  # fmt: skip


def _class(root: Path) -> None:
    for name, answer in [("ada", SOLVED), ("bob", WRONG), ("chen_jing", STUB),
                         ("ANA MARIA", SOLVED), ("dan", WRONG), ("eve", SOLVED)]:  # fmt: skip
        write_notebook(root / name / LESSON, [answer, check()])
        (root / name / "timestamp.txt").write_text("2026-12-01 10:00:00 UTC\n")
    write_notebook(root / "stranger" / LESSON, [SOLVED, check()])  # on no roster


def _outputs(folder: Path) -> list[str]:
    return ["--csv", str(folder / "book.csv"), "--html", str(folder / "book.html"),
            "--lms", "canvas", "--lms-csv", str(folder / "lms.csv"),
            "--feedback", str(folder / "feedback"),
            "--roster", str(folder.parent / "roster.csv")]  # fmt: skip


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


def test_three_shards_in_three_processes_merge_into_one_runs_files_byte_for_byte(
    tmp_path: Path,
) -> None:
    _class(tmp_path / "class")
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    # the shards this class falls into are all used: none is trivially empty
    assert {shard_of(i, 3) for i in ("1001", "1002", "1003", "1004", "1005", "1006")} == {0, 1, 2}
    (tmp_path / "one").mkdir()
    assert main([str(tmp_path / "class"), *OPTIONS, *_outputs(tmp_path / "one")]) == 0

    env = {**os.environ, "SHARDS": "3", "CLASS": str(tmp_path / "class"),
           "PARTS": str(tmp_path / "parts"), "ROSTER": str(tmp_path / "roster.csv"),
           "LOOPLAB_GRADE": f"{sys.executable} -m looplab.grading",
           "GRADE_OPTIONS": " ".join(OPTIONS)}  # fmt: skip
    pods = [
        subprocess.Popen(["sh", str(SHARD)], env={**env, "JOB_COMPLETION_INDEX": str(i)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        for i in range(3)
    ]
    for pod in pods:
        out, err = pod.communicate(timeout=300)
        assert pod.returncode == 0, err
        assert out.startswith("shard ")
    parts = sorted((tmp_path / "parts").glob("*.json"))
    assert len(parts) == 3
    (tmp_path / "merged").mkdir()
    assert main(["merge", *map(str, parts), *_outputs(tmp_path / "merged")]) == 0

    one, merged = _files(tmp_path / "one"), _files(tmp_path / "merged")
    assert len(one) == 3 + 7  # book.csv, book.html, lms.csv, a feedback page per folder
    assert merged == one


def test_merge_refuses_a_missing_shard_a_shard_twice_and_other_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _class(tmp_path / "class")
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    for i in range(2):
        assert main([str(tmp_path / "class"), *OPTIONS, "--roster", str(tmp_path / "roster.csv"),
                     "--shard", f"{i}/3", "--part", str(tmp_path / f"p{i}.json")]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "p0.json"), str(tmp_path / "p1.json")]) == 2
    err = capsys.readouterr().err
    assert "no part of shard 2/3: grade it, or wait for it, before merging" in err
    assert main(["merge", str(tmp_path / "p0.json"), str(tmp_path / "p0.json")]) == 2
    assert "are both shard 0/3" in capsys.readouterr().err
    assert main([str(tmp_path / "class"), *OPTIONS, "--late-penalty", "20",
                 "--roster", str(tmp_path / "roster.csv"), "--shard", "2/3",
                 "--part", str(tmp_path / "p2.json")]) == 0  # fmt: skip
    capsys.readouterr()
    paths = [str(tmp_path / f"p{i}.json") for i in range(3)]
    assert main(["merge", *paths]) == 2
    assert "grade every shard with the same options" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: "'3/3' is not a shard I/N with 0 <= I < N"
        main([str(tmp_path / "class"), *OPTIONS, "--shard", "3/3", "--part", "x"])
    assert "is not a shard I/N with 0 <= I < N" in capsys.readouterr().err
    assert main([str(tmp_path / "class"), *OPTIONS, "--shard", "0/3"]) == 2
    assert "--shard I/N and --part FILE go together" in capsys.readouterr().err
    assert main([str(tmp_path / "class"), *OPTIONS, "--shard", "0/3", "--part", "x",
                 "--only", "ada"]) == 2  # fmt: skip
    assert "--shard grades a part of the class, --only a few" in capsys.readouterr().err
