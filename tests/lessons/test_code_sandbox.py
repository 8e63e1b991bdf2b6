"""Lesson 22's tool: model-written Python runs in bubblewrap with no network, under limits,
writing only its scratch folder; every failure is an `is_error` result; without bubblewrap
it refuses unless told, as the grader does. Each test starts sandboxed Pythons: seconds."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import nbformat
import psutil
import pytest
from editions import NOTEBOOKS, chinese

from looplab import run_agent
from looplab.core.tools import ToolError
from looplab.fake import fake_client
from looplab.lessons import code_sandbox
from looplab.lessons.code_sandbox import (
    CodeLimits,
    PythonSandbox,
    SandboxMissing,
    python_tool,
    result_of,
    workspace,
)
from looplab.lessons.demo import demo_root
from looplab.lessons.fix_loop import fixer

pytestmark = pytest.mark.slow
LIMITS = CodeLimits(cpu_s=1, time_s=8)
needs_bwrap = pytest.mark.skipif(code_sandbox.why_no_sandbox(workspace()) is not None,
                                 reason="bubblewrap cannot start here")


@pytest.fixture
def sandbox() -> PythonSandbox:
    return PythonSandbox(workspace(), limits=LIMITS)


def error_of(sandbox: PythonSandbox, code: str) -> str:
    with pytest.raises(ToolError) as caught:
        result_of(sandbox.run(code))
    return str(caught.value)


@needs_bwrap
@pytest.mark.parametrize(("code", "said"), [
    ("open('/etc/shadow').read()", "No such file or directory: '/etc/shadow'"),
    ("open('/usr/lib/planted.py', 'w')", "Read-only file system"),
    ("import socket; socket.create_connection(('1.1.1.1', 443), 3)", "Network is unreachable"),
    (f"open({str(NOTEBOOKS / 'README.md')!r}).read()", "No such file or directory"),
])  # fmt: skip
def test_an_escape_attempt_is_an_error_result(sandbox: PythonSandbox, code: str,
                                              said: str) -> None:
    assert said in error_of(sandbox, code)


@needs_bwrap
def test_a_write_outside_the_scratch_folder_never_reaches_the_disk(
        sandbox: PythonSandbox) -> None:
    planted = Path.home() / f"planted-{os.getpid()}"
    code = f"import pathlib; pathlib.Path({str(planted)!r}).write_text('x'); print('wrote')"
    assert result_of(sandbox.run(code)) == "wrote"  # in the sandbox's throwaway root
    assert not planted.exists()


@needs_bwrap
def test_the_code_sees_no_secret_of_the_environment(sandbox: PythonSandbox,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-the-model")
    out = result_of(sandbox.run("import os; print(sorted(os.environ))"))
    assert "ANTHROPIC_API_KEY" not in out and "sk-ant" not in out


@needs_bwrap
@pytest.mark.parametrize(("code", "limit"), [
    ("while True: pass", "cpu"),
    ("import time; time.sleep(3600)", "time"),
    ("x = bytearray(4 << 30)", "memory"),
    ("open('big.bin', 'wb').write(bytes(64 << 20))", "file"),
])  # fmt: skip
def test_each_limit_stops_a_run_and_is_named(sandbox: PythonSandbox, code: str,
                                             limit: str) -> None:
    run = sandbox.run(code)
    assert run.limit == limit and f"stopped by its {limit} limit" in error_of(sandbox, code)


@needs_bwrap
def test_it_writes_only_its_scratch_folder_and_leaves_nothing_running(
        sandbox: PythonSandbox) -> None:
    marker = f"looplab-test-{os.getpid()}"
    code = ("import subprocess, pathlib\n"
            "pathlib.Path('made.txt').write_text('x')\n"
            f"pathlib.Path('/tmp/{marker}').write_text('x')\n"
            "subprocess.Popen(['sleep', '317'], start_new_session=True)\nprint('left')")
    assert result_of(sandbox.run(code)) == "left"
    assert (sandbox.folder / "made.txt").is_file() and not Path(f"/tmp/{marker}").exists()
    assert [p for p in psutil.process_iter(["cmdline"])
            if p.info["cmdline"] == ["sleep", "317"]] == []


@needs_bwrap
def test_runs_at_once_in_threads_keep_to_their_own_folders() -> None:
    boxes = [PythonSandbox(workspace(), limits=LIMITS) for _ in range(3)]
    outs: dict[int, str] = {}

    def one(n: int) -> None:
        outs[n] = result_of(boxes[n].run(
            f"import os; open('mine', 'w').write('{n}'); print(sorted(os.listdir('.')))"))

    threads = [threading.Thread(target=one, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [(b.folder / "mine").read_text() for b in boxes] == ["0", "1", "2"]
    assert len(set(outs.values())) == 1 and "mine" in outs[0]


def test_without_bubblewrap_it_refuses_unless_told_and_the_limits_still_hold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code_sandbox, "why_no_sandbox", lambda folder: "bwrap is missing")
    with pytest.raises(SandboxMissing) as refused:
        PythonSandbox(workspace())
    said = str(refused.value)
    assert "bwrap is missing" in said and "unsandboxed=True" in said
    assert "read and write every file you can" in said and "network" in said
    sandbox = PythonSandbox(workspace(), limits=LIMITS, unsandboxed=True)
    assert not sandbox.sandboxed and result_of(sandbox.run("print(6 * 7)")) == "42"
    assert sandbox.run("x = bytearray(4 << 30)").limit == "memory"


@needs_bwrap
def test_the_fix_loop_makes_the_tests_pass_in_the_scratch_copy_only() -> None:
    work = workspace()
    before = (demo_root() / "login.py").read_text()
    result = run_agent(fake_client(fixer()), "Make the login tests pass.",
                       tools=[python_tool(PythonSandbox(work))])
    calls = [c for t in result.turns for c in t.tool_calls]
    assert result.done and [c.is_error for c in calls] == [True, True, False]
    assert calls[-1].result.strip().splitlines()[-1].startswith("3 passed")
    assert ">= self.max_attempts" in (work / "login.py").read_text()
    assert (demo_root() / "login.py").read_text() == before


@pytest.mark.parametrize("lesson", [NOTEBOOKS / "22_code_in_a_sandbox.ipynb", chinese("22")],
                         ids=["en", "zh-CN"])
def test_the_lesson_shows_each_attempt_failing_and_the_fix_loop_as_it_runs(lesson: Path) -> None:
    text = "\n".join(o.get("text", "") for c in nbformat.read(lesson, 4).cells
                     if c.cell_type == "code" for o in c.outputs)
    flags = [line.split("is_error=")[1].split()[0] for line in text.splitlines()
             if "is_error=" in line]
    # eight attempts (only the key read succeeds: there is no key), then three test runs
    assert flags == ["True", "False", *["True"] * 6, "True", "True", "False"]
    for limit in ("cpu", "time", "memory", "file"):
        assert limit in text
    assert "1 failed, 2 passed" in text and "3 passed" in text


def test_in_the_browser_it_refuses_even_when_told_and_says_where_it_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code_sandbox.sys, "platform", "emscripten")
    for unsandboxed in (False, True):
        with pytest.raises(SandboxMissing, match="Linux with bubblewrap"):
            PythonSandbox(workspace(), unsandboxed=unsandboxed)


def test_a_workspace_is_removed_when_python_exits() -> None:
    import subprocess
    import sys

    code = ("from looplab.lessons.code_sandbox import workspace\n"
            "w = workspace(); print(w); print((w / 'login.py').is_file())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    folder, existed = done.stdout.split()
    assert existed == "True" and not Path(folder).exists() and not Path(folder).parent.exists()
