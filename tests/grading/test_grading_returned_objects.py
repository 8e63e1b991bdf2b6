"""What a student's function returns, and what it changes, is graded as it is.

Lesson 14's `make_delegate` returns a function the checker then runs as a tool, from
several threads at once, on a `Ledger` the checker reads back; lesson 15's `gate` returns a
tool the checker runs. In the grader these stay in the student's kernel and are called
there later, and the ledger the kernel reserves from and charges is the grader's own
(`looplab.grading.shared`). So the right answers pass, and a delegate that charges after
the run, or a gate that asks before a read or waits for a late yes, fails exactly those
checks.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from looplab.grading import Grade, grade_folder
from looplab.grading.shared import SharedLedger, ledger_desk
from looplab.lessons.subagents import Ledger

REPO = Path(__file__).resolve().parents[2]
DELEGATE = "notebooks/14_a_sub_agent_is_a_tool.ipynb"
GATE = "notebooks/15_gates_for_side_effects.ipynb"
WRONG = {
    # (lesson, the solution's line, the wrong answer's line)
    "charges_after": (DELEGATE, "result = ledger.run(client, task, tools=tools, max_turns=5)",
                      "result = run_agent(client, task, tools=tools, limits=Limits("
                      "max_turns=5, token_budget=ledger.remaining)); ledger.charge(result.usage)"),
    "asks_before_reads": (GATE, 'if kind != "read" and ask_within(', "if ask_within("),
    "waits_for_late_yes": (GATE, "ask_within(approve, tool.name, tool_input, kind)",
                           "approve(tool.name, tool_input, kind)"),
}


def _submission(folder: Path, student: str, lesson: str, old: str, new: str) -> None:
    nb = nbformat.read(REPO / lesson, as_version=4)
    solution = next(c for c in nb.cells if "### BEGIN SOLUTION" in c.source and old in c.source)
    solution.source = solution.source.replace(old, new)
    (folder / student).mkdir(parents=True)
    nbformat.write(nb, folder / student / Path(lesson).name)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    folder = tmp_path_factory.mktemp("submissions")
    for lesson in (DELEGATE, GATE):
        (folder / "right").mkdir(exist_ok=True)
        shutil.copyfile(REPO / lesson, folder / "right" / Path(lesson).name)
    for student, (lesson, old, new) in WRONG.items():
        _submission(folder, student, lesson, old, new)
    return {f"{g.student}/{g.notebook[:2]}": g for g in grade_folder(folder, jobs=2)}


@pytest.mark.slow
def test_a_returned_delegate_and_a_returned_tool_run_in_the_kernel_and_pass(
    graded: dict[str, Grade],
) -> None:
    for key in ("right/14", "right/15"):
        assert graded[key].status == "passed", (key, graded[key].first_failed_hint())
        assert graded[key].passed == graded[key].total > 0


@pytest.mark.slow
def test_a_delegate_that_charges_after_the_run_fails_the_ledger_checks_only(
    graded: dict[str, Grade],
) -> None:
    grade = graded["charges_after/14"]
    failed = [row.name for row in grade.rows if not row.passed]
    assert grade.status == "failed" and failed == [
        "the sub-agent may spend only what the ledger has left",
        "sub-agents at once and inside each other spend no more than the shared budget"], grade.rows


@pytest.mark.slow
def test_a_gate_that_waits_for_a_late_yes_fails_that_check_only(graded: dict[str, Grade]) -> None:
    grade = graded["waits_for_late_yes/15"]
    failed = [row.name for row in grade.rows if not row.passed]
    assert grade.status == "failed" and failed == [
        "a yes that comes after the approver's time runs nothing; the model gets is_error"]


@pytest.mark.slow
def test_a_gate_that_asks_before_a_read_fails_that_check_only(graded: dict[str, Grade]) -> None:
    grade = graded["asks_before_reads/15"]
    failed = [row.name for row in grade.rows if not row.passed]
    assert grade.status == "failed" and failed == ["a read tool runs without asking"], grade.rows


def test_the_kernels_ledger_reads_and_charges_the_graders() -> None:
    ledger = Ledger(1_000, used=800)
    shared = SharedLedger(ledger_desk(ledger))
    assert (shared.budget, shared.used, shared.remaining) == (1_000, 800, 200)
    shared.charge({"input_tokens": 80, "output_tokens": 20})
    shared.used += 5
    assert ledger.used == 905 and shared.remaining == 95


def test_the_ledgers_desk_takes_whole_tokens_and_known_reads_only() -> None:
    desk = ledger_desk(Ledger(100))
    with pytest.raises(TypeError):
        desk("add", 1.5)
    with pytest.raises(TypeError):
        desk("add", True)
    with pytest.raises(ValueError):
        desk("__dict__")
    with pytest.raises(AttributeError):
        SharedLedger(desk).budget = 5


def test_the_kernels_ledger_reserves_and_settles_on_the_graders() -> None:
    ledger = Ledger(1_000)
    shared = SharedLedger(ledger_desk(ledger))
    hold = shared.reserve(600)
    assert hold is not None and shared.reserve(600) is None  # 400 left, reserved there
    assert (ledger.held, shared.remaining) == (600, 400)
    shared.settle(hold, 250)
    assert (ledger.used, ledger.held, shared.remaining) == (250, 0, 750)
    with pytest.raises(TypeError):
        ledger_desk(ledger)("settle", 5, "1")
