"""Three block shapes the API refuses with a 400, refused by the fake too, through the real
SDK: a text block with a field the API does not define, a blank system text block, an image
whose base64 is not base64."""

from __future__ import annotations

import anthropic
import pytest

import looplab
from looplab import ScriptedModel, fake_client, say

PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJ"
       "RU5ErkJggg==")


def send(**request: object) -> BaseException | None:
    model = ScriptedModel([say("ok")])
    body = {"model": looplab.MODEL, "max_tokens": 20,
            "messages": [{"role": "user", "content": "hi"}], **request}
    try:
        fake_client(model, max_retries=0).messages.create(**body)  # type: ignore[call-overload]
    except anthropic.BadRequestError as e:
        return e
    return None


def image(data: str) -> list[dict[str, object]]:
    return [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
        {"type": "text", "text": "What is this?"}]}]


@pytest.mark.parametrize(("request_", "said"), [
    ({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "colour": 1}]}]},
     "messages.0.content.0.text.colour: Extra inputs are not permitted"),
    ({"system": [{"type": "text", "text": ""}]}, "system: text content blocks must be non-empty"),
    ({"system": [{"type": "text", "text": "  "}]},
     "system: text content blocks must contain non-whitespace text"),
    ({"messages": image("not base64 at all!")},
     "messages.0.content.0.image.source.base64.data: the image data is not valid base64"),
    ({"messages": image("")}, "the image data is not valid base64"),
])
def test_the_fake_refuses_it_with_a_400(request_: dict[str, object], said: str) -> None:
    error = send(**request_)
    assert error is not None and error.status_code == 400 and said in str(error), error


def test_the_good_shapes_pass() -> None:
    assert send(messages=image(PNG)) is None
    assert send(system=[{"type": "text", "text": "Be brief.", "cache_control":
                         {"type": "ephemeral"}}]) is None
    assert send(messages=[{"role": "user", "content": [
        {"type": "text", "text": "hi", "citations": None}]}]) is None
