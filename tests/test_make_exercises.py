"""tools/make_exercises.py: student copies generated from the lessons' solution markers."""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "tools" / "make_exercises.py"
gen: dict[str, Any] = runpy.run_path(str(TOOL))

SOLUTION_CELL = """\
def tool_results_message(content, results_by_id):
    ### BEGIN SOLUTION
    # TASK: return one user message with a tool_result per tool_use, in call order
    return {"role": "user", "content": [results_by_id[b["id"]] for b in content]}
    ### END SOLUTION"""

TOP_LEVEL_CELL = """\
x = 1
### BEGIN SOLUTION
y = x + 1
### END SOLUTION
print(y)"""


def lesson() -> Any:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nb.metadata["widgets"] = {"saved": "state"}
    cells = [
        new_markdown_cell("# Lesson\n### BEGIN SOLUTION\nprose\n### END SOLUTION"),
        new_code_cell("import looplab", execution_count=1),
        new_code_cell(SOLUTION_CELL, execution_count=2),
        new_code_cell(
            "from looplab.exercises import check_tool_results_message\n"
            "check_tool_results_message(tool_results_message)",
            execution_count=3,
            outputs=[new_output("stream", name="stdout", text="all 4 checks passed\n")],
        ),
        new_code_cell("looplab.check_history([])", execution_count=4),
        new_code_cell("print('checked')", execution_count=5, metadata={"tags": ["check"]}),
        new_code_cell(TOP_LEVEL_CELL, execution_count=6),
    ]
    for i, cell in enumerate(cells):
        cell["id"] = f"c{i}"
    cells[3].metadata["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00"}
    nb.cells = cells
    return nb


def write_lesson(folder: Path, name: str, nb: Any) -> Path:
    path = folder / name
    nbformat.write(nb, path)
    return path


def run_tool(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The tool's command line, run in this process from `folder`: a process of its own
    would import nbformat again, a second or more each time.
    (`test_the_repository_copies_are_current` runs it as a command.)"""
    argv = ["--notebooks", str(folder), *args]
    out, err, before = io.StringIO(), io.StringIO(), Path.cwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = gen["main"](argv)
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@pytest.fixture
def lessons(tmp_path: Path) -> Path:
    write_lesson(tmp_path, "04_the_loop_by_hand.ipynb", lesson())
    plain = new_notebook(cells=[new_code_cell("print(1)")])
    write_lesson(tmp_path, "01_one_request_one_response.ipynb", plain)
    write_lesson(tmp_path, "scratch.ipynb", lesson())  # not NN_*: never a lesson
    return tmp_path


def exercise(folder: Path, name: str = "04_the_loop_by_hand.ipynb") -> Any:
    return nbformat.read(folder / "exercises" / name, as_version=4)


def test_stub_replaces_region_at_its_indentation_with_the_task_text() -> None:
    source, regions, top_level = gen["stub_source"](SOLUTION_CELL)
    assert (regions, top_level) == (1, False)
    assert source == (
        "def tool_results_message(content, results_by_id):\n"
        "    # YOUR CODE HERE\n"
        '    raise NotImplementedError("return one user message with a tool_result per '
        'tool_use, in call order")'
    )


def test_stub_without_task_line_gets_the_generic_sentence() -> None:
    source, regions, top_level = gen["stub_source"](TOP_LEVEL_CELL)
    assert (regions, top_level) == (1, True)
    assert source == (
        "x = 1\n# YOUR CODE HERE\n"
        'raise NotImplementedError("write this part yourself, then run the check cell below")\n'
        "print(y)"
    )


def test_stub_keeps_code_between_two_regions() -> None:
    region = "### BEGIN SOLUTION\n{}\n### END SOLUTION"
    src = region.format("a = 1") + "\nkeep = 2\n" + region.format("b")
    source, regions, _ = gen["stub_source"](src)
    assert regions == 2
    assert source.count("# YOUR CODE HERE") == 2 and "keep = 2" in source and "a = 1" not in source


def test_task_text_with_quotes_stays_a_valid_python_literal() -> None:
    src = '### BEGIN SOLUTION\n# TASK: append "content" whole\nx\n### END SOLUTION'
    source, _, _ = gen["stub_source"](src)
    with pytest.raises(NotImplementedError, match='append "content" whole'):
        exec(source, {})


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("### BEGIN SOLUTION\nx = 1", "line 1: `### BEGIN SOLUTION` has no matching"),
        ("x = 1\n### END SOLUTION", "line 2: `### END SOLUTION` without a `### BEGIN SOLUTION`"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "regions cannot nest"),
    ],
)
def test_unpaired_markers_are_an_error_naming_the_line(src: str, message: str) -> None:
    with pytest.raises(gen["MarkerError"], match=message.replace("(", r"\(")):
        gen["stub_source"](src, "04_x.ipynb cell 2 (id c2)")


def test_generates_student_copy_only_for_lessons_with_solutions(lessons: Path) -> None:
    result = run_tool(lessons)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "created: exercises/04_the_loop_by_hand.ipynb\n"
    assert sorted(p.name for p in (lessons / "exercises").iterdir()) == [
        "04_the_loop_by_hand.ipynb"
    ]


def test_student_copy_content(lessons: Path) -> None:
    run_tool(lessons)
    nb = exercise(lessons)
    note, *cells = nb.cells
    assert note.cell_type == "markdown" and note.id == "exercise-note"
    assert note.source.startswith("*Your copy of lesson 04, to work in")
    assert "](" not in note.source and ".ipynb" not in note.source  # no way to the solutions
    assert [c.id for c in cells] == [f"c{i}" for i in range(7)]
    assert cells[0].source == "# Lesson\nprose"  # markers dropped from prose
    assert "# YOUR CODE HERE" in cells[2].source and "results_by_id[" not in cells[2].source
    for cell in cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    tags = [c.metadata.get("tags", []) for c in cells]
    assert tags == [[], [], [], ["check", "raises-exception"], [], ["check", "raises-exception"],
                    ["raises-exception"]]  # fmt: skip
    assert "execution" not in cells[3].metadata
    assert "widgets" not in nb.metadata and nb.metadata["kernelspec"]["name"] == "python3"
    nbformat.validate(nb)


def test_lesson_itself_is_left_untouched(lessons: Path) -> None:
    before = (lessons / "04_the_loop_by_hand.ipynb").read_bytes()
    run_tool(lessons)
    assert (lessons / "04_the_loop_by_hand.ipynb").read_bytes() == before


@pytest.mark.parametrize(
    "source",
    [
        "import looplab.exercises as ex\nex.check_agent_loop(run_agent)",
        "import looplab\nlooplab.exercises.check_token_formula(f)",
        "from looplab.exercises import (\n    check_close_dangling as ccd,\n)\nccd(f)",
        "from looplab import exercises\nexercises.check_agent_loop(run_agent)",
    ],
)
def test_every_way_of_calling_a_checker_marks_a_check_cell(source: str) -> None:
    nb = new_notebook(cells=[new_code_cell("### BEGIN SOLUTION\n### END SOLUTION")])
    nb.cells += [new_code_cell(line) for line in source.split("\n")] + [new_code_cell(source)]
    out = gen["make_exercise"](nb, "05_x.ipynb")
    assert out["cells"][-1]["metadata"]["tags"] == ["check", "raises-exception"]


def test_output_is_deterministic(lessons: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    run_tool(lessons)
    first = (lessons / "exercises" / "04_the_loop_by_hand.ipynb").read_text()
    other = tmp_path_factory.mktemp("again")
    write_lesson(other, "04_the_loop_by_hand.ipynb", lesson())
    run_tool(other)
    assert (other / "exercises" / "04_the_loop_by_hand.ipynb").read_text() == first
    assert first.endswith("}\n")
    assert list(json.loads(first)) == sorted(json.loads(first))  # sorted keys
    assert run_tool(lessons).stdout == "exercise copies already up to date\n"


def test_check_passes_when_fresh(lessons: Path) -> None:
    run_tool(lessons)
    result = run_tool(lessons, "--check")
    assert result.returncode == 0
    assert result.stdout == "exercise copies are up to date (1 generated)\n"


def test_check_ignores_formatting_only_differences(lessons: Path) -> None:
    run_tool(lessons)
    path = lessons / "exercises" / "04_the_loop_by_hand.ipynb"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=4))
    assert run_tool(lessons, "--check").returncode == 0


def test_check_lists_stale_missing_and_extra(lessons: Path) -> None:
    run_tool(lessons)
    # stale: the lesson's solution changed after generation
    nb = lesson()
    nb.cells[2].source = nb.cells[2].source.replace("call order", "the order of the calls")
    write_lesson(lessons, "04_the_loop_by_hand.ipynb", nb)
    # missing: a new lesson with a solution; extra: a copy whose lesson has none
    write_lesson(lessons, "06_token_growth.ipynb", lesson())
    shutil.copy(lessons / "exercises" / "04_the_loop_by_hand.ipynb",
                lessons / "exercises" / "09_gone.ipynb")  # fmt: skip
    (lessons / "exercises" / "README.md").write_text("not a copy")  # ignored
    result = run_tool(lessons, "--check")
    assert result.returncode == 1
    assert result.stdout == (
        "exercise copies are out of date; run `make exercises`:\n"
        "  stale:   exercises/04_the_loop_by_hand.ipynb\n"
        "  missing: exercises/06_token_growth.ipynb\n"
        "  extra:   exercises/09_gone.ipynb\n"
    )
    result = run_tool(lessons)
    assert result.stdout == (
        "updated: exercises/04_the_loop_by_hand.ipynb\n"
        "created: exercises/06_token_growth.ipynb\n"
        "removed: exercises/09_gone.ipynb\n"
    )
    assert run_tool(lessons, "--check").returncode == 0


ANSWER = "def tool_results_message(content, results_by_id):\n    return None  # mine"


def answer(folder: Path, name: str = "04_the_loop_by_hand.ipynb", ran: bool = False) -> Path:
    """Write an answer into the copy the way a student does in JupyterLab: the stub replaced,
    saved with the outputs and counts of a run, and the copy's metadata kept."""
    path = folder / "exercises" / name
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "NotImplementedError" in c.source)
    cell.source = ANSWER
    if ran:
        for count, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
            cell.execution_count = count + 1
            cell.outputs = [new_output("stream", name="stdout", text="ran\n")]
    nbformat.write(nb, path)
    return path


def test_a_copy_the_student_only_ran_is_replaced_when_its_lesson_changes(lessons: Path) -> None:
    run_tool(lessons)
    path = lessons / "exercises" / "04_the_loop_by_hand.ipynb"
    nb = exercise(lessons)
    nb.cells[2].outputs = [new_output("stream", name="stdout", text="ran\n")]
    nb.cells[2].execution_count = 1
    nbformat.write(nb, path)
    assert run_tool(lessons, "--check").returncode == 0  # running it is not stale
    assert run_tool(lessons).stdout == "exercise copies already up to date\n"
    changed = lesson()
    changed.cells[0].source += "\nmore prose"
    write_lesson(lessons, "04_the_loop_by_hand.ipynb", changed)
    assert "stale:" in run_tool(lessons, "--check").stdout
    assert run_tool(lessons).stdout == "updated: exercises/04_the_loop_by_hand.ipynb\n"
    assert "more prose" in exercise(lessons).cells[1].source


def test_a_hand_edited_copy_passes_the_check_and_is_named(lessons: Path) -> None:
    run_tool(lessons)
    answer(lessons, ran=True)
    result = run_tool(lessons, "--check")
    assert result.returncode == 0, result.stdout
    assert result.stdout == ("kept, changed by you: exercises/04_the_loop_by_hand.ipynb\n"
                             "exercise copies are up to date (1 generated)\n")  # fmt: skip


def test_a_student_copy_whose_lesson_changed_is_kept_and_the_way_to_keep_it_is_said(
    lessons: Path,
) -> None:
    run_tool(lessons)
    mine = answer(lessons).read_bytes()
    changed = lesson()
    changed.cells[0].source += "\nmore prose"
    write_lesson(lessons, "04_the_loop_by_hand.ipynb", changed)
    check = run_tool(lessons, "--check")
    assert (check.returncode, check.stdout) == (0, (
        "kept, changed by you; its lesson changed since: exercises/04_the_loop_by_hand.ipynb\n"
        "exercise copies are up to date (1 generated)\n"))
    result = run_tool(lessons)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == (
        "kept exercises/04_the_loop_by_hand.ipynb: it holds your changes, and its lesson has "
        "changed since it was made. To keep your work and get the new copy, run `make "
        "exercises FORCE=1` (`--force`): it moves yours to "
        "exercises/saved/04_the_loop_by_hand.ipynb first.\n"
    )
    assert (lessons / "exercises" / "04_the_loop_by_hand.ipynb").read_bytes() == mine
    forced = run_tool(lessons, "--force")
    assert forced.returncode == 0
    assert forced.stdout == ("saved: exercises/saved/04_the_loop_by_hand.ipynb\n"
                             "updated: exercises/04_the_loop_by_hand.ipynb\n")  # fmt: skip
    assert (lessons / "exercises" / "saved" / "04_the_loop_by_hand.ipynb").read_bytes() == mine
    assert "more prose" in exercise(lessons).cells[1].source
    assert run_tool(lessons, "--check").stdout == "exercise copies are up to date (1 generated)\n"
    # a second student copy set aside does not take the first one's place
    answer(lessons)
    write_lesson(lessons, "04_the_loop_by_hand.ipynb", lesson())
    assert run_tool(lessons, "--force").stdout.startswith(
        "saved: exercises/saved/04_the_loop_by_hand-2.ipynb\n")
    assert (lessons / "exercises" / "saved" / "04_the_loop_by_hand.ipynb").read_bytes() == mine


def test_a_student_copy_is_not_removed_when_its_lesson_loses_its_exercise(lessons: Path) -> None:
    run_tool(lessons)
    mine = answer(lessons).read_bytes()
    plain = new_notebook(cells=[new_code_cell("print(1)")])
    write_lesson(lessons, "04_the_loop_by_hand.ipynb", plain)
    assert run_tool(lessons, "--check").returncode == 0
    result = run_tool(lessons)
    assert result.returncode == 1 and "kept exercises/04_the_loop_by_hand.ipynb" in result.stderr
    assert (lessons / "exercises" / "04_the_loop_by_hand.ipynb").read_bytes() == mine


def test_a_damaged_copy_is_never_overwritten_without_force(lessons: Path) -> None:
    run_tool(lessons)
    path = lessons / "exercises" / "04_the_loop_by_hand.ipynb"
    path.write_text('{"cells": [{"source": "half of my answ')
    assert "unreadable: exercises/04" in run_tool(lessons, "--check").stdout
    result = run_tool(lessons)
    assert result.returncode == 1 and "it is not a notebook any more" in result.stderr
    assert path.read_text().endswith("my answ")
    assert run_tool(lessons, "--force").returncode == 0
    assert (path.parent / "saved" / path.name).read_text().endswith("my answ")
    assert run_tool(lessons, "--check").returncode == 0


STUDENT_PATH = [("", "05_stop_gates.ipynb"), ("zh-CN", "06_token的增长.ipynb")]  # edition, copy


def test_a_students_answers_survive_the_test_command_and_make_exercises(tmp_path: Path) -> None:
    """A student saves answers in an English and a Chinese copy of the repository, then runs
    the test command's staleness check (what `make test` runs) and `make exercises`."""
    notebooks = tmp_path / "notebooks"
    for edition, name in STUDENT_PATH:
        for folder in (notebooks / edition, notebooks / edition / "exercises"):
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / folder.relative_to(tmp_path) / name, folder / name)
        answer(notebooks / edition, name, ran=True)
    copies = [notebooks / edition / "exercises" / name for edition, name in STUDENT_PATH]
    saved = [path.read_bytes() for path in copies]
    for args in (["--check"], []):  # `make test`'s check, then `make exercises`
        result = subprocess.run([sys.executable, str(TOOL), *args, "--notebooks", str(notebooks)],
                                capture_output=True, text=True, cwd=REPO)  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
    assert [path.read_bytes() for path in copies] == saved
    for path in copies:
        sources = [c.source for c in nbformat.read(path, as_version=4).cells]
        assert ANSWER in sources, path.name


def test_cells_without_ids_get_ids_from_their_position() -> None:
    nb = {
        "nbformat": 4,
        "nbformat_minor": 4,
        "metadata": {},
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
             "source": ["### BEGIN SOLUTION\n", "### END SOLUTION"]},
        ],
    }  # fmt: skip
    out = gen["make_exercise"](nb, "02_x.ipynb")
    assert [c["id"] for c in out["cells"]] == ["exercise-note", "cell-0"]
    assert out["nbformat_minor"] == 5
    nbformat.validate(nbformat.from_dict(out))


LESSON_SOLUTION = """\
def tool_results_message(content, results):
    ### BEGIN SOLUTION
    # TASK: return one user message with a tool_result for each tool_use, in call order
    blocks = []
    for block in content:
        if block.type == "tool_use":
            text, is_error = results[block.id]
            result = {"type": "tool_result", "tool_use_id": block.id, "content": text}
            if is_error:
                result["is_error"] = True
            blocks.append(result)
    return {"role": "user", "content": blocks}
    ### END SOLUTION"""
CHECK = "check_tool_results_message(tool_results_message)"


def run_cells(nb: dict[str, Any]) -> Any:
    """Run the code cells in one namespace, like Run All; return the check cell's value."""
    namespace: dict[str, Any] = {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), namespace)
    return eval(CHECK, namespace)


def test_round_trip_lesson_passes_its_check_and_the_copy_fails_it_with_the_task() -> None:
    nb = new_notebook(cells=[
        new_code_cell("from looplab.exercises import check_tool_results_message"),
        new_code_cell(LESSON_SOLUTION),
        new_code_cell(CHECK),
    ])  # fmt: skip
    lesson_card = run_cells(nb)
    assert lesson_card.passed, str(lesson_card)
    copy = gen["make_exercise"](nb, "02_the_message_list_is_the_state.ipynb")
    assert copy["cells"][3]["metadata"]["tags"] == ["check", "raises-exception"]
    card = run_cells(copy)
    assert not any(c.passed for c in card)
    assert {c.hint for c in card} == {
        "NotImplementedError: return one user message with a tool_result for each tool_use, "
        "in call order"
    }


def test_the_chinese_edition_gets_its_own_copies_with_a_chinese_note(lessons: Path) -> None:
    (lessons / "zh-CN").mkdir()
    write_lesson(lessons / "zh-CN", "04_the_loop_by_hand.ipynb", lesson())
    assert run_tool(lessons).returncode == 0
    copy = exercise(lessons / "zh-CN")
    assert copy.cells[0].id == "exercise-note" and "练习版" in copy.cells[0].source
    assert "Your copy of lesson 04" in exercise(lessons).cells[0].source
    (lessons / "zh-CN" / "04_the_loop_by_hand.ipynb").unlink()
    assert "extra:" in run_tool(lessons, "--check").stdout


def test_a_chinese_student_copy_speaks_chinese_and_does_not_link_the_lesson(
    lessons: Path,
) -> None:
    chinese = lesson()
    for cell in chinese.cells:
        cell.source = cell.source.replace("# TASK:", "# 任务：")
    (lessons / "zh-CN").mkdir()
    write_lesson(lessons / "zh-CN", "04_the_loop_by_hand.ipynb", chinese)
    assert run_tool(lessons).returncode == 0
    note, *cells = exercise(lessons / "zh-CN").cells
    assert note.source.startswith("*第 04 课的练习版") and "](" not in note.source
    code = "\n".join(c.source for c in cells if c.cell_type == "code")
    assert "# 在这里写你的代码" in code and "YOUR CODE HERE" not in code
    assert "# 任务：" not in code and "TASK" not in code


@pytest.mark.parametrize("marker", ["### BEGIN SOLUTION:", "### begin solution",
                                    "#### BEGIN SOLUTION", "    ###BEGIN SOLUTION",
                                    "### END SOLUTION."])
def test_a_near_miss_marker_is_an_error_naming_lesson_cell_and_line(
    tmp_path: Path, marker: str
) -> None:
    source = f"x = 1\n{marker}\nanswer = 42\n### END SOLUTION"
    nb = new_notebook(cells=[new_code_cell("print(1)"), new_code_cell(source)])
    nb.cells[1]["id"] = "c1"
    write_lesson(tmp_path, "05_x.ipynb", nb)
    result = run_tool(tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        f"error: 05_x.ipynb cell 1 (id c1), line 2: `{marker.strip()}` looks like a solution "
        "marker but is not one; write exactly `### BEGIN SOLUTION` or `### END SOLUTION`\n"
    )
    assert not (tmp_path / "exercises").exists()


def test_a_lone_end_marker_in_a_lesson_without_solutions_is_an_error(tmp_path: Path) -> None:
    nb = new_notebook(cells=[new_code_cell("answer = 42\n### END SOLUTION")])
    nb.cells[0]["id"] = "c0"
    write_lesson(tmp_path, "06_x.ipynb", nb)
    result = run_tool(tmp_path)
    assert result.returncode == 2
    assert result.stderr == ("error: 06_x.ipynb cell 0 (id c0), line 2: `### END SOLUTION` "
                             "without a `### BEGIN SOLUTION` above it\n")


@pytest.mark.parametrize("content", [b"\xff\xfe{not utf-8", b"not json", b"[1, 2]"])
def test_a_lesson_that_is_not_a_notebook_is_named_in_one_line(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / "zh-CN").mkdir()
    (tmp_path / "zh-CN" / "07_x.ipynb").write_bytes(content)
    result = run_tool(tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: zh-CN/07_x.ipynb: not a notebook (")
    assert result.stderr.count("\n") == 1
