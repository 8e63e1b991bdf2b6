"""Grading is bounded and contained: hostile notebooks get a status, the class still gets
graded, student code sees no secret and changes no submission, and nothing is left running.

Three groups of submissions are each graded once: generous time limits, tight ones, and
(where the system offers PID namespaces) the fallback without one.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, SOLVED, check, code, write_notebook

from looplab.grading import Grade, Options, grade_all
from looplab.grading.kernel_env import probe_namespace
from looplab.grading.kernels import ForkServer
from looplab.grading.lessons import load_lessons
from looplab.grading.submissions import find_submissions

pytestmark = pytest.mark.slow  # seconds each: `make quick` leaves them out

TOKEN = secrets.token_hex(6)
"""In the command line of every process a notebook below leaves behind on purpose."""
VICTIM = f"LOOPLAB_GRADE_TEST_VICTIM={TOKEN}"
"""In this test process's environment only: what a notebook tries to find and kill."""
SECRET = f"sk-ant-test-{TOKEN}"

SLEEPER = "[sys.executable, '-c', 'import time; time.sleep(600)', '{tag}-" + TOKEN + "']"
KILL_VISIBLE = f"""import os, signal
for pid in os.listdir('/proc'):
    try:
        environ = open(f'/proc/{{pid}}/environ', 'rb').read().split(b'\\0')
    except OSError:
        continue
    if b'{VICTIM}' in environ and int(pid) != os.getpid():
        os.kill(int(pid), signal.SIGKILL)
"""
GENEROUS: dict[str, list[object]] = {
    "sys_exit": ["import sys\nsys.exit(3)", SOLVED, check()],
    "sys_exit_in_function": [
        "import sys\ndef total_input(n_turns, S, delta):\n    sys.exit(1)", check()
    ],
    "os_exit": ["import os\nos._exit(3)", SOLVED, check()],
    "os_exit_in_function": [
        "import os\ndef total_input(n_turns, S, delta):\n    os._exit(0)", check()
    ],
    "segfault": ["import ctypes\nctypes.string_at(0)", SOLVED, check()],
    "tags_five": [code(SOLVED, tags=5), check(tags=5)],
    "reads_secrets": [
        "import os\nSEEN = [k for k, v in os.environ.items()\n"
        f"        if k.startswith('ANTHROPIC') or '{TOKEN}' in v]",
        SOLVED.replace("return ", "return -1 if SEEN else "),
        check(),
    ],
    "vandal": [
        "import os\nos.remove('data.txt')\n"
        "open('../victim/06_token_growth.ipynb', 'w').write('{}')",
        SOLVED,
        check(),
    ],
    "victim": [SOLVED, check()],
    "niced": [  # its answer is right only where its kernel runs 10 below the grader (or
        f"import os\nNICER = os.nice(0) - {os.nice(0)}",  # as far below as Linux allows, 19)
        SOLVED.replace("return ", f"return -1 if NICER < {min(10, 19 - os.nice(0))} else "),
        check(),
    ],
    "kills_parent": [
        "import os, signal\nif os.getppid() > 1:\n    os.kill(os.getppid(), signal.SIGKILL)",
        SOLVED,
        check(),
    ],
    "kills_grader": [KILL_VISIBLE, SOLVED, check()],
    "setsid_daemon": [
        "import subprocess, sys\nsubprocess.Popen(['setsid', *" + SLEEPER.format(tag="a") + "],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
        SOLVED,
        check(),
    ],
    "daemon_without_env": [
        "import subprocess, sys\nsubprocess.Popen(" + SLEEPER.format(tag="b") + ", env={},"
        " start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
        SOLVED,
        check(),
    ],
}
TIGHT: dict[str, list[object]] = {
    "infinite_loop": ["while True:\n    pass", SOLVED, check()],
    "ignores_sigint": [
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass",
        SOLVED,
        check(),
    ],
    "sleepy_cells": ["import time", *["time.sleep(1.8)"] * 9, SOLVED, check()],
    "loop_in_function": ["def total_input(n_turns, S, delta):\n    while True:\n        pass",
                         check()],  # fmt: skip
}
TIGHT_OPTIONS = dict(timeout_s=12.0, cell_timeout_s=2.0, grace_s=3.0)


def leftovers(text: str) -> list[int]:
    """Live processes (other than this one) whose command line, environment or working
    folder contains `text`. (A kernel's own /proc environ is its fork server's.)"""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            if Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] == b"Z":
                continue
            seen = Path(f"/proc/{pid}/cmdline").read_bytes()
            seen += Path(f"/proc/{pid}/environ").read_bytes()
            seen += os.fsencode(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            continue
        if text.encode() in seen:
            found.append(int(pid))
    return found


def grade_group(root: Path, cases: dict[str, list[object]], server: ForkServer,
                **options: float) -> dict[str, Grade]:  # fmt: skip
    for student, cells in cases.items():
        write_notebook(root / "submissions" / student / LESSON, cells)  # type: ignore[arg-type]
    if "vandal" in cases:
        (root / "submissions" / "vandal" / "data.txt").write_text("keep me")
    (root / "scratch").mkdir()
    grades = grade_all(
        find_submissions(root / "submissions"),
        load_lessons(LESSONS),
        jobs=4,  # most of these wait (for a timeout, a kill): side by side they wait together
        # the fork server, without bubblewrap: what these tests are about
        options=Options(scratch=root / "scratch", unsandboxed=True, **options),  # type: ignore[arg-type]
        server=server,
    )
    return {g.student: g for g in grades}


@pytest.fixture(scope="module")
def generous(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Grade], Path, bool]:
    root = tmp_path_factory.mktemp("generous")
    saved = dict(os.environ)
    os.environ.update(ANTHROPIC_API_KEY=SECRET, LOOPLAB_GRADE_TEST_VICTIM=TOKEN)
    try:
        with ForkServer() as server:
            server.wait_ready()
            cases = dict(GENEROUS)
            if not server.contained:  # it would only show that the fallback cannot stop these
                del cases["kills_grader"], cases["daemon_without_env"]
            grades = grade_group(root, cases, server, timeout_s=120.0, cell_timeout_s=30.0)
            return grades, root, server.contained
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    with ForkServer() as server:
        return grade_group(tmp_path_factory.mktemp("tight"), TIGHT, server, **TIGHT_OPTIONS)


Generous = tuple[dict[str, Grade], Path, bool]


def test_sys_exit_in_a_cell_does_not_stop_the_notebook(generous: Generous) -> None:
    grade = generous[0]["sys_exit"]
    assert (grade.status, grade.passed, grade.total) == ("passed", 6, 6)


def test_sys_exit_inside_the_checked_function_fails_its_checks(generous: Generous) -> None:
    grade = generous[0]["sys_exit_in_function"]
    assert (grade.status, grade.passed, grade.total) == ("failed", 0, 6)
    assert grade.first_failed_hint().endswith("— SystemExit: 1")


def test_os_exit_is_a_crash_with_the_cell_that_did_it(generous: Generous) -> None:
    grade = generous[0]["os_exit"]
    assert (grade.status, grade.passed, grade.total) == ("crashed", 0, 6)
    assert grade.reason == (
        "the kernel exited with code 3 (os._exit, quit() or a fatal error) in cell 1"
    )


def test_os_exit_during_the_checks_is_a_crash(generous: Generous) -> None:
    grade = generous[0]["os_exit_in_function"]
    assert (grade.status, grade.passed, grade.total) == ("crashed", 0, 6)
    assert "during" not in grade.reason and "the checks" in grade.reason


def test_a_segfault_is_a_crash_not_an_exception(generous: Generous) -> None:
    grade = generous[0]["segfault"]
    assert (grade.status, grade.passed, grade.total) == ("crashed", 0, 6)
    assert grade.reason == "the kernel died of SIGSEGV (a crash in native code) in cell 1"


def test_tags_that_are_not_a_list_change_nothing(generous: Generous) -> None:
    grade = generous[0]["tags_five"]
    assert (grade.status, grade.passed, grade.total) == ("passed", 6, 6)


def test_the_kernel_sees_no_key_token_or_other_secret_of_the_grader(generous: Generous) -> None:
    assert generous[0]["reads_secrets"].status == "passed"


def test_a_students_kernel_runs_at_a_lower_cpu_priority_than_the_grader(
    generous: Generous,
) -> None:
    assert generous[0]["niced"].status == "passed"


def test_student_code_changes_no_submission(generous: Generous) -> None:
    grades, root, _ = generous
    assert (root / "submissions/vandal/data.txt").read_text() == "keep me"
    assert "cells" in (root / "submissions/victim" / LESSON).read_text()
    assert grades["vandal"].status == grades["victim"].status == "passed"


def test_killing_its_parent_does_not_stop_the_grading(generous: Generous) -> None:
    grades, _, _ = generous
    assert grades["kills_parent"].status == "passed"
    expected = {"sys_exit", "victim", "tags_five", "reads_secrets", "setsid_daemon"}
    assert all(grades[s].status == "passed" for s in expected)


def test_the_grader_is_out_of_reach_of_student_code(generous: Generous) -> None:
    grades, _, contained = generous
    if not contained:
        pytest.skip("no PID namespaces here: a kernel can see the grader's processes")
    assert grades["kills_grader"].status == "passed"  # and this test process is alive


def test_no_kernel_or_child_is_left_running(generous: Generous) -> None:
    _, root, contained = generous
    assert leftovers(TOKEN) == []  # the setsid sleeper (and, contained, the one without env)
    assert leftovers(str(root / "scratch")) == []  # no kernel: their HOME was in there
    assert list((root / "scratch").iterdir()) == []  # every scratch copy removed


@pytest.fixture(scope="module")
def invalid(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    root = tmp_path_factory.mktemp("invalid")
    (root / "ada").mkdir()
    (root / "ada" / LESSON).write_text("this is not a notebook {")
    write_notebook(root / "bob" / LESSON, ["x = 1"] * 10_000)
    write_notebook(root / "chen" / "99_no_such_lesson.ipynb", ["x = 1"])
    return {g.student: g for g in grade_all(find_submissions(root), load_lessons(LESSONS))}


def test_a_file_that_is_not_json_is_invalid(invalid: dict[str, Grade]) -> None:
    grade = invalid["ada"]
    assert (grade.status, grade.passed, grade.total) == ("invalid", 0, 6)
    assert grade.reason.startswith("not a notebook: not valid JSON")


def test_ten_thousand_cells_are_invalid_not_run(invalid: dict[str, Grade]) -> None:
    grade = invalid["bob"]
    assert (grade.status, grade.passed, grade.total) == ("invalid", 0, 6)
    assert grade.reason == "the notebook has 10,000 cells; at most 2,000"


def test_a_notebook_named_like_no_lesson_is_invalid(invalid: dict[str, Grade]) -> None:
    grade = invalid["chen"]
    assert (grade.status, grade.total) == ("invalid", 0)
    assert grade.reason == "no lesson with exercises is named like 99_no_such_lesson.ipynb"


def test_an_endless_cell_is_interrupted_and_the_rest_still_runs(tight: dict[str, Grade]) -> None:
    grade = tight["infinite_loop"]
    assert (grade.status, grade.passed, grade.ran_passed, grade.total) == ("timeout", 0, 6, 6)
    assert grade.reason == "cell 1 ran over 2 s and was interrupted"


def test_a_cell_that_ignores_the_interrupt_is_killed(tight: dict[str, Grade]) -> None:
    grade = tight["ignores_sigint"]
    assert (grade.status, grade.passed, grade.total) == ("timeout", 0, 6)
    assert grade.reason == "cell 1 ran over 2 s and ignored the interrupt"


def test_the_notebook_has_an_overall_deadline(tight: dict[str, Grade]) -> None:
    grade = tight["sleepy_cells"]  # 9 cells of 1.8 s, each under the 2 s cell limit
    assert (grade.status, grade.passed, grade.total) == ("timeout", 0, 6)
    assert grade.reason.startswith("the notebook ran over its 12 s deadline in cell ")


def test_an_endless_checked_function_times_out_its_checks(tight: dict[str, Grade]) -> None:
    grade = tight["loop_in_function"]
    assert (grade.status, grade.passed, grade.total) == ("timeout", 0, 6)
    assert grade.first_failed_hint().startswith("the checks (06_token_growth.ipynb, check cell 1)")
    assert grade.rows[0].hint == "the check ran over its time and was interrupted"


def test_without_a_pid_namespace_kernels_are_still_killed_by_group_and_marker() -> None:
    cases: dict[str, list[object]] = {
        "a_setsid_daemon": GENEROUS["setsid_daemon"],
        "b_kills_parent": GENEROUS["kills_parent"],  # here: the fork server
        "c_after_it": [SOLVED, check()],
        "d_os_exit": GENEROUS["os_exit"],
    }
    # a short folder: a kernel's ZeroMQ sockets live in its scratch folder, and a Unix
    # socket's path has at most 107 bytes (pytest's own folders under xdist come close)
    with ForkServer(contain=False) as server, tempfile.TemporaryDirectory(prefix="lg") as short:
        root = Path(short)
        grades = grade_group(root, cases, server, timeout_s=120.0, cell_timeout_s=30.0)
        assert not server.contained
        assert [grades[s].status for s in cases] == ["passed", "passed", "passed", "crashed"], (
            grades)
        assert leftovers(TOKEN) == []
        assert leftovers(str(root / "scratch")) == []


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_stopping_the_grader_leaves_nothing_running(tmp_path: Path, how: str) -> None:
    if how == "SIGKILL" and not probe_namespace():
        pytest.skip("without PID namespaces a killed grader cannot take its kernels along")
    sleeper = SLEEPER.format(tag=how)
    write_notebook(tmp_path / "submissions/ada" / LESSON, [
        f"import subprocess, sys\nsubprocess.Popen({sleeper}, stdout=subprocess.DEVNULL)",
        "import time\ntime.sleep(600)",
    ])  # fmt: skip
    (tmp_path / "tmp").mkdir()
    book = ["--csv", str(tmp_path / "book.csv"), "--html", str(tmp_path / "book.html")]
    grader = subprocess.Popen(
        [sys.executable, "-m", "looplab.grade", str(tmp_path / "submissions"), *book],
        env={**os.environ, "TMPDIR": str(tmp_path / "tmp")},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert wait_for(lambda: leftovers(f"{how}-{TOKEN}") != []), "the notebook never ran"
        grader.send_signal(getattr(signal, how))
        grader.wait(timeout=120)
    finally:
        grader.kill()
    if how == "SIGTERM":
        assert grader.returncode == 130  # and no gradebook: it was not finished
        assert not (tmp_path / "book.csv").exists()
        assert list((tmp_path / "tmp").glob("looplab-*/grade-*")) == []  # scratch removed
    assert wait_for(lambda: leftovers(f"{how}-{TOKEN}") == [] == leftovers(str(tmp_path)))


def wait_for(condition: Callable[[], bool], limit_s: float = 120.0) -> bool:
    """Poll `condition` until it holds (True) or `limit_s` passed (False)."""
    end = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.2)
    return True
