"""Attacks on the demo tools: each is refused as an is_error result, nothing outside the
root is read, nothing is written, and a timed-out test run leaves no process behind."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from liveness import wait_gone

import looplab.lessons.demo
import looplab.running.processes
from looplab.core.result import ToolCall
from looplab.core.tools import ToolError, answer_calls, as_tools
from looplab.lessons.demo import demo_root, demo_tools
from looplab.running.processes import marked_pids, run_subprocess

SECRET = "TOP SECRET"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(demo_root(), root)
    (tmp_path / "secret.txt").write_text(SECRET)
    return root


def use(root: Path, name: str, timeout_s: float = 60, **input: Any) -> ToolCall:
    tools, _ = as_tools(demo_tools(root, timeout_s=timeout_s))
    [c] = answer_calls([ToolCall("toolu_1", name, input)], tools, timeout_s=None)
    return c


def refused(root: Path, path: str) -> str:
    c = use(root, "read_file", path=path)
    assert c.is_error, c.result
    assert SECRET not in str(c.result)
    return str(c.result)


@pytest.mark.parametrize("path", ["../secret.txt", "logs/../../secret.txt", "..\\secret.txt",
                                  "logs/../login.py"])
def test_read_file_refuses_dot_dot(repo: Path, path: str) -> None:
    assert refused(repo, path) == (f"refused: {path!r} contains '..'; only files inside the "
                                   "repository")


@pytest.mark.parametrize("path", ["/etc/passwd", "C:\\Windows\\win.ini", "\\\\server\\share\\x",
                                  "C:secret.txt"])
def test_read_file_refuses_absolute_paths(repo: Path, path: str) -> None:
    assert refused(repo, path) == (f"refused: {path!r} is absolute; give a path relative to "
                                   "the repository root, e.g. login.py")


def test_read_file_refuses_absolute_path_to_a_real_file(repo: Path) -> None:
    path = str(repo.parent / "secret.txt")
    assert refused(repo, path).startswith(f"refused: {path!r} is absolute")


def test_read_file_refuses_symlinks_that_leave_the_root(repo: Path) -> None:
    (repo / "notes.txt").symlink_to(repo.parent / "secret.txt")
    (repo / "up").symlink_to(repo.parent, target_is_directory=True)
    (repo / "zero").symlink_to("/dev/zero")
    for path in ["notes.txt", "up/secret.txt", "zero"]:
        assert refused(repo, path) == (f"refused: {path!r} leads outside the repository "
                                       "(a symlink)")


def test_read_file_follows_symlinks_that_stay_inside(repo: Path) -> None:
    (repo / "source.py").symlink_to(repo / "login.py")
    c = use(repo, "read_file", path="source.py")
    assert not c.is_error and c.result == (repo / "login.py").read_text()


def test_read_file_refuses_directories_with_a_listing(repo: Path) -> None:
    for path in ["logs", ".", "tests/"]:
        text = refused(repo, path)
        assert text.startswith(f"{path!r} is a directory. Files: ")
        assert "login.py" in text and "logs/login.log" in text


def test_read_file_refuses_a_fifo_without_hanging(repo: Path) -> None:
    os.mkfifo(repo / "pipe")
    assert refused(repo, "pipe") == ("refused: 'pipe' is not a regular file (device, FIFO or "
                                     "socket)")


def test_read_file_refuses_a_device_inside_the_root(repo: Path) -> None:
    try:
        os.mknod(repo / "null", 0o666 | 0o020000, os.makedev(1, 3))  # like /dev/null
    except PermissionError:
        pytest.skip("creating a device node needs privileges")
    assert refused(repo, "null") == ("refused: 'null' is not a regular file (device, FIFO or "
                                     "socket)")


def test_read_file_refuses_binary_and_non_utf8_files(repo: Path) -> None:
    (repo / "blob.bin").write_bytes(b"PK\x03\x04\x00\x00binary")
    (repo / "latin1.txt").write_bytes("café crème".encode("latin-1"))
    assert refused(repo, "blob.bin") == ("refused: 'blob.bin' is a binary file; only text "
                                         "files can be read")
    assert refused(repo, "latin1.txt") == ("refused: 'latin1.txt' is not UTF-8 text (a binary "
                                           "file?)")


@pytest.mark.parametrize("path", ["", "login.py\x00.txt"])
def test_read_file_refuses_empty_and_nul_paths(repo: Path, path: str) -> None:
    assert refused(repo, path) == "refused: give a file path relative to the repository root"


def test_read_file_missing_file_lists_the_files(repo: Path) -> None:
    assert refused(repo, "nope.py") == (
        "no such file: 'nope.py'. Files: login.py, logs/login.log, pytest.ini, "
        "tests/test_login.py")


def test_read_file_truncates_without_reading_a_huge_file_whole(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "big.log").write_text("a" * 1_000_000)
    read: list[int] = []
    real_fdopen = os.fdopen

    class Counting:
        def __init__(self, f: Any) -> None:
            self.f = f

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def fileno(self) -> int:
            return int(self.f.fileno())

        def read(self, n: int = -1) -> bytes:
            data: bytes = self.f.read(n)
            read.append(len(data))
            return data

    monkeypatch.setattr(
        looplab.lessons.demo.os, "fdopen", lambda fd, mode: Counting(real_fdopen(fd, mode))
    )
    c = use(repo, "read_file", path="big.log")
    assert c.result == "a" * 20_000 + "\n[cut at 20,000 characters of 1,000,000 bytes]"
    assert sum(read) <= 80_001


def test_read_file_counts_characters_not_bytes(repo: Path) -> None:
    (repo / "wide.txt").write_text("é" * 30_000 + "测" * 30_000)
    (repo / "exact.txt").write_text("测" * 20_000)
    c = use(repo, "read_file", path="wide.txt")
    assert c.result.startswith("é" * 20_000 + "\n[cut at 20,000 characters of")
    assert use(repo, "read_file", path="exact.txt").result == "测" * 20_000


# -- run_tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["login; rm -rf /", "../secret", "-k", "", "os.system('x')",
                                    "login login", "login\n", "a" * 65])
def test_run_tests_refuses_module_names_that_are_not_plain_names(repo: Path, module: str) -> None:
    c = use(repo, "run_tests", module=module)
    assert (c.result, c.is_error) == (
        f"invalid module name {module!r}: use a plain Python name. Modules with tests: login",
        True)


def test_run_tests_refuses_modules_without_tests_and_symlinked_test_files(repo: Path) -> None:
    (repo.parent / "evil.py").write_text("def test_x(): open('owned', 'w')")
    (repo / "tests" / "test_evil.py").symlink_to(repo.parent / "evil.py")
    for module in ["nope", "evil"]:
        c = use(repo, "run_tests", module=module)
        assert c.is_error and c.result == (f"no tests for module {module!r}. Modules with "
                                           "tests: evil, login")
    assert not (repo / "owned").exists()


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_run_tests_writes_nothing_and_its_output_is_deterministic(repo: Path) -> None:
    before = files(repo)
    first = use(repo, "run_tests", module="login")
    second = use(repo, "run_tests", module="login")
    assert files(repo) == before  # no __pycache__, no .pytest_cache
    assert not first.is_error and first.result == second.result
    lines = str(first.result).splitlines()
    assert lines[0] == "..F" and lines[-1] == "1 failed, 2 passed"
    assert lines[-2].startswith("FAILED tests/test_login.py::test_login_lockout - ")
    assert str(repo) not in str(first.result)


HANG = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open("pids.txt", "w") as f:
    f.write(f"{os.getpid()} {child.pid}")
time.sleep(600)
"""


@pytest.mark.skipif(os.name != "posix", reason="process groups are a POSIX feature")
def test_run_subprocess_kills_the_whole_process_group_on_timeout(tmp_path: Path) -> None:
    (tmp_path / "hang.py").write_text(HANG)
    with pytest.raises(ToolError) as caught:
        run_subprocess([sys.executable, "hang.py"], cwd=tmp_path, timeout_s=2)
    assert str(caught.value) == ("timed out after 2 s; the process and its children were "
                                 "killed. Try a smaller or different call.")
    pids = [int(p) for p in (tmp_path / "pids.txt").read_text().split()]
    assert wait_gone(pids) == []


@pytest.mark.slow  # seconds
@pytest.mark.skipif(os.name != "posix", reason="process groups are a POSIX feature")
def test_run_tests_timeout_leaves_no_orphan_process(repo: Path) -> None:
    (repo / "tests" / "test_hang.py").write_text(
        "def test_hang():\n" + "".join(f"    {line}\n" for line in HANG.splitlines()))
    c = use(repo, "run_tests", timeout_s=4, module="hang")
    assert (c.result, c.is_error) == (
        "timed out after 4 s; the process and its children were killed. Try a smaller or "
        "different call.", True)
    pids = [int(p) for p in (repo / "pids.txt").read_text().split()]
    assert len(pids) == 2 and wait_gone(pids) == []


# -- read_file against links and swaps ------------------------------------------------------


def swapping(real: Path, outside: Path, stop: threading.Event) -> None:
    """Swap directory `real` for a symlink to `outside` and back, until `stop` is set."""
    parked = real.with_name(real.name + ".parked")
    while not stop.is_set():
        os.rename(real, parked)
        os.symlink(outside, real)
        time.sleep(0.0001)  # let the reads run in each state
        os.unlink(real)
        os.rename(parked, real)
        time.sleep(0.0001)


@pytest.mark.skipif(os.open not in os.supports_dir_fd, reason="needs openat (POSIX)")
@pytest.mark.parametrize("swapped, path", [("", "login.py"), ("logs", "logs/login.log")],
                         ids=["the repository", "a directory in it"])
def test_read_file_never_follows_a_directory_swapped_for_a_symlink_mid_read(
    repo: Path, swapped: str, path: str
) -> None:
    outside = repo.parent / "outside"
    (outside / "logs").mkdir(parents=True)
    for name in ("login.py", "login.log", "logs/login.log"):
        (outside / name).write_text(SECRET)
    read_file = demo_tools(repo)[1]
    texts: list[str] = []
    stop = threading.Event()
    real = (repo / path).read_text()
    swapper = threading.Thread(target=swapping, args=(repo / swapped, outside, stop))
    swapper.start()
    try:  # 3000 reads, and on a busy machine more, until one falls between the swaps
        deadline = time.monotonic() + 60
        while len(texts) < 3000 or (real not in texts and time.monotonic() < deadline):
            try:
                texts.append(read_file(path=path))
            except Exception as e:  # the loop shows any exception's text to the model
                texts.append(str(e))
    finally:
        stop.set()
        swapper.join()
    assert not [t for t in texts if SECRET in t]
    assert real in texts  # reads between the swaps still work


def test_read_file_refuses_hard_links_and_says_why(repo: Path) -> None:
    os.link(repo.parent / "secret.txt", repo / "notes.txt")
    assert refused(repo, "notes.txt") == (
        "refused: 'notes.txt' has 2 hard links, and one of them may be outside the "
        "repository; only files with one link are read")


def test_read_file_reads_a_packaged_repository_that_an_installer_hard_linked(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.link(repo / "login.py", repo.parent / "login.py")  # like a package cache
    monkeypatch.setattr(looplab.lessons.demo, "demo_root", lambda: repo)
    c = use(repo, "read_file", path="login.py")
    assert not c.is_error and c.result == (repo / "login.py").read_text()


def test_read_file_names_a_symlink_loop_without_any_absolute_path(repo: Path) -> None:
    (repo / "a").symlink_to("b")
    (repo / "b").symlink_to(repo / "a")  # one relative and one absolute link
    (repo / "self").symlink_to("self/x")
    for path in ["a", "self"]:
        text = refused(repo, path)
        assert text == f"refused: {path!r} is a symlink loop (more than 40 links to follow)"
        assert str(repo.parent) not in text


def test_read_file_follows_chains_of_links_that_stay_inside(repo: Path) -> None:
    (repo / "logs" / "latest").symlink_to("login.log")
    (repo / "current").symlink_to("logs")
    (repo / "deep").symlink_to(repo / "current" / "latest")
    for path in ["current/login.log", "current/latest", "deep", "./logs//latest"]:
        c = use(repo, "read_file", path=path)
        assert not c.is_error and c.result == (repo / "logs" / "login.log").read_text(), path


def test_read_file_refuses_links_that_step_out_and_back_in(repo: Path) -> None:
    (repo / "round").symlink_to("../repo/login.py")
    assert refused(repo, "round") == "refused: 'round' leads outside the repository (a symlink)"


def test_read_file_listing_does_not_enter_symlinked_directories(repo: Path) -> None:
    (repo / "up").symlink_to(repo.parent, target_is_directory=True)
    text = refused(repo, "nope.py")
    assert "secret.txt" not in text and text.endswith("tests/test_login.py")


DAEMON = """\
import os

def test_starts_a_daemon():
    child = os.fork()
    if child == 0:  # the classic double fork: a new session, then the parent leaves
        os.setsid()
        grandchild = os.fork()
        if grandchild == 0:
            os.execvp("sleep", ["sleep", "600"])
        with open("daemon.pid", "w") as f:
            f.write(str(grandchild))
        os._exit(0)
    os.waitpid(child, 0)
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finding marked processes reads /proc")
def test_run_tests_kills_a_daemon_its_tests_started_when_it_returns(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(looplab.running.processes, "new_mark", lambda: "soak0daemon0test")
    (repo / "tests" / "test_daemon.py").write_text(DAEMON)
    c = use(repo, "run_tests", module="daemon")
    assert (c.is_error, str(c.result).splitlines()[-1]) == (False, "1 passed")
    assert wait_gone([int((repo / "daemon.pid").read_text())]) == []
    assert marked_pids("soak0daemon0test") == []


SETSID_HOLDS_STDOUT = """\
import subprocess, sys, time
daemon = subprocess.Popen(["sleep", "600"], start_new_session=True)  # keeps our stdout
with open("daemon.pid", "w") as f:
    f.write(str(daemon.pid))
print("started", flush=True)
if sys.argv[1] == "hang":
    time.sleep(600)
"""


@pytest.mark.skipif(os.name != "posix", reason="sessions are a POSIX feature")
@pytest.mark.parametrize("then", ["exit", "hang"])
def test_run_subprocess_keeps_its_deadline_when_a_setsid_daemon_holds_stdout(
    tmp_path: Path, then: str
) -> None:
    (tmp_path / "daemon.py").write_text(SETSID_HOLDS_STDOUT)
    start = time.monotonic()
    try:
        done = run_subprocess([sys.executable, "daemon.py", then], cwd=tmp_path, timeout_s=1)
        outcome = done.stdout
    except ToolError as e:
        outcome = str(e)
    elapsed = time.monotonic() - start
    # a correctness bound (the deadline), not a speed goal: timeout + 1 s
    assert elapsed < 2, f"returned after {elapsed:.1f} s"
    assert outcome == {"exit": "started\n", "hang": (
        "timed out after 1 s; the process and its children were killed. Try a smaller or "
        "different call.")}[then]
    assert wait_gone([int((tmp_path / "daemon.pid").read_text())]) == []
