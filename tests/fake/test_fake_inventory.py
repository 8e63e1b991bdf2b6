"""Every request parameter, `output_config` field, tool field and beta the installed SDK can
send is in the fake's inventory, simulated or refused. A refused one gets the 400 through
the real SDK; a simulated one has a behaviour test, named here and checked to exist."""

from __future__ import annotations

import base64
import inspect
import json
import typing
from pathlib import Path
from typing import Any

import anthropic
import pytest
from anthropic.resources.beta.messages import Messages as BetaMessages
from anthropic.resources.messages import Messages
from anthropic.types import AnthropicBetaParam, OutputConfigParam, ToolParam, ToolUnionParam
from anthropic.types.beta import (
    BetaClearThinking20251015EditParam,
    BetaClearToolUses20250919EditParam,
    BetaCompact20260112EditParam,
    BetaCompactionConfigParam,
    BetaOutputConfigParam,
    BetaToolParam,
    BetaToolUnionParam,
)
from anthropic.types.beta.beta_context_management_config_param import Edit

from looplab import MODEL, ScriptedModel, call, fake_client, pause, refuse, say
from looplab.fake import ScriptError
from looplab.fake.inventory import (
    BETAS,
    CLEAR_THINKING_FIELDS,
    CLEAR_TOOL_USES_FIELDS,
    COMPACT_FIELDS,
    COMPACTION_FIELDS,
    CONTEXT_EDITS,
    EXTRA_BETAS,
    OUTPUT_CONFIG,
    PARAMETERS,
    TOOL_FIELDS,
    TOOL_TYPES,
    Entry,
)
from looplab.fake.usage import estimate_tokens

HI = [{"role": "user", "content": "hi"}]
_TRANSPORT_ONLY = {"self", "extra_headers", "extra_query", "extra_body", "timeout"}
TABLES: dict[str, dict[str, Entry]] = {
    "parameters": PARAMETERS, "output_config": OUTPUT_CONFIG, "tool fields": TOOL_FIELDS,
    "context edits": CONTEXT_EDITS, "clear_tool_uses fields": CLEAR_TOOL_USES_FIELDS,
    "clear_thinking fields": CLEAR_THINKING_FIELDS,
    "compact fields": COMPACT_FIELDS,
    "compaction fields": COMPACTION_FIELDS, "tool types": TOOL_TYPES, "betas": BETAS,
}


def refusal(what: str) -> str:
    return (f"looplab's fake does not simulate {what}; run live (LOOPLAB_LIVE=1) or "
            "script its effect")


def sdk_names() -> dict[str, set[str]]:
    parameters = set()
    for create in (Messages.create, BetaMessages.create):
        parameters |= set(inspect.signature(create).parameters) - _TRANSPORT_ONLY
    betas = typing.get_args(AnthropicBetaParam)
    literal = next(arg for arg in betas if typing.get_origin(arg) is typing.Literal)
    return {
        "parameters": parameters,
        "output_config": set(OutputConfigParam.__annotations__)
        | set(BetaOutputConfigParam.__annotations__),
        "tool fields": set(ToolParam.__annotations__) | set(BetaToolParam.__annotations__),
        "context edits": {typing.get_args(typing.get_type_hints(edit)["type"])[0]
                          for edit in typing.get_args(Edit)},
        "clear_tool_uses fields": set(BetaClearToolUses20250919EditParam.__annotations__),
        "clear_thinking fields": set(BetaClearThinking20251015EditParam.__annotations__),
        "compact fields": set(BetaCompact20260112EditParam.__annotations__),
        "compaction fields": set(BetaCompactionConfigParam.__annotations__),
        "tool types": tool_types(),
        "betas": set(typing.get_args(literal)),
    }


def tool_types() -> set[str]:
    """Every `type` literal of the SDK's tool unions (GA and beta)."""
    kinds: set[str] = set()
    for union in (ToolUnionParam, BetaToolUnionParam):
        for member in typing.get_args(union):
            hint = typing.get_type_hints(member)["type"]
            for arg in (hint, *typing.get_args(hint)):
                if typing.get_origin(arg) is typing.Literal:
                    kinds |= set(typing.get_args(arg))
    return kinds


@pytest.mark.parametrize("table", list(TABLES))
def test_everything_the_sdk_can_send_is_classified(table: str) -> None:
    unclassified = sdk_names()[table] - set(TABLES[table])
    assert not unclassified, (
        f"the installed SDK can send {sorted(unclassified)} ({table}), which the fake "
        "neither simulates nor refuses: classify each in looplab/fake/inventory.py")
    stale = set(TABLES[table]) - sdk_names()[table] - EXTRA_BETAS
    assert not stale, f"inventory.py lists {sorted(stale)} ({table}), which the SDK no longer has"


# -- refused: the 400, through the real SDK, with no script step used --------------------------

SAMPLES: dict[str, Any] = {
    "billing_policy": {"type": "standard"},
    "container": "container_011",
    "diagnostics": {"enabled": True},
    "inference_geo": "us",
    "mcp_servers": [{"type": "url", "url": "https://mcp.example.com", "name": "docs"}],
    "service_tier": "auto",
    "speed": "fast",
    "thread": {"type": "create"},
    "user_profile_id": "uprof_011",
    "workspace_id": "wrkspc_011",
}
REFUSED = sorted(name for name, entry in PARAMETERS.items() if entry.kind == "refused")


def test_every_refused_parameter_has_a_sample() -> None:
    assert set(SAMPLES) == set(REFUSED)


def rejected(send: Any, model: ScriptedModel) -> anthropic.BadRequestError:
    with pytest.raises(anthropic.BadRequestError) as caught:
        send()
    assert caught.value.status_code == 400
    assert model.position == 0, "a refused request must not use a script step"
    return caught.value


@pytest.mark.parametrize("name", REFUSED)
@pytest.mark.parametrize("stream", [False, True])
def test_a_refused_parameter_is_a_400(name: str, stream: bool) -> None:
    model = ScriptedModel([say("fine")])
    client = fake_client(model)
    body = {"model": MODEL, "max_tokens": 16, "messages": HI, name: SAMPLES[name]}
    if stream:
        error = rejected(lambda: client.beta.messages.stream(**body).__enter__(), model)
    else:
        error = rejected(lambda: client.beta.messages.create(**body), model)
    assert error.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    assert error.body["error"]["message"] == refusal(name)  # type: ignore[index]
    if name in inspect.signature(Messages.create).parameters:
        again = rejected(lambda: client.messages.create(**body), model)
        assert again.body["error"]["message"] == refusal(name)  # type: ignore[index]


def test_a_refused_thread_keeps_the_code_the_runner_falls_back_on() -> None:
    model = ScriptedModel([say("fine")])
    client = fake_client(model)
    error = rejected(lambda: client.beta.messages.create(
        model=MODEL, max_tokens=16, messages=HI, thread={"type": "create"}), model)
    assert error.body["error"]["details"]["error_code"] == (  # type: ignore[index]
        "thread_unsupported_request")


def test_a_null_parameter_counts_as_not_sent() -> None:
    client = fake_client(ScriptedModel([say("fine")]))
    reply = client.beta.messages.create(model=MODEL, max_tokens=16, messages=HI,
                                        extra_body={"service_tier": None, "fallbacks": None})
    assert reply.content[0].type == "text"


TOOL_SAMPLES: dict[str, Any] = {
    "allowed_callers": ["code_execution_20250825"],
}


def test_every_refused_tool_field_has_a_sample() -> None:
    refused = {name for name, entry in TOOL_FIELDS.items() if entry.kind == "refused"}
    assert set(TOOL_SAMPLES) == refused


@pytest.mark.parametrize("field", sorted(TOOL_SAMPLES))
def test_a_refused_tool_field_is_a_400(field: str) -> None:
    model = ScriptedModel([say("fine")])
    client = fake_client(model)
    tools = [{"name": "lookup", "input_schema": {"type": "object"}},
             {"name": "search", "input_schema": {"type": "object"}, field: TOOL_SAMPLES[field]}]
    error = rejected(lambda: client.beta.messages.create(
        model=MODEL, max_tokens=16, messages=HI, tools=tools), model)  # type: ignore[arg-type]
    assert error.body["error"]["message"] == refusal(f"tools.1.{field}")  # type: ignore[index]


REFUSED_BETAS = sorted(name for name, entry in BETAS.items() if entry.kind == "refused")


@pytest.mark.parametrize("beta", [*REFUSED_BETAS, "some-future-beta-2027-01-01"])
def test_a_refused_beta_is_a_400(beta: str) -> None:
    model = ScriptedModel([say("fine")])
    client = fake_client(model)
    error = rejected(lambda: client.beta.messages.create(
        model=MODEL, max_tokens=16, messages=HI, betas=["prompt-caching-2024-07-31", beta]),
        model)
    assert error.body["error"]["message"] == refusal(f"the beta {beta}")  # type: ignore[index]
    with pytest.raises(anthropic.BadRequestError):
        client.beta.messages.count_tokens(model=MODEL, messages=HI, betas=[beta])


# -- simulated: each has a behaviour test ------------------------------------------------------

BEHAVIOUR: dict[tuple[str, str], str] = {
    ("parameters", "model"): "refusals::test_a_retired_model_is_not_found",
    ("parameters", "max_tokens"): "shape::test_a_reply_one_token_over_max_tokens_is_cut",
    ("parameters", "messages"): "checks::test_history_mistakes_get_the_api_text",
    ("parameters", "system"): "inventory::test_system_and_tool_fields_are_counted",
    ("parameters", "tools"): "checks::test_malformed_tools",
    ("parameters", "tool_choice"): "requests::test_a_forced_tool_not_in_tools_is_refused",
    ("parameters", "stop_sequences"): "shape::test_a_stop_sequence_cuts_the_text_before_it",
    ("parameters", "stream"): "sdk::test_stream_assembles_the_same_message_as_create",
    ("parameters", "metadata"): "requests::test_metadata_with_a_user_id_is_accepted",
    ("parameters", "thinking"): "checks::test_changed_thinking_is_rejected",
    ("parameters", "cache_control"): "usage::test_top_level_cache_control_marks_the_last_block",
    ("parameters", "output_config"): "inventory::test_effort_changes_nothing_the_fake_reports",
    ("parameters", "betas"): "inventory::test_a_served_beta_serves_its_feature",
    ("parameters", "context_management"):
        "context_editing::test_old_tool_results_are_cleared_past_the_trigger",
    ("context edits", "clear_tool_uses_20250919"):
        "context_editing::test_old_tool_results_are_cleared_past_the_trigger",
    ("clear_tool_uses fields", "type"):
        "context_editing::test_old_tool_results_are_cleared_past_the_trigger",
    ("clear_tool_uses fields", "trigger"): "context_editing::test_a_malformed_trigger_is_a_400",
    ("clear_tool_uses fields", "keep"):
        "context_editing::test_defaults_keep_three_past_100000_input_tokens",
    ("clear_tool_uses fields", "clear_at_least"):
        "context_editing::test_clear_at_least_stops_a_small_edit",
    ("clear_tool_uses fields", "exclude_tools"):
        "context_editing::test_a_tool_uses_trigger_and_excluded_tools",
    ("context edits", "clear_thinking_20251015"):
        "clear_thinking::test_older_turns_lose_their_thinking_and_usage_drops_by_it",
    ("clear_thinking fields", "type"):
        "clear_thinking::test_older_turns_lose_their_thinking_and_usage_drops_by_it",
    ("clear_thinking fields", "keep"): "clear_thinking::test_keep_counts_turns_and_defaults_to_one",
    ("context edits", "compact_20260112"):
        "compaction::test_past_the_trigger_the_reply_starts_with_a_compaction_block",
    ("compact fields", "type"):
        "compaction::test_past_the_trigger_the_reply_starts_with_a_compaction_block",
    ("compact fields", "trigger"): "compaction::test_below_the_trigger_nothing_is_compacted",
    ("compact fields", "pause_after_compaction"):
        "compaction::test_a_paused_compaction_returns_the_block_alone",
    ("output_config", "task_budget"):
        "task_budget::test_the_model_sees_the_countdown_and_paces_itself",
    ("parameters", "fallbacks"):
        "fallbacks::test_a_refusal_is_answered_by_the_fallback_model",
    ("parameters", "fallback_credit_token"):
        "fallbacks::test_a_fallback_credit_token_is_redeemed_on_another_model",
    ("parameters", "compaction"):
        "compaction::test_on_demand_compaction_returns_the_block_alone",
    ("compaction fields", "type"):
        "compaction::test_on_demand_compaction_returns_the_block_alone",
    ("output_config", "format"): "choice::test_output_config_with_a_schema_dict_is_checked_too",
    ("output_config", "effort"): "inventory::test_an_effort_the_sdk_does_not_name_is_a_400",
    ("tool fields", "name"): "checks::test_malformed_tools",
    ("tool fields", "input_schema"): "checks::test_malformed_tools",
    ("tool fields", "description"): "inventory::test_system_and_tool_fields_are_counted",
    ("tool fields", "input_examples"): "inventory::test_system_and_tool_fields_are_counted",
    ("tool fields", "type"): "refusals::test_a_scripted_web_search_is_counted_in_usage",
    ("tool fields", "cache_control"): "requests::test_cache_control_on_tools_and_system_counts_too",
    ("tool fields", "defer_loading"):
        "tool_search::test_a_deferred_tool_counts_nothing_until_a_tool_reference_loads_it",
    ("tool fields", "eager_input_streaming"):
        "tool_streaming::test_an_eager_tool_cut_by_max_tokens_streams_invalid_json",
    ("tool types", "custom"): "checks::test_malformed_tools",
    ("tool fields", "strict"): "inventory::test_a_strict_tool_gets_input_that_fits",
}


REFUSAL_TESTS: dict[tuple[str, str], str] = {
    ("clear_tool_uses fields", "clear_tool_inputs"):
        "context_editing::test_edits_the_fake_does_not_play_are_refused",
    ("compact fields", "instructions"):
        "context_editing::test_edits_the_fake_does_not_play_are_refused",
    ("compaction fields", "instructions"):
        "compaction::test_compaction_instructions_are_refused_unless_blank",
}
"""The 400 tests of refused entries outside the tables sampled in this file."""
_SAMPLED = {"parameters": SAMPLES, "tool fields": TOOL_SAMPLES}


def test_every_refused_entry_has_a_400_test() -> None:
    here = Path(__file__).parent
    for table, entries in TABLES.items():
        for name, entry in entries.items():
            if entry.kind != "refused" or table in ("betas", "tool types"):
                continue  # every refused beta and tool type is sent above
            if name in _SAMPLED.get(table, {}):
                continue
            where = REFUSAL_TESTS.get((table, name))
            assert where is not None, f"{table} {name!r} is refused but no test sends it"
            file, test = where.split("::")
            text = (here / f"test_fake_{file}.py").read_text(encoding="utf-8")
            assert f"def {test}(" in text and name in text, where


def test_every_simulated_entry_names_a_behaviour_test_that_exists() -> None:
    here = Path(__file__).parent
    for table, entries in TABLES.items():
        for name, entry in entries.items():
            if entry.kind != "simulated" or table == "betas" or (
                    table == "tool types" and name != "custom"):
                continue
            where = BEHAVIOUR.get((table, name))
            assert where is not None, f"{table} {name!r} is simulated but names no test"
            file, test = where.split("::")
            text = (here / f"test_fake_{file}.py").read_text(encoding="utf-8")
            assert f"def {test}(" in text, where
    for kind, entry in TOOL_TYPES.items():
        if entry.kind == "simulated" and kind != "custom":
            assert kind in PLAYED_TOOLS, f"tool type {kind} is simulated but has no test"
    served = {name for name, entry in BETAS.items() if entry.kind == "simulated"}
    assert served == set(SERVED_BETAS)


@pytest.mark.parametrize("effort", typing.get_args(
    typing.get_args(typing.get_type_hints(OutputConfigParam)["effort"])[0]))
@pytest.mark.parametrize("stream", [False, True])
def test_effort_changes_nothing_the_fake_reports(effort: str, stream: bool) -> None:
    # The docs: effort is "a behavioral signal, not a strict token budget"; the script is
    # what the model chose to spend, so the reply and its usage are the same at any effort.
    def reply(**extra: Any) -> Any:
        client = fake_client(ScriptedModel([say("The login test fails.")]))
        body = {"model": MODEL, "max_tokens": 64, "messages": HI, **extra}
        if stream:
            with client.messages.stream(**body) as events:
                return events.get_final_message()
        return client.messages.create(**body)

    plain, with_effort = reply(), reply(output_config={"effort": effort})
    assert with_effort.content == plain.content
    assert with_effort.usage == plain.usage


@pytest.mark.parametrize("effort", ["ultra", "LOW", "", 3])
def test_an_effort_the_sdk_does_not_name_is_a_400(effort: Any) -> None:
    model = ScriptedModel([say("fine")])
    client = fake_client(model)
    for create in (client.messages.create, client.beta.messages.create):
        error = rejected(lambda send=create: send(model=MODEL, max_tokens=16, messages=HI,
                                                  output_config={"effort": effort}), model)
        assert error.body["error"]["message"].startswith(  # type: ignore[index]
            "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'")


def test_system_and_tool_fields_are_counted() -> None:
    def tokens(**extra: Any) -> int:
        client = fake_client(ScriptedModel([say("ok")]))
        body = {"model": MODEL, "max_tokens": 16, "messages": HI, **extra}
        return client.messages.create(**body).usage.input_tokens

    tool = {"name": "lookup", "input_schema": {"type": "object"}}
    assert tokens(system="Answer in one line.") > tokens()
    assert tokens(tools=[{**tool, "description": "Look a word up."}]) > tokens(tools=[tool])
    examples = [{**tool, "input_examples": [{"word": "loop"}]}]
    assert tokens(tools=examples) > tokens(tools=[tool])


STRICT_TOOL = {"name": "lookup", "strict": True, "input_schema": {
    "type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"],
    "additionalProperties": False}}


def test_a_strict_tool_gets_input_that_fits() -> None:
    fits = fake_client(ScriptedModel([call("lookup", word="loop")]))
    reply = fits.messages.create(model=MODEL, max_tokens=64, messages=HI, tools=[STRICT_TOOL])  # type: ignore[list-item]
    assert reply.content[0].input == {"word": "loop"}  # type: ignore[union-attr]
    misfit = fake_client(ScriptedModel([call("lookup", term="loop")]))
    with pytest.raises(ScriptError, match="strict: true.*'term' was unexpected"):
        misfit.messages.create(model=MODEL, max_tokens=64, messages=HI, tools=[STRICT_TOOL])  # type: ignore[list-item]
    loose = fake_client(ScriptedModel([call("lookup", term="loop")]))
    tools = [{**STRICT_TOOL, "strict": False}]
    assert loose.messages.create(model=MODEL, max_tokens=64, messages=HI,
                                 tools=tools).stop_reason == "tool_use"  # type: ignore[arg-type]


PDF = base64.b64encode(b"%PDF-1.4\n%%EOF\n").decode()


def _caching(client: anthropic.Anthropic, betas: list[str]) -> Any:
    body: dict[str, Any] = {"model": MODEL, "max_tokens": 16, "betas": betas, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi " * 600,
                                      "cache_control": {"type": "ephemeral"}}]}]}
    client.beta.messages.create(**body)
    return client.beta.messages.create(**body).usage.cache_read_input_tokens > 0


def _pdfs(client: anthropic.Anthropic, betas: list[str]) -> Any:
    document = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                               "data": PDF}}
    reply = client.beta.messages.create(model=MODEL, max_tokens=16, betas=betas, messages=[
        {"role": "user", "content": [document, {"type": "text", "text": "Summarise."}]}])
    return reply.usage.input_tokens >= 1600


def _counting(client: anthropic.Anthropic, betas: list[str]) -> Any:
    return client.beta.messages.count_tokens(model=MODEL, messages=HI,
                                             betas=betas).input_tokens > 0


def _structured(client: anthropic.Anthropic, betas: list[str]) -> Any:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    with pytest.raises(ScriptError, match="answers prose"):
        client.beta.messages.create(model=MODEL, max_tokens=16, messages=HI, betas=betas,
                                    output_config={"format": {"type": "json_schema",
                                                              "schema": schema}})
    return True


def _threads(client: anthropic.Anthropic, betas: list[str]) -> Any:
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.beta.messages.create(model=MODEL, max_tokens=16, messages=HI, betas=betas,
                                    thread={"type": "create"})
    return caught.value.body["error"]["details"]["error_code"] == (  # type: ignore[index]
        "thread_unsupported_request")


def _editing(client: anthropic.Anthropic, betas: list[str]) -> Any:
    reply = client.beta.messages.create(
        model=MODEL, max_tokens=16, messages=HI, betas=betas,
        context_management={"edits": [{"type": "clear_tool_uses_20250919"}]})
    return reply.context_management is not None and reply.context_management.applied_edits == []


def _compacting(client: anthropic.Anthropic, betas: list[str]) -> Any:
    reply = client.beta.messages.create(
        model=MODEL, max_tokens=16, messages=HI, betas=betas,
        context_management={"edits": [{"type": "compact_20260112"}]})
    return reply.content[0].type == "text"


def _budget(client: anthropic.Anthropic, betas: list[str]) -> Any:
    reply = client.beta.messages.create(
        model=MODEL, max_tokens=16, messages=HI, betas=betas,
        output_config={"task_budget": {"type": "tokens", "total": 20_000}})
    return reply.content[0].type == "text"


def _fallback(client: anthropic.Anthropic, betas: list[str]) -> Any:
    reply = client.beta.messages.create(model=MODEL, max_tokens=16, messages=HI, betas=betas,
                                        fallbacks=[{"model": "claude-sonnet-4-5"}])
    return reply.usage.iterations is not None and reply.usage.iterations[-1].type == (
        "fallback_message")


def _searching(client: anthropic.Anthropic, betas: list[str]) -> Any:
    tools = [{"name": "lookup", "input_schema": {"type": "object"}, "defer_loading": True},
             {"name": "find", "input_schema": {"type": "object"}}]
    reply = client.beta.messages.create(model=MODEL, max_tokens=16, messages=HI, betas=betas,
                                        tools=tools)  # type: ignore[arg-type]
    return reply.usage.input_tokens < estimate_tokens({"messages": HI, "tools": tools[1:]}) + 1


def _crediting(client: anthropic.Anthropic, betas: list[str]) -> Any:
    refused = client.beta.messages.create(model=MODEL, max_tokens=16, messages=HI, betas=betas)
    token = refused.stop_details.fallback_credit_token  # type: ignore[union-attr]
    retry = client.beta.messages.create(model="claude-sonnet-4-5", max_tokens=16, messages=HI,
                                        betas=betas, fallback_credit_token=token)
    return retry.usage.fallback_credit.status.type == "redeemed"  # type: ignore[union-attr]


def _on_demand(client: anthropic.Anthropic, betas: list[str]) -> Any:
    reply = client.beta.messages.create(model=MODEL, max_tokens=16, messages=HI, betas=betas,
                                        compaction={"type": "summarize"})
    return reply.stop_reason == "compaction"


def _computer(client: anthropic.Anthropic, betas: list[str]) -> Any:
    kind = {"computer-use-2024-10-22": "computer_20241022",
            "computer-use-2025-01-24": "computer_20250124"}.get(betas[0], "computer_20251124")
    fake = fake_client(ScriptedModel([call("computer", action="screenshot")]))
    reply = fake.beta.messages.create(model=MODEL, max_tokens=64, messages=HI, betas=betas,
                                      tools=[played_tool(kind)[0]])  # type: ignore[list-item]
    return reply.content[0].name == "computer"  # type: ignore[union-attr]


def _code(client: anthropic.Anthropic, betas: list[str]) -> Any:
    fake = fake_client(ScriptedModel([pause(tool="code_execution", input={"code": "1+1"})]))
    reply = fake.beta.messages.create(
        model=MODEL, max_tokens=64, messages=HI, betas=betas,
        tools=[{"type": "code_execution_20250522", "name": "code_execution"}])  # type: ignore[list-item]
    return reply.stop_reason == "pause_turn"


SERVED_BETAS = {
    "computer-use-2024-10-22": _computer,
    "computer-use-2025-01-24": _computer,
    "computer-use-2025-11-24": _computer,
    "code-execution-2025-05-22": _code,
    "compact-2026-09-04": _on_demand,
    "tool-search-tool-2025-10-19": _searching,
    "fallback-credit-2026-06-01": _crediting,
    "fallback-credit-2026-07-01": _crediting,
    "server-side-fallback-2026-06-01": _fallback,
    "server-side-fallback-2026-07-01": _fallback,
    "task-budgets-2026-03-13": _budget,
    "compact-2026-01-12": _compacting,
    "context-management-2025-06-27": _editing,
    "prompt-caching-2024-07-31": _caching,
    "pdfs-2024-09-25": _pdfs,
    "token-counting-2024-11-01": _counting,
    "structured-outputs-2025-11-13": _structured,
    "message-threads-2026-08-12": _threads,
}


@pytest.mark.parametrize("beta", sorted(SERVED_BETAS))
def test_a_served_beta_serves_its_feature(beta: str) -> None:
    client = fake_client(ScriptedModel([refuse("cyber") if "fallback" in beta else say("fine"),
                                        say("again")]))
    assert SERVED_BETAS[beta](client, [beta])


def test_the_sdk_effort_example_runs_unchanged() -> None:
    # platform.claude.com/docs/en/build-with-claude/effort, "Set the effort level".
    client = fake_client(ScriptedModel([say("Microservices trade simplicity for scale.")]))
    response = client.messages.create(
        model="claude-opus-4-6",
        max_tokens=4096,
        messages=[{"role": "user", "content":
                   "Analyze the trade-offs between microservices and monolithic architectures"}],
        output_config={"effort": "medium"},
    )
    assert json.loads(response.to_json())["content"][0]["text"].startswith("Microservices")


# -- tool types ---------------------------------------------------------------------------------

_EDITOR = {"text_editor_20241022": "str_replace_editor",
           "text_editor_20250124": "str_replace_editor"}


def played_tool(kind: str) -> tuple[dict[str, Any], bool]:
    """(a definition of a tool of `kind`, whether it is a server tool)."""
    stem = kind.rsplit("_", 1)[0] if kind[-1].isdigit() else kind
    if stem == "text_editor":
        return {"type": kind, "name": _EDITOR.get(kind, "str_replace_based_edit_tool")}, False
    if stem == "computer":
        return {"type": kind, "name": "computer", "display_width_px": 1024,
                "display_height_px": 768}, False
    if stem in ("bash", "memory"):
        return {"type": kind, "name": stem}, False
    return {"type": kind, "name": stem}, True


PLAYED_TOOLS = sorted(kind for kind, entry in TOOL_TYPES.items()
                      if entry.kind == "simulated" and kind != "custom")


@pytest.mark.parametrize("kind", PLAYED_TOOLS)
def test_a_tool_type_the_fake_plays_is_called_through_the_sdk(kind: str) -> None:
    tool, server = played_tool(kind)
    if server:
        step: Any = pause(tool=tool["name"], input={"query": "login test"})
    elif tool["name"] == "memory":
        step = call("memory", command="view", path="/memories")
    else:
        step = call(tool["name"], command="view", path="/repo/README.md")
    client = fake_client(ScriptedModel([step]))
    reply = client.beta.messages.create(model=MODEL, max_tokens=200, messages=HI,
                                        tools=[tool])  # type: ignore[list-item]
    assert reply.content[-1].name == tool["name"]  # type: ignore[union-attr]
    assert reply.stop_reason == ("pause_turn" if server else "tool_use")


REFUSED_TOOL_TYPES = sorted(kind for kind, entry in TOOL_TYPES.items()
                            if entry.kind == "refused")


@pytest.mark.parametrize("kind", [*REFUSED_TOOL_TYPES, "web_search_20990101"])
def test_a_refused_tool_type_is_a_400(kind: str) -> None:
    model = ScriptedModel([say("fine")])
    client = fake_client(model)
    error = rejected(lambda: client.beta.messages.create(
        model=MODEL, max_tokens=16, messages=HI,
        tools=[{"type": kind, "name": "x"}]), model)  # type: ignore[list-item]
    assert error.body["error"]["message"] == refusal(f"tools of type {kind}")  # type: ignore[index]


def test_allowed_callers_direct_is_what_the_fake_plays() -> None:
    client = fake_client(ScriptedModel([call("lookup")]))
    tools = [{"name": "lookup", "input_schema": {"type": "object"},
              "allowed_callers": ["direct"]}]
    reply = client.beta.messages.create(model=MODEL, max_tokens=16, messages=HI,
                                        tools=tools)  # type: ignore[arg-type]
    assert reply.stop_reason == "tool_use"
    server = [{"type": "web_search_20250305", "name": "web_search",
               "allowed_callers": ["code_execution_20250825"]}]
    model = ScriptedModel([say("x")])
    error = rejected(lambda: fake_client(model).beta.messages.create(
        model=MODEL, max_tokens=16, messages=HI, tools=server), model)  # type: ignore[arg-type]
    assert error.body["error"]["message"] == refusal("tools.0.allowed_callers")  # type: ignore[index]


def test_a_tool_field_the_api_does_not_have_is_refused_not_ignored() -> None:
    import anthropic

    from looplab import MODEL, ScriptedModel, fake_client, say

    client = fake_client(ScriptedModel([say("never")]))
    tool = {"name": "a", "description": "d", "input_schema": {"type": "object"}, "colour": 1}
    with pytest.raises(anthropic.BadRequestError,
                       match=r"tools\.0\.custom\.colour: Extra inputs are not permitted"):
        client.messages.create(model=MODEL, max_tokens=10, tools=[tool],
                               messages=[{"role": "user", "content": "hi"}])
    mcp = {"name": "a", "description": "d", "inputSchema": {"type": "object"}}  # MCP's shape
    with pytest.raises(anthropic.BadRequestError,
                       match=r"tools\.0\.custom\.input_schema: Field required"):
        client.messages.create(model=MODEL, max_tokens=10, tools=[mcp],
                               messages=[{"role": "user", "content": "hi"}])
