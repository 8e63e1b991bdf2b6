"""Every lesson keeps the skeleton, is listed in the table of contents, and stores clean outputs.

nbval (run by `make test` over notebooks/) checks that each lesson still runs and prints what
it stored; these tests check what nbval cannot: the shape of the lessons.
"""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
SKELETON = ("Learning goals", "Mistake", "Exercise", "Summary")
MACHINE_PATH = re.compile(r"(/root/|/home/|/tmp/|/work/|/Users/|site-packages|\\\\Users)")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _headings(path: Path) -> list[str]:
    return [
        line.lstrip("#").strip()
        for cell in _cells(path)
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("#")
    ]


def test_the_lessons_are_numbered_without_gaps() -> None:
    numbers = [int(p.name[:2]) for p in LESSONS]
    assert numbers == list(range(1, len(numbers) + 1)), [p.name for p in LESSONS]
    assert len(numbers) >= 1


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_has_the_skeleton_in_order(lesson: Path) -> None:
    headings = _headings(lesson)
    assert headings and _cells(lesson)[0]["cell_type"] == "markdown", "a lesson opens with a title"
    positions = []
    for section in SKELETON:
        found = [i for i, h in enumerate(headings) if h.startswith(section)]
        assert found, f"{lesson.name} has no '{section}' section; headings: {headings}"
        positions.append(found[0])
    assert positions == sorted(positions), f"{lesson.name}: sections out of order: {headings}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_imports_looplab_and_stores_clean_outputs(lesson: Path) -> None:
    code = [c for c in _cells(lesson) if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert any("looplab" in "".join(c["source"]) for c in code), "lessons import looplab"
    # live-API cells are tagged skip-execution and are never run offline
    run = [c for c in code if "skip-execution" not in c["metadata"].get("tags", [])]
    counts = [c["execution_count"] for c in run]
    assert None not in counts, f"{lesson.name}: some cells have no stored run (make notebooks)"
    assert counts == sorted(counts), f"{lesson.name}: cells were not run top to bottom in one go"
    outputs = json.dumps([c["outputs"] for c in code])
    assert not MACHINE_PATH.search(outputs), f"{lesson.name}: an output shows a machine path"
    assert "Traceback (most recent call last)" not in outputs


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_exercise_has_an_automatic_check(lesson: Path) -> None:
    cells = _cells(lesson)
    start = next(
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "markdown"
        and "".join(c["source"]).lstrip("#").strip().startswith("Exercise")
    )
    after = "".join("".join(c["source"]) for c in cells[start:] if c["cell_type"] == "code")
    assert "check" in after, f"{lesson.name}: the exercise has no check cell"


@pytest.mark.parametrize("edition", [NOTEBOOKS, NOTEBOOKS / "zh-CN"], ids=["en", "zh-CN"])
def test_the_lesson_map_links_every_lesson(edition: Path) -> None:
    links = re.findall(r"\]\(([^)]+\.ipynb)\)", (edition / "README.md").read_text(encoding="utf-8"))
    assert links == [p.name for p in sorted(edition.glob("[0-9][0-9]_*.ipynb"))]


@pytest.mark.parametrize("readme", ["README.md", "README.zh-CN.md"])
def test_the_readmes_link_lessons_that_exist(readme: str) -> None:
    text = (NOTEBOOKS.parent / readme).read_text(encoding="utf-8")
    links = re.findall(r"\]\((notebooks/[^)#]+\.ipynb)", text)
    assert links and [link for link in links if not (NOTEBOOKS.parent / link).is_file()] == []


@pytest.mark.parametrize("edition", [NOTEBOOKS, NOTEBOOKS / "zh-CN"], ids=["en", "zh-CN"])
def test_the_lesson_map_says_what_each_lesson_answers(edition: Path) -> None:
    """Lessons 01-11 name the article's sections; from 12 on, the interview topic."""
    interview = "interview:" if edition == NOTEBOOKS else "面试题："
    rows = re.findall(r"^\| \[(\d\d) ·.*\| ([^|]*) \|$",
                      (edition / "README.md").read_text(encoding="utf-8"), re.M)
    lessons = sorted(p.name[:2] for p in edition.glob("[0-9][0-9]_*.ipynb"))
    assert [number for number, _ in rows] == lessons
    wrong = [number for number, answers in rows
             if not (answers.startswith(interview) if int(number) >= 12 else "§" in answers)]
    assert wrong == [], f"{edition.name}/README.md: these rows name no section or topic"


# -- words a reader sees ----------------------------------------------------------------------

ROOT = NOTEBOOKS.parent
ARTICLE = "《Agent 到底是什么？一个 while 循环》"


def _student_copies() -> list[tuple[str, str]]:
    """(name, text) of the English student copies as `make exercises` writes them: the files
    in notebooks/exercises/ may hold a student's answers, which are theirs to word."""
    tool = runpy.run_path(str(ROOT / "tools" / "make_exercises.py"))
    return [(path.name, text) for path, text in tool["plan"](NOTEBOOKS).items()
            if path.parent == NOTEBOOKS / "exercises"]  # fmt: skip


def _reader_texts() -> list[tuple[str, str]]:
    """(name, text) of everything a reader sees: lessons with outputs, READMEs, the sources."""
    texts = [(p.name, p.read_text(encoding="utf-8")) for p in LESSONS] + _student_copies()
    texts += [(p.name, p.read_text(encoding="utf-8"))
              for p in (ROOT / "README.md", NOTEBOOKS / "README.md")]  # fmt: skip
    texts += [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))
              for p in sorted((ROOT / "src").rglob("*.py"))]  # fmt: skip
    return texts


def test_no_reader_sees_the_word_seed() -> None:
    for name, text in _reader_texts():
        code_words = text.replace("PYTHONHASHSEED", "").replace("random.seed(", "")
        found = re.findall(r".{0,30}seed.{0,30}", code_words, re.I)
        assert not found, f"{name}: {found[:3]}"


def test_the_article_is_named_in_full_once_in_lesson_01_and_the_readmes() -> None:
    def count(path: Path) -> int:
        return sum("".join(c["source"]).count(ARTICLE) for c in _cells(path))

    assert count(LESSONS[0]) == 1
    assert [p.name for p in LESSONS[1:] if count(p)] == []
    for readme in (ROOT / "README.md", NOTEBOOKS / "README.md"):
        assert readme.read_text(encoding="utf-8").count(ARTICLE) == 1, readme.name


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_prints_no_exception_mode_banner(lesson: Path) -> None:
    text = lesson.read_text(encoding="utf-8")
    assert "%xmode" not in text and "Exception reporting mode" not in text


# -- exercises --------------------------------------------------------------------------------

CHECK_CALL = re.compile(r"^(check_\w+)\(", re.MULTILINE)


def _exercise_checks(path: Path) -> list[tuple[str, str]]:
    """(checker name, cell source) of each check call after the lesson's Exercise heading."""
    cells = _cells(path)
    start = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                 and "".join(c["source"]).lstrip("#").strip().startswith("Exercise"))  # fmt: skip
    found = []
    for c in cells[start:]:
        source = "".join(c["source"])
        if c["cell_type"] == "code":
            found += [(name, source) for name in CHECK_CALL.findall(source)]
    return found


def test_no_two_lessons_share_an_exercise() -> None:
    checkers = {p.name: [name for name, _ in _exercise_checks(p)] for p in LESSONS}
    assert all(checkers.values()), checkers
    flat = [name for names in checkers.values() for name in names]
    assert len(flat) == len(set(flat)), checkers


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_check_cells_import_a_checker_and_call_it_in_one_line(lesson: Path) -> None:
    for name, source in _exercise_checks(lesson):
        lines = [line for line in source.splitlines() if line.strip()]
        assert lines == [f"from looplab.exercises import {name}", lines[-1]], source
        assert lines[-1].startswith(f"{name}(") and "\n" not in lines[-1]


def test_the_lessons_draw_the_loop_and_the_id_pairing_and_use_live_run() -> None:
    def text(number: str) -> str:
        path = next(p for p in LESSONS if p.name.startswith(number))
        return "\n".join("".join(c["source"]) for c in _cells(path))

    assert "```mermaid" in text("01") and "id = tool_use_id" in text("01")
    assert "```mermaid" in text("04") and "stop_reason?" in text("04")
    assert "LiveRun(" in text("05")


ARTICLE_TERMS = ("分岔口", "闸门", "工具结果", "停止条件", "原样追加", "重复调用检测")


@pytest.mark.parametrize("edition", [NOTEBOOKS, NOTEBOOKS / "zh-CN"], ids=["en", "zh-CN"])
def test_the_glossary_of_the_articles_terms_is_in_lesson_01(edition: Path) -> None:
    lessons = sorted(edition.glob("[0-9][0-9]_*.ipynb"))
    with_glossary = [
        p.name
        for p in lessons
        for c in _cells(p)
        if c["cell_type"] == "markdown" and all(t in "".join(c["source"]) for t in ARTICLE_TERMS)
    ]
    assert [name[:3] for name in with_glossary] == ["01_"], with_glossary
    ids = [c.get("id") for c in _cells(lessons[0])]
    assert "glossary" in ids


# The interview lessons' words, as each edition says them, and the lesson that shows each.
INTERVIEW_TERMS = {
    "en": {"ReAct": "10", "tool_choice": "10", "retry": "10", "compaction": "12", "MCP": "13",
           "sub-agent": "14", "workflow": "14", "permission class": "15", "approval gate": "15",
           "idempotency key": "15", "prompt injection": "15", "eval": "16", "pass@k": "16",
           "pass^k": "16", "judge": "16",
           "memory tool": "17", "memory poisoning": "17",
           "plan-and-execute": "18", "replan": "18",
           "time to first token": "19", "fine-grained tool streaming": "19",
           "input_json_delta": "19", "tool search": "20", "defer_loading": "20",
           "wrong-tool rate": "20", "tenant": "20",
           "trace": "21", "span": "21", "process eval": "21", "sandbox": "22"},
    "zh-CN": {"ReAct": "10", "tool_choice": "10", "重试": "10", "压缩": "12", "MCP": "13",
              "子 Agent": "14", "工作流": "14", "权限等级": "15", "审批闸门": "15",
              "幂等键": "15", "提示注入": "15", "评测": "16", "pass@k": "16", "pass^k": "16",
              "裁判": "16",
              "记忆工具": "17", "记忆投毒": "17",
              "先计划再执行": "18", "重新规划": "18",
              "首 token 时间": "19", "细粒度工具流式": "19", "input_json_delta": "19",
              "工具搜索": "20", "defer_loading": "20", "选错工具的比例": "20", "租户": "20",
              "追踪": "21", "span": "21", "过程评测": "21", "沙箱": "22"},
}


@pytest.mark.parametrize("edition", [NOTEBOOKS, NOTEBOOKS / "zh-CN"], ids=["en", "zh-CN"])
def test_the_glossary_has_the_interview_lessons_words_and_each_lesson_uses_its_word(
    edition: Path,
) -> None:
    lessons = {p.name[:2]: p for p in sorted(edition.glob("[0-9][0-9]_*.ipynb"))}
    glossary = next("".join(c["source"]) for c in _cells(lessons["01"])
                    if c.get("id") == "glossary")
    terms = INTERVIEW_TERMS["en" if edition == NOTEBOOKS else "zh-CN"]
    assert [t for t in terms if t not in glossary] == []

    def prose(number: str) -> str:
        return "\n".join("".join(c["source"]) for c in _cells(lessons[number])
                         if c["cell_type"] == "markdown")

    unused = [(term, number) for term, number in terms.items() if term not in prose(number)]
    assert unused == [], "the glossary names a lesson that never says the word"


@pytest.mark.parametrize("edition", [NOTEBOOKS, NOTEBOOKS / "zh-CN"], ids=["en", "zh-CN"])
def test_lessons_store_the_kernel_jupyter_reports_so_they_do_not_open_modified(
    edition: Path,
) -> None:
    from ipykernel.kernelspec import get_kernel_dict

    spec = get_kernel_dict()
    stored = {p.name: json.loads(p.read_text(encoding="utf-8"))["metadata"].get("kernelspec")
              for p in sorted(edition.glob("[0-9][0-9]_*.ipynb"))}
    wrong = {name: k for name, k in stored.items()
             if k != {"display_name": spec["display_name"], "language": "python",
                      "name": "python3"}}
    assert stored and not wrong, f"kernelspec is not {spec['display_name']!r}: {wrong}"


@pytest.mark.parametrize("edition", [NOTEBOOKS, NOTEBOOKS / "zh-CN"], ids=["en", "zh-CN"])
def test_a_live_widget_says_what_a_static_page_shows_instead(edition: Path) -> None:
    """On the docs site nothing runs: the prose before a widget that needs a kernel says so."""
    word = "static" if edition == NOTEBOOKS else "静态"
    silent = []
    for lesson in sorted(edition.glob("[0-9][0-9]_*.ipynb")):
        cells = _cells(lesson)
        for i, cell in enumerate(cells):
            code = "".join(cell["source"])
            if cell["cell_type"] == "code" and re.search(r"LiveRun\(|token_explorer\(", code):
                before = "".join("".join(c["source"]) for c in cells[max(0, i - 2):i]
                                 if c["cell_type"] == "markdown")
                if word not in before:
                    silent.append(f"{lesson.name} {cell.get('id')}")
    assert not silent, f"no word on what a static page shows: {silent}"


@pytest.mark.parametrize(
    "lesson",
    LESSONS + sorted((NOTEBOOKS / "zh-CN").glob("[0-9][0-9]_*.ipynb")),
    ids=lambda p: p.name,
)
def test_no_cell_says_the_same_block_twice_in_a_row(lesson: Path) -> None:
    """A block of lines (code or prose, between blank lines) followed by the same block: what
    a merge leaves behind, which a reader sees as a stutter and nbval cannot notice."""
    repeated = []
    for cell in _cells(lesson):
        blocks = [b.strip() for b in "".join(cell["source"]).split("\n\n")]
        repeated += [f"{cell.get('id')}: {a.splitlines()[0][:60]!r}"
                     for a, b in zip(blocks, blocks[1:], strict=False) if a == b and "\n" in a]
    assert not repeated, repeated
