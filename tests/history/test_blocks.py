"""Reading a history's messages and blocks the same way everywhere."""

from __future__ import annotations

from anthropic.types import TextBlock, ToolUseBlock
from hypothesis import given
from hypothesis import strategies as st

from looplab.history.blocks import content_blocks, plain, text_of


def test_sdk_blocks_become_plain_dicts() -> None:
    block = ToolUseBlock(type="tool_use", id="toolu_1", name="read_file", input={"path": "a"})
    assert plain(block) == {"type": "tool_use", "id": "toolu_1", "name": "read_file",
                            "input": {"path": "a"}}
    assert plain("text") == "text" and plain(3) == 3


def test_content_of_every_shape_becomes_a_list_of_blocks() -> None:
    assert content_blocks({"role": "user", "content": "hi"}) == [{"type": "text", "text": "hi"}]
    assert content_blocks({"role": "user", "content": ""}) == []
    assert content_blocks({"role": "user"}) == []
    sdk = {"role": "assistant", "content": [TextBlock(type="text", text="ok")]}
    assert content_blocks(sdk) == [{"type": "text", "text": "ok"}]


def test_text_of_joins_text_and_names_other_blocks() -> None:
    content = [{"type": "text", "text": "a"}, {"type": "image", "source": {}},
               TextBlock(type="text", text="b")]
    assert text_of(content) == "a\n[image]\nb"
    assert text_of(None) == "" and text_of("plain") == "plain"


@given(st.lists(st.text(), max_size=5))
def test_text_of_text_blocks_is_their_texts_joined(texts: list[str]) -> None:
    assert text_of([{"type": "text", "text": t} for t in texts]) == "\n".join(texts)
