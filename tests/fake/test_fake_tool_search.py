"""Tool search on the fake, through the real SDK: a `defer_loading` tool counts no prompt
tokens and cannot be called until a `tool_reference` loads it."""

from __future__ import annotations

from typing import Any

import pytest
from beta_reply import beta_reply

from looplab import MODEL, ScriptedModel, call, fake_client, say
from looplab.fake import ScriptError, search_tools
from looplab.fake.usage import estimate_tokens

SEARCH = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
WEATHER = {"name": "get_weather", "description": "The weather in a city, today. " * 20,
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
DEFERRED = {**WEATHER, "defer_loading": True}
ASK = [{"role": "user", "content": "Weather in Paris?"}]


def create(model: ScriptedModel, messages: Any, tools: list[Any], stream: bool = False) -> Any:
    client = fake_client(model)
    body = {"model": MODEL, "max_tokens": 200, "messages": messages, "tools": tools}
    return beta_reply(client, body, stream)


@pytest.mark.parametrize("stream", [False, True])
def test_a_deferred_tool_counts_nothing_until_a_tool_reference_loads_it(stream: bool) -> None:
    model = ScriptedModel([[*search_tools("get_weather", query="weather"),
                            call("get_weather", city="Paris")], say("Sunny.")])
    first = create(model, ASK, [SEARCH, DEFERRED], stream)
    without = estimate_tokens({"messages": ASK, "tools": [SEARCH]})
    assert first.usage.input_tokens == without
    assert without < estimate_tokens({"messages": ASK, "tools": [SEARCH, WEATHER]}) - 100
    search, found, weather = first.content
    assert (search.type, found.type, weather.name) == (
        "server_tool_use", "tool_search_tool_result", "get_weather")
    assert found.tool_use_id == search.id
    assert [ref.tool_name for ref in found.content.tool_references] == ["get_weather"]
    later = [*ASK, {"role": "assistant", "content": first.to_dict()["content"]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": weather.id,
                                           "content": "Sunny, 21 °C"}]}]
    second = create(model, later, [SEARCH, DEFERRED], stream)
    unloaded = estimate_tokens({"messages": later, "tools": [SEARCH]})
    assert second.usage.input_tokens > unloaded + 100, "loaded: counted from now on"
    assert second.usage.input_tokens == estimate_tokens(
        {"messages": later, "tools": [SEARCH, DEFERRED]})


def test_a_deferred_tool_not_loaded_cannot_be_called() -> None:
    with pytest.raises(ScriptError, match="defer_loading: true and no tool_reference"):
        create(ScriptedModel([call("get_weather", city="Paris")]), ASK, [SEARCH, DEFERRED])
    # a search that loads another tool does not load this one
    other = ScriptedModel([[*search_tools("get_time"), call("get_weather", city="Paris")]])
    with pytest.raises(ScriptError, match="get_weather"):
        create(other, ASK, [SEARCH, DEFERRED, {**DEFERRED, "name": "get_time"}])


def test_a_client_side_search_loads_through_a_tool_result() -> None:
    finder = {"name": "find_tool", "input_schema": {"type": "object"}}
    model = ScriptedModel([call("get_weather", city="Paris")])
    history = [*ASK,
               {"role": "assistant", "content": [
                   {"type": "tool_use", "id": "toolu_find", "name": "find_tool", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_find",
                                             "content": [{"type": "tool_reference",
                                                          "tool_name": "get_weather"}]}]}]
    reply = create(model, history, [finder, DEFERRED])
    assert reply.content[0].name == "get_weather"
