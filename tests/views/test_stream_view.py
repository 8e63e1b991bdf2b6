"""`StreamView` shows a streamed reply piece by piece: each `add` is on screen at once, the
cursor goes at `done`, text is escaped, and a static page gets the text as it stood."""

from __future__ import annotations

from looplab.i18n import speaking
from looplab.views.stream import StreamView


def test_each_piece_shows_at_once_and_done_drops_the_cursor() -> None:
    view = StreamView()
    assert "waiting for the first token" in view.status.value
    view.add("The login ")
    assert "The login ▌" in view.text.value
    view.add("test <fails>")
    assert "The login test &lt;fails&gt;▌" in view.text.value
    view.done("2 pieces")
    assert "▌" not in view.text.value and "2 pieces" in view.status.value
    assert view.pieces == ["The login ", "test <fails>"] and repr(view) == "StreamView(2 pieces)"
    bundle = view._repr_mimebundle_()
    assert "test &lt;fails&gt;" in bundle["text/html"]


def test_the_waiting_line_is_in_the_learners_language() -> None:
    with speaking("zh-CN"):
        assert "等待第一个 token" in StreamView().status.value
