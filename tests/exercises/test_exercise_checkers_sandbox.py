"""Lesson 22's checker: a right `code_result` passes, a stub is one line, and each plausible
wrong answer fails the check it gets wrong. It reads the tool_result the model got, through
the real SDK and the fake API."""

from __future__ import annotations

from typing import Any

from scorecards import failed, stub

from looplab.exercises import check_code_result


def code_result(run: Any, *, stderr_is_error: bool = False, stdout_only: bool = False,
                exit_code_only: bool = False) -> tuple[str, bool]:
    output = run.stdout if stdout_only else (run.stdout + run.stderr).strip()[-1500:]
    if stderr_is_error:
        return output, bool(run.stderr)
    if run.limit is not None and not exit_code_only:
        return f"stopped by its {run.limit} limit\n{output}".strip(), True
    if run.exit_code != 0:
        return f"exit code {run.exit_code}\n{output}".strip(), True
    return output or "(no output)", False


def test_the_reference_code_result_passes() -> None:
    card = check_code_result(code_result)
    assert card.passed, str(card)


def test_a_stub_code_result_is_one_line_not_written_yet() -> None:
    card = check_code_result(stub)
    assert len(card) == 5 and str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_stderr_taken_for_failure_fails() -> None:
    assert failed(check_code_result(lambda r: code_result(r, stderr_is_error=True))) == [
        "stopped by the time limit: is_error, naming the limit",
        "killed by its CPU limit (a signal): is_error, naming the limit",
        "a warning on stderr with exit code 0 is not an error"]


def test_stdout_alone_hides_the_exception() -> None:
    assert failed(check_code_result(lambda r: code_result(r, stdout_only=True))) == [
        "an exception: is_error, with the exception's line from stderr"]


def test_a_limit_not_named_fails() -> None:
    assert failed(check_code_result(lambda r: code_result(r, exit_code_only=True))) == [
        "stopped by the time limit: is_error, naming the limit",
        "killed by its CPU limit (a signal): is_error, naming the limit"]


def test_a_result_that_is_not_a_pair_is_told_so() -> None:
    card = check_code_result(lambda r: "fine")
    assert not card.passed and "return (text, is_error)" in str(card)
