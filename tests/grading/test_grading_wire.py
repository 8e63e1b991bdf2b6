"""The grader's side of the wire, without a kernel: what comes back is plain data, answers
imported from looplab are recognised from the source, names and syntax errors are shown,
and the sandbox says when it cannot start."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import anthropic
import pytest

from looplab.grading import batch
from looplab.grading.codec import Handles, KernelRef, back, remote_exception
from looplab.grading.jail import jail_for
from looplab.grading.jailed import JailedKernels
from looplab.grading.shipped import imported_answer
from looplab.grading.submissions import _owner, printable, syntax_error

MESSAGE = {
    "id": "msg_01", "type": "message", "role": "assistant", "model": "m",
    "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
    "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
}  # fmt: skip


def test_what_comes_back_is_plain_data_or_the_sdks_own_objects() -> None:
    assert back({"$tuple": ["done", [1, {"a": True}]]}) == ("done", [1, {"a": True}])
    message = back({"$sdk": "message", "v": MESSAGE})
    assert isinstance(message, anthropic.types.Message) and message.stop_reason == "end_turn"
    assert back({"$sdk": "block", "v": {"type": "nonsense"}}) == {"type": "nonsense"}
    ref = back({"$kref": 3, "type": "Yes"})
    assert isinstance(ref, KernelRef) and repr(ref) == "<Yes in the kernel>"
    with pytest.raises(TypeError, match="cannot be used here"):
        ref()


def test_a_kernels_exception_is_named_like_it_and_is_only_an_exception() -> None:
    e = remote_exception("NotImplementedError", "not written yet")
    assert type(e).__name__ == "NotImplementedError" and not isinstance(e, NotImplementedError)
    assert type(remote_exception("not a name!", "x")).__name__ == "Exception"


def test_the_graders_objects_go_to_the_kernel_as_stand_ins() -> None:
    handles = Handles()
    sent = handles.out([("a", 1), {"k": len}])
    assert sent == [{"$tuple": ["a", 1]}, {"k": {"$callable": 1, "name": "len"}}]
    assert handles.objects[1] is len


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("from looplab.history.dangling import close_dangling as fix", "close_dangling"),
        ("import looplab as ll\nfix = ll.close_dangling", "close_dangling"),
        ("from looplab import close_dangling\n\ndef fix(m):\n    return close_dangling(m)",
         "close_dangling"),
        ("import copy\n\ndef fix(m):\n    return copy.deepcopy(m)", None),
        ("from looplab import close_dangling\n\ndef fix(m):\n    return m", None),
    ],
)  # fmt: skip
def test_an_answer_imported_from_looplab_is_recognised(source: str, why: str | None) -> None:
    found = imported_answer([source], "check_close_dangling", "fix")
    assert (found is None) if why is None else (why in str(found))


def test_lesson_22s_answer_is_looplabs_result_of_when_imported() -> None:
    source = ("from looplab.lessons.code_sandbox import result_of\n\n"
              "def code_result(run):\n    return result_of(run), False")  # fmt: skip
    found = imported_answer([source], "check_code_result", "code_result")
    assert "looplab's own result_of" in str(found)


def test_looplabs_helpers_may_be_used_where_they_are_not_the_answer() -> None:
    source = (
        "import looplab\n\ndef fixed_loop(client, messages, **kw):\n"
        "    messages = looplab.close_dangling(messages)\n    return 'done', messages"
    )
    assert imported_answer([source], "check_museum_loop", "fixed_loop") is None


def test_names_and_syntax_errors_are_shown_plainly() -> None:
    assert printable(os.fsdecode("张三".encode("gbk"))) == "\\xd5\\xc5\\xc8\\xfd"
    assert printable("张三") == "张三"
    assert [_owner(s) for s in ("jon_05_stop_gates", "ada-04_the_loop", "05_stop_gates")] == [
        "jon", "ada", "05_stop_gates"]  # fmt: skip
    cells = [(1, "%time x = 1"), (2, "%%bash\nnot python"), (4, "def f(:\n    pass")]
    assert syntax_error(cells) == "cell 4 has a SyntaxError: invalid syntax (line 1)"
    assert syntax_error(cells[:2]) is None


def test_without_bubblewrap_the_grader_says_so_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert jail_for(tmp_path, []).why_not() == "bubblewrap (bwrap) is not installed"
    monkeypatch.setattr(batch, "_said", [])
    for _ in range(2):
        server = batch.start_server([tmp_path], tmp_path)
        assert server.jail is None
        server.close()
    assert capsys.readouterr().err.count("without a sandbox, a student's code can read") == 1


def test_a_socket_in_a_folder_with_a_long_path_is_reached_all_the_same(tmp_path: Path) -> None:
    import socket

    from looplab.grading.wire_lines import Line, at_path, connect

    folder = tmp_path / ("deep" * 30)
    folder.mkdir()
    path = str(folder / "wire.sock")
    assert len(path) > 108  # over what a socket address can hold
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    at_path(server, path, "bind")
    server.listen()
    client = connect(path)
    accepted = Line(server.accept()[0])
    client.send({"op": "job"})
    assert accepted.receive() == {"op": "job"}
    for line in (client, accepted):
        line.close()
    server.close()


def test_the_sandbox_keeps_nothing_that_holds_a_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What a kernel may read is bound in one by one: never a folder that holds the
    submissions, the lessons, the scratch folders, the home or the temp folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    lessons = Path(__file__).resolve().parent / "grading_lessons"
    monkeypatch.syspath_prepend(str(lessons.parent))  # tests/grading holds lessons: left out
    jail = jail_for(None, [lessons])
    assert jail.scratch == (tmp_path / f"looplab-{os.getuid()}").resolve()
    for kept in jail.keep:
        for secret in (lessons, jail.scratch, Path.home(), tmp_path):
            assert not secret.is_relative_to(kept), (kept, secret)
    command = jail.command(["true"], jail.scratch / "own")
    writable = [command[i + 1] for i, arg in enumerate(command) if arg == "--bind"]
    assert writable == [str(jail.scratch / "own")]


def test_each_grading_with_a_sandbox_starts_each_kernel_in_its_own(tmp_path: Path) -> None:
    if jail_for(None, []).why_not() is not None:
        pytest.skip("no sandbox here")
    first = batch.start_server([tmp_path / "class_a"])
    assert isinstance(first, JailedKernels) and first.jail is not None
    (tmp_path / "scratch").mkdir()
    elsewhere = batch.start_server([], tmp_path / "scratch")  # another writable place
    assert elsewhere.jail is not None
    assert elsewhere.jail.scratch == (tmp_path / "scratch").resolve()
