"""The fake refuses what the API refuses about a request as a whole: a retired model, a
prefill on a model without it, too many messages, a prompt too long; and it
counts a scripted web search in `usage.server_tool_use`."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from looplab import ScriptedModel, fake_client, say
from looplab.fake import pause
from looplab.fake.errors import FAKE_WORDING

HI = [{"role": "user", "content": "hi"}]
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}


def send(model: str = "claude-opus-4-1", messages: Any = HI, **extra: Any) -> Any:
    client = fake_client(ScriptedModel([say("fine")]))
    return client.messages.create(model=model, max_tokens=16, messages=messages, **extra)


@pytest.mark.parametrize("model", ["claude-3-opus-20240229", "claude-3-5-sonnet-20241022",
                                   "claude-2.1", "claude-instant-1.2",
                                   "claude-sonnet-4-20250514", "claude-3-7-sonnet-latest"])
def test_a_retired_model_is_not_found(model: str) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        send(model)
    assert caught.value.status_code == 404
    assert caught.value.body["error"] == {"type": "not_found_error",  # type: ignore[index]
                                          "message": f"model: {model}"}


@pytest.mark.parametrize("model", ["claude-opus-4-1", "claude-3-5-haiku-20241022",
                                   "claude-sonnet-4-5", "claude-opus-5-5"])
def test_a_model_still_served_is_answered(model: str) -> None:
    assert send(model).content[0].text == "fine"


PREFILL = [*HI, {"role": "assistant", "content": "The answer is"}]


@pytest.mark.parametrize("model", ["claude-opus-4-6", "claude-sonnet-4-6",
                                   "claude-opus-4-8-20260301", "claude-fable-5"])
def test_a_prefill_on_a_model_without_it_is_refused(model: str) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(model, PREFILL)
    assert caught.value.body["error"]["message"] == (  # type: ignore[index]
        "Prefilling assistant messages is not supported for this model.")


def test_a_prefill_on_other_models_and_a_resumed_turn_are_accepted() -> None:
    assert send("claude-opus-4-1", PREFILL).content[0].text == "fine"
    client = fake_client(ScriptedModel([pause(), say("found it")]))
    first = client.messages.create(model="claude-opus-4-6", max_tokens=16, messages=HI,
                                   tools=[WEB_SEARCH])  # type: ignore[list-item]
    resumed = [*HI, {"role": "assistant", "content": first.to_dict()["content"]}]
    again = client.messages.create(model="claude-opus-4-6", max_tokens=16, messages=resumed,
                                   tools=[WEB_SEARCH])  # type: ignore[list-item]
    assert again.content[0].text == "found it"  # type: ignore[union-attr]


def alternating(count: int) -> list[dict[str, str]]:
    return [{"role": ("user", "assistant")[i % 2], "content": "x"} for i in range(count)]


def test_more_than_100000_messages_are_refused_at_the_bound() -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(messages=alternating(100_000))  # allowed in number, too long in tokens
    assert caught.value.body["error"]["message"].startswith(  # type: ignore[index]
        "prompt is too long: ")
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(messages=alternating(100_001))
    message = caught.value.body["error"]["message"]  # type: ignore[index]
    assert message.startswith("messages: at most 100,000 messages are allowed in one "
                              "request; this one has 100,001.")
    assert message.endswith(FAKE_WORDING)


def test_a_prompt_too_long_is_refused_with_the_apis_text() -> None:
    fits = [{"role": "user", "content": "word " * 150_000}]  # 187,500 tokens: fits
    assert send(messages=fits).content
    long = [{"role": "user", "content": "word " * 170_000}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(messages=long)
    assert caught.value.body["error"]["message"] == (  # type: ignore[index]
        "prompt is too long: 212507 tokens > 200000 maximum")


@pytest.mark.parametrize("stream", [False, True])
def test_a_scripted_web_search_is_counted_in_usage(stream: bool) -> None:
    client = fake_client(ScriptedModel([pause()]))
    body: dict[str, Any] = {"model": "claude-opus-4-1", "max_tokens": 16, "messages": HI,
                            "tools": [WEB_SEARCH]}
    if stream:
        with client.messages.stream(**body) as events:
            usage = events.get_final_message().usage
    else:
        usage = client.messages.create(**body).usage
    assert usage.server_tool_use is not None
    assert (usage.server_tool_use.web_search_requests,
            usage.server_tool_use.web_fetch_requests) == (1, 0)
