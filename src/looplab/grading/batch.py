"""Grading many notebooks at once: one fork server, `jobs` notebooks running side by side."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING

from .jail import jail_for
from .jailed import JailedKernels
from .kernel_env import scrubbed_env
from .kernels import ForkServer, GraderError, Kernels
from .lessons import Lessons, default_folder, load_lessons
from .limits import Limits
from .results import Grade
from .runner import Options, grade_submission, grader_failed
from .submissions import Submission, find_submissions

if TYPE_CHECKING:
    from ..exercises import Scorecard


def default_jobs() -> int:
    """One notebook per core."""
    return max(1, os.cpu_count() or 1)


_said: list[str] = []
_servers: dict[tuple[object, ...], Kernels] = {}
_servers_lock = threading.Lock()


def start_server(hidden: Iterable[Path], scratch: Path | None = None,
                 limits: Limits | None = None) -> Kernels:  # fmt: skip
    """What starts the kernels: one bubblewrap per kernel that keeps `hidden` out of its
    sight (see `jail.py`); where bubblewrap cannot start, a fork server without it, and the
    grader says so once (`check_sandbox` decides whether it may grade a class that way).

    A fork server stays up until this process ends, and a later call that asks for the
    same one gets it again instead of waiting seconds for a new one to import everything:
    a teacher grading notebook after notebook, or a test suite."""
    jail = jail_for(scratch, hidden)
    env = tuple(sorted(scrubbed_env().items()))
    limits = limits or Limits()
    why = jail.why_not()  # asked each time: the answer decides which server may be shared
    if why is not None and not _said:
        _said.append(why)
        print(f"looplab-grade: {why}; without a sandbox, a student's code can read and "
              "write whatever you can", file=sys.stderr)  # fmt: skip
    if why is None:
        return JailedKernels(jail, limits=limits)
    with _servers_lock:
        server = _servers.get((env, limits))
        if server is None:
            if not _servers:
                atexit.register(close_servers)
            server = _servers[env, limits] = ForkServer(limits=limits)
    return server


UNSANDBOXED = (
    "without bubblewrap a student's code runs as you: it can read the other students' "
    "notebooks and the lessons' solutions, write the package, the other students' scratch "
    "folders and anything else you can write, and change another student's grade"
)
"""What `--unsandboxed` allows, said when the grader refuses to grade a class without it."""


def check_sandbox(server: Kernels, students: int, unsandboxed: bool) -> None:
    """`GraderError` unless the kernels are sandboxed, only one student is graded, or the
    teacher said `--unsandboxed`: one student's code must not reach another's grade."""
    if server.jail is None and students > 1 and not unsandboxed:
        raise GraderError(
            f"bubblewrap is not available here ({_said[0] if _said else 'see above'}), and "
            f"{UNSANDBOXED}. Install it (the README's teacher section says how), or grade "
            "anyway with --unsandboxed"
        )


def close_servers() -> None:
    """Stop every server `start_server` started (done when this process exits)."""
    with _servers_lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.close()


def _hidden(submissions: Sequence[Submission]) -> set[Path]:
    return {s.folder or s.path.parent for s in submissions}


def grade_all(
    submissions: Sequence[Submission],
    lessons: Lessons,
    *,
    jobs: int | None = None,
    options: Options | None = None,
    on_grade: Callable[[Grade], None] | None = None,
    server: Kernels | None = None,
) -> list[Grade]:
    """Grade every submission, `jobs` at a time; `on_grade` hears of each as it finishes.
    The grades come back in the order of `submissions`. `server` (default: the shared one
    of `start_server`) can be started earlier, to get ready while the lessons are read;
    whoever started it closes it. Without a sandbox (and `options.unsandboxed` False) a
    class of more than one student is refused (`check_sandbox`)."""
    options = options or Options()
    grades: list[Grade | None] = [None] * len(submissions)
    running = server or start_server(_hidden(submissions), options.scratch, options.limits)
    students = len({s.student for s in submissions})
    check_sandbox(running, students, options.unsandboxed)
    with ThreadPoolExecutor(jobs or default_jobs()) as pool:
        running.wait_ready()
        futures: dict[Future[Grade], int] = {
            pool.submit(_grade_safely, s, lessons, running, options): i
            for i, s in enumerate(submissions)
        }
        try:
            for future in as_completed(futures):
                grade = future.result()
                grades[futures[future]] = grade
                if on_grade is not None:
                    on_grade(grade)
        except BaseException:
            options.stop.set()  # Ctrl-C: every running notebook stops and is cleaned up
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return [g for g in grades if g is not None]


def _grade_safely(
    submission: Submission, lessons: Lessons, server: Kernels, options: Options
) -> Grade:
    try:
        return grade_submission(submission, lessons, server, options)
    except Exception as e:  # a grader bug must not stop the class from being graded
        return grader_failed(submission, lessons, f"the grader failed: {type(e).__name__}: {e}")


def grade_folder(
    folder: str | Path,
    *,
    lessons: str | Path | None = None,
    jobs: int | None = None,
    options: Options | None = None,
    on_grade: Callable[[Grade], None] | None = None,
) -> list[Grade]:
    """Grade every notebook under `folder` (one sub-folder per student)."""
    submissions = find_submissions(Path(folder))
    lessons_folder = default_folder() if lessons is None else Path(lessons)
    options = options or Options()
    server = start_server([Path(folder), lessons_folder], options.scratch, options.limits)
    found = load_lessons(lessons_folder)
    return grade_all(
        submissions, found, jobs=jobs, options=options, on_grade=on_grade, server=server
    )


def grade_notebook(
    path: str | Path, *, timeout_s: float = 120, lessons: str | Path | None = None
) -> Scorecard:
    """Grade one submitted exercise notebook; its checks as a scorecard.

    The checks are the lesson's (matched by file name), run by the grader after the
    notebook's code; see `looplab.grading`. `timeout_s` bounds each cell. When
    the notebook timed out, crashed or is not a notebook, a last failed check says so.

        card = grade_notebook("submissions/ada/05_stop_gates.ipynb")
        assert card.passed, card
    """
    from ..exercises import Check, Scorecard

    path = Path(path)
    submission = Submission(path.parent.name, path, path.name, path.parent)
    found = load_lessons(None if lessons is None else Path(lessons))
    options = Options(timeout_s=max(300.0, 4 * timeout_s), cell_timeout_s=timeout_s)
    (grade,) = grade_all([submission], found, jobs=1, options=options)
    card = Scorecard(f"grade_notebook({path.name})")
    card.extend(Check(f"{r.exercise}: {r.name}", r.passed, r.hint) for r in grade.rows)
    if grade.status not in ("passed", "failed"):
        card.append(Check(f"the notebook ({grade.status})", False, grade.reason))
    return card
