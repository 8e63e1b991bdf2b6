"""The article's scenario: the demo agent really investigates the demo repository."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from looplab import AgentRun, Turn, check_history, fake_client
from looplab.lessons.demo import TASK, demo_agent, demo_root, demo_tools


def investigate(root: Path | None = None) -> tuple[Any, list[Turn]]:
    run = AgentRun(fake_client(demo_agent()), TASK, tools=demo_tools(root))
    while not run.finished:
        run.step()
        # the history is valid after every single turn
        assert [v for v in check_history(run.messages) if v.severity == "error"] == []
    return run.result, run.turns


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(demo_root(), root)
    return root


def final_text(result: Any) -> str:
    return str(result.messages[-1]["content"][0]["text"])


def test_the_task_is_the_articles() -> None:
    assert TASK == "Run the tests of the login module; if any fail, find out why."


def test_demo_agent_runs_tests_reads_log_and_source_in_parallel_and_explains() -> None:
    result, turns = investigate()
    assert str(result) == "done" and len(turns) == 3
    assert [[(c.name, c.input) for c in t.tool_calls] for t in turns] == [
        [("run_tests", {"module": "login"})],
        [("read_file", {"path": "logs/login.log"}), ("read_file", {"path": "login.py"})],
        [],
    ]
    assert not any(c.is_error for t in turns for c in t.tool_calls)
    tests_output = str(turns[0].tool_calls[0].result)
    assert tests_output.splitlines()[-1] == "1 failed, 2 passed"
    why = re.search(r"^FAILED tests/test_login.py::test_login_lockout - (.*)$", tests_output,
                    re.MULTILINE)
    assert why is not None
    assert final_text(result) == (
        f"test_login_lockout fails (1 failed, 2 passed): {why.group(1)}\n"
        "The lockout check, login.py line 27: "
        "`return self.failures.get(user, 0) > self.max_attempts`\n"
        "With MAX_ATTEMPTS = 3, 3 failed attempts give 3 > 3, which is False: the account is "
        "not locked yet, so attempt 4 still gets through. The check is off by one; it should "
        "be `>=`.\n"
        "The log shows the same in production: 2025-03-14 09:41:02 ERROR security: bob signed "
        "in after 4 failed attempts; lockout expected after 3"
    )


def test_the_explanation_comes_from_what_the_tools_returned(repo: Path) -> None:
    source = (repo / "login.py").read_text()
    (repo / "login.py").write_text(
        source.replace("MAX_ATTEMPTS = 3", "MAX_ATTEMPTS = 3\n# lockout policy: see SEC-12")
    )
    (repo / "logs" / "login.log").write_text(
        "2025-04-01 10:00:00 ERROR security: carol got in on attempt 4\n")
    result, _ = investigate(repo)
    text = final_text(result)
    assert "The lockout check, login.py line 28: " in text
    assert text.endswith("The log shows the same in production: 2025-04-01 10:00:00 ERROR "
                         "security: carol got in on attempt 4")


def test_when_the_tests_pass_the_agent_says_so_and_reads_nothing(repo: Path) -> None:
    source = (repo / "login.py").read_text()
    (repo / "login.py").write_text(source.replace("> self.max_attempts", ">= self.max_attempts"))
    result, turns = investigate(repo)
    assert str(result) == "done" and len(turns) == 2
    assert final_text(result) == "No login test fails. pytest says: 3 passed"


def test_a_missing_log_is_an_error_result_and_the_agent_still_answers(repo: Path) -> None:
    (repo / "logs" / "login.log").unlink()
    result, turns = investigate(repo)
    log_call = turns[1].tool_calls[0]
    assert log_call.is_error and str(log_call.result).startswith("no such file: 'logs/login.log'")
    assert str(result) == "done" and "The log shows" not in final_text(result)
    assert "it should be `>=`" in final_text(result)


def test_demo_tools_definitions() -> None:
    run_tests, read_file = demo_tools()
    assert run_tests.definition() == {
        "name": "run_tests",
        "description": "Run the unit tests of one module of the repository and return pytest's "
                       "output.\n\nCall it to check whether a module's tests pass.",
        "input_schema": {
            "additionalProperties": False, "type": "object", "required": ["module"],
            "properties": {"module": {
                "description": 'the module\'s name, e.g. "login" (runs tests/test_login.py)',
                "title": "Module", "type": "string"}},
        },
    }
    assert read_file.definition()["input_schema"]["required"] == ["path"]
    assert read_file.description == ("Read a text file of the repository and return its "
                                     "content.\n\nCall it to look at source code or logs. Long "
                                     "files are cut at 20,000 characters.")


def test_demo_tools_need_an_existing_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="root must be an existing directory"):
        demo_tools(tmp_path / "missing")


def test_the_packaged_repo_gives_one_failure_and_two_passes() -> None:
    tests = (demo_root() / "tests" / "test_login.py").read_text()
    assert len(re.findall(r"^def test_", tests, re.MULTILINE)) == 3
    assert (demo_root() / "logs" / "login.log").is_file()
