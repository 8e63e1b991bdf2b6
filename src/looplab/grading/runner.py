"""Grading one submitted notebook: copy, run every code cell, then run the lesson's checks.

The notebook runs in a scratch copy of its student's folder, in a fresh kernel with a
scrubbed environment and its own home and temp folders. After its last cell the grader
runs the lesson's check cells, from its own copy of the lesson (`lessons.py`), in its own
process (`remote.py`): the checkers call the student's functions in the kernel over the
kernel's wire (`wire.py`), and judge what came back and what was sent to their fake API.
Afterwards the kernel and everything it started are killed and the scratch folder is
removed, whatever happened.
"""

from __future__ import annotations

import ast
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..exercises.runner import recipe_of
from ..i18n import speaking
from .agents import LessonAgent
from .hiding import ENV as HIDING
from .jail import default_scratch
from .kernel_env import scrubbed_env
from .kernels import GraderError, Kernel, Kernels
from .lessons import Lesson, Lessons, Step, parse_cell
from .limits import Limits, hit, killed_by
from .remote import Kernel as Checked
from .remote import KernelNames, run_steps
from .results import Entries, Grade, Row, rows_for
from .session import Outcome, Session
from .shipped import imported_answer, kernel_request, ran_shipped, shipped_names
from .submissions import (
    InvalidNotebook,
    Submission,
    copy_for_run,
    read_code_cells,
    syntax_error,
)
from .wire import Wire


@dataclass(frozen=True)
class Options:
    timeout_s: float = 300.0
    """The whole notebook: kernel start, every cell and the checks."""
    cell_timeout_s: float = 60.0
    """One cell (or one check cell); then it is interrupted and the next cell runs."""
    grace_s: float = 2.0
    """How long an interrupted cell has to stop before its kernel is killed."""
    scratch: Path | None = None
    """Where each notebook's scratch folder is made (default: `jail.default_scratch()`)."""
    stop: threading.Event = field(default_factory=threading.Event, compare=False)
    """Set it to end every running notebook at once (Ctrl-C)."""
    limits: Limits = field(default_factory=Limits)
    """What each kernel may use (`limits.py`)."""
    unsandboxed: bool = False
    """Grade a class even where bubblewrap cannot start (`batch.check_sandbox`)."""


@dataclass
class _Run:
    """What went wrong while running, if anything: the grade's status and reason."""

    status: str = ""
    reason: str = ""

    def note(self, outcome: Outcome, where: str, options: Options) -> bool:
        """Record a bad outcome; True when the kernel cannot go on."""
        limit = self._limit(outcome)
        if limit is not None:  # the student's own error, whatever else happened
            if self.status != "error":
                named = options.limits.named(limit)
                self.status, self.reason = "error", f"{where} ran into {named}"
            return outcome.kind != "error"
        if outcome.kind in ("ok", "error"):
            return False
        limit = f"{options.cell_timeout_s:g} s"
        status, reason = {
            "interrupted": ("timeout", f"{where} ran over {limit} and was interrupted"),
            "timeout": ("timeout", f"{where} ran over {limit} and ignored the interrupt"),
            "deadline": ("timeout", f"the notebook ran over its {options.timeout_s:g} s "
                                    f"deadline in {where}"),
            "crashed": ("crashed", f"{outcome.detail} in {where}"),
            "cancelled": ("error", "grading was cancelled"),
        }[outcome.kind]  # fmt: skip
        if not self.status or (self.status == "timeout" and status != "timeout"):
            self.status, self.reason = status, reason  # the first timeout, or a crash after it
        return outcome.kind != "interrupted"

    @staticmethod
    def _limit(outcome: Outcome) -> str | None:
        if outcome.kind == "error":
            return hit(outcome.detail, outcome.message)
        if outcome.kind == "crashed":
            return killed_by(outcome.code)
        return None


def grade_submission(
    submission: Submission, lessons: Lessons, server: Kernels, options: Options
) -> Grade:
    """Grade one notebook. Never raises for anything the notebook does."""
    lesson = lessons.match(submission.path.name)
    if lesson is None:
        why = f"no lesson with exercises is named like {submission.path.name}"
        like = lessons.looks_like(submission.path.name)
        if like is not None:
            why = (f"{submission.path.name} looks like lesson {like[:2]}; rename it {like} "
                   "or pass --match-loose")  # fmt: skip
        return Grade(submission.student, submission.shown, "invalid", reason=why)
    try:
        cells = read_code_cells(submission.path)
    except InvalidNotebook as e:
        return _grade(submission, lesson, {}, _Run("invalid", str(e)))
    imported = _imported_answer(lesson, cells)
    if imported is not None:
        return _grade(submission, lesson, {}, _Run("invalid", imported))
    with tempfile.TemporaryDirectory(
        prefix="grade-", dir=options.scratch or default_scratch(), ignore_cleanup_errors=True
    ) as scratch:
        entries: Entries = {}
        try:  # the checks run here, in the submission's language (the tools' words too)
            with speaking(lessons.language(submission.path.name)):
                run = _run(submission, lesson, cells, Path(scratch), server, options, entries)
        except (GraderError, OSError) as e:
            run = _Run("error", f"{type(e).__name__}: {e}")
        return _grade(submission, lesson, entries, run, syntax_error(cells))


def grader_failed(submission: Submission, lessons: Lessons, why: str) -> Grade:
    """The grade of a notebook the grader itself failed on: status error, 0 of the lesson's
    checks (the same checks_total as any other status, `results.POLICY`)."""
    lesson = lessons.match(submission.path.name)
    if lesson is None:
        return Grade(submission.student, submission.shown, "error", reason=why)
    return _grade(submission, lesson, {}, _Run("error", why))


def _checker_calls(lesson: Lesson) -> list[tuple[str, list[ast.expr]]]:
    """Each checker call of the lesson's checks: (the checker as written, its arguments)."""
    calls = []
    for step in lesson.checks():
        call = parse_cell(step.source)
        node = call.body[0] if call is not None and call.body else None
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            calls.append((ast.unparse(node.value.func), node.value.args))
    return calls


def _imported_answer(lesson: Lesson, cells: list[tuple[int, str]]) -> str | None:
    """Why an exercise's answer is looplab's own function, if it is."""
    sources = [source for _, source in cells]
    for checker, args in _checker_calls(lesson):
        for arg in args:
            if isinstance(arg, ast.Name):
                why = imported_answer(sources, checker, arg.id)
                if why is not None:
                    return why
    return None


def _grade(submission: Submission, lesson: Lesson, entries: Entries, run: _Run,
           syntax: str | None = None) -> Grade:  # fmt: skip
    missing = run.reason or "the check did not run"
    rows: list[Row] = []
    for step in lesson.checks():
        rows += rows_for(step, entries.get(step.label), missing)
    if syntax is not None:  # the real cause of a later NameError
        rows = [r if r.passed else Row(r.exercise, r.name, False, syntax) for r in rows]
    status = run.status or ("passed" if rows and all(r.passed for r in rows) else "failed")
    return Grade(submission.student, submission.shown, status, tuple(rows), run.reason)


def _start(scratch: Path, workdir: Path, server: Kernels, lesson: Lesson) -> tuple[Kernel, Path]:
    """A kernel in `workdir` whose looplab lacks the shipped answers of `lesson`'s exercises
    (`hiding.py`)."""
    from jupyter_client.connect import write_connection_file

    home, tmp = scratch / "home", scratch / "tmp"
    home.mkdir()
    tmp.mkdir()
    connection = scratch / "kernel.json"
    transport = {"transport": "ipc", "ip": str(scratch / "ipc")} if os.name == "posix" else {}
    write_connection_file(str(connection), **transport)  # type: ignore[arg-type]
    checkers = [checker for checker, _ in _checker_calls(lesson)]
    env = scrubbed_env(HOME=str(home), TMPDIR=str(tmp), MPLBACKEND="agg")
    env[HIDING] = kernel_request(checkers)
    log = scratch / "kernel.log"
    kernel = server.spawn(cwd=workdir, env=env, connection_file=connection, log=log)
    return kernel, connection


def _run(submission: Submission, lesson: Lesson, cells: list[tuple[int, str]], scratch: Path,
         server: Kernels, options: Options, entries: Entries) -> _Run:  # fmt: skip
    deadline = time.monotonic() + options.timeout_s
    workdir = copy_for_run(submission, scratch / "work")
    run = _Run()
    wire = Wire(scratch)
    kernel, connection = _start(scratch, workdir, server, lesson)
    session = None
    try:
        session = Session(kernel, connection, deadline=deadline, grace_s=options.grace_s,
                          stop=options.stop)  # fmt: skip
        ready = session.wait_ready()
        if ready.kind != "ok":
            return _not_started(ready, scratch, options)
        for number, source in cells:
            if not source.strip() or source.strip() in lesson.sources:
                continue
            outcome = session.execute(source, options.cell_timeout_s)
            if run.note(outcome, f"cell {number}", options) or _cut_off(wire, run):
                return run
        _check(lesson, wire, session, options, run, entries)
        _cut_off(wire, run)
        return run
    finally:
        if session is not None:
            session.close()
        kernel.kill()
        wire.close()


def _cut_off(wire: Wire, run: _Run) -> bool:
    """Whether the kernel overstepped a bound of the grader's socket (then the grade is
    `error`, whatever its checks gave: what it sent was not read)."""
    if wire.broken:
        run.status, run.reason = "error", wire.broken
    return bool(wire.broken)


def _check(lesson: Lesson, wire: Wire, session: Session, options: Options, run: _Run,
           entries: Entries) -> None:  # fmt: skip
    """Run the lesson's check cells here; each job in the kernel has the cell time limit,
    and the first one that does not answer ends its check cell."""

    def record(label: str, rows: object, error: str) -> None:
        entries.setdefault(label, (rows, error))

    shipped = shipped_names(checker for checker, _ in _checker_calls(lesson))
    for index, cell in enumerate(lesson.cells, 1):
        wire.handles.reset(recipe_of)
        checked = Checked(wire, session, options.cell_timeout_s, shipped=shipped)
        names = KernelNames(checked)
        names.update(_agents_under_test(lesson, cell))
        run_steps([step.as_tuple() for step in cell], names, record)
        # the kernel's word (`hiding.Watch`): a second layer, as the kernel is the student's
        if checked.ran is not None and not run.status:
            run.status, run.reason = "invalid", ran_shipped(*checked.ran)
        where = f"the checks ({lesson.name}, check cell {index})"
        if checked.trouble is not None and run.note(checked.trouble, where, options):
            break
    if run.status == "invalid":  # what the checks scored was looplab's, not the student's
        entries.clear()


def _agents_under_test(lesson: Lesson, cell: tuple[Step, ...]) -> dict[str, LessonAgent]:
    """For `check_gate_test(test, agent)`: `agent` is the lesson's own, run in the grader."""
    found = {}
    for step in cell:
        call = parse_cell(step.source) if step.kind == "check" else None
        node = call.body[0] if call is not None and call.body else None
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        args = node.value.args
        if ast.unparse(node.value.func).endswith("check_gate_test") and len(args) > 1:
            name = args[1].id if isinstance(args[1], ast.Name) else ""
            source = lesson.function(name)
            if source is not None:
                found[name] = LessonAgent(name, source)
    return found


def _not_started(outcome: Outcome, scratch: Path, options: Options) -> _Run:
    if outcome.kind == "deadline":
        return _Run("error", f"the kernel did not start within {options.timeout_s:g} s")
    if outcome.kind == "cancelled":
        return _Run("error", "grading was cancelled")
    try:
        lines = (scratch / "kernel.log").read_text(errors="replace").strip().splitlines()
    except OSError:
        lines = []
    last = f": {lines[-1][:200]}" if lines else ""
    return _Run("error", f"the kernel did not start ({outcome.detail}){last}")
