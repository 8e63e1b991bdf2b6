"""What the fake does with every request parameter and beta the SDK can send: it simulates
it, or it refuses it with a 400. Nothing is accepted and ignored.

A parameter, an `output_config` field, a tool field or a beta (the `anthropic-beta`
header) that is not listed as simulated here is refused, so a newer SDK's addition is
refused until someone classifies it (tests/fake/test_fake_inventory.py fails until then).
A refusal reads "looplab's fake does not simulate X; run live (LOOPLAB_LIVE=1) or script
its effect". A value of `null` counts as not sent, as in the SDK's own params.

`thread` keeps the error code the SDK's tool runner understands
(`thread_unsupported_request`), so the runner falls back to sending the full history.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .errors import BadRequest

Kind = Literal["simulated", "refused"]


@dataclass(frozen=True)
class Entry:
    kind: Kind
    note: str


def _sim(note: str) -> Entry:
    return Entry("simulated", note)


def _ref(note: str) -> Entry:
    return Entry("refused", note)


PARAMETERS: dict[str, Entry] = {
    "model": _sim("any Claude-shaped id is served; a retired one gets the 404"),
    "max_tokens": _sim("cuts the scripted reply, stop_reason max_tokens"),
    "messages": _sim("checked like the API checks a history"),
    "system": _sim("counted in the prompt's tokens"),
    "tools": _sim("checked; a script calls them (see TOOL_FIELDS)"),
    "tool_choice": _sim("checked; a script that breaks it is a script error"),
    "stop_sequences": _sim("cut the scripted text, stop_reason stop_sequence"),
    "stream": _sim("the reply as server-sent events"),
    "metadata": _sim("checked (user_id only)"),
    "thinking": _sim("checked; thinking blocks signed and checked on return"),
    "cache_control": _sim("top-level automatic caching in the usage counts"),
    "output_config": _sim("per field, see OUTPUT_CONFIG"),
    "betas": _sim("per beta, see BETAS"),
    "billing_policy": _ref("billing"),
    "compaction": _sim("on-demand compaction: the block alone (compaction.py)"),
    "container": _ref("code execution containers"),
    "context_management": _sim("per edit, see CONTEXT_EDITS (editing.py)"),
    "diagnostics": _ref("server diagnostics"),
    "fallback_credit_token": _sim("redeemed or not_applied in usage.fallback_credit"),
    "fallbacks": _sim("the next script step plays the fallback model (fallback.py)"),
    "inference_geo": _ref("where inference runs"),
    "mcp_servers": _ref("the MCP connector"),
    "service_tier": _ref("priority tiers (the fake reports service_tier standard)"),
    "speed": _ref("fast mode"),
    "thread": _ref("message threads (error code thread_unsupported_request)"),
    "user_profile_id": _ref("user profiles"),
    "workspace_id": _ref("workspaces"),
}
"""Every top-level body key of the SDK's `messages.create` and `beta.messages.create`."""

OUTPUT_CONFIG: dict[str, Entry] = {
    "format": _sim("structured output: a scripted reply must fit the schema"),
    "effort": _sim("checked against the SDK's values; changes no count the fake reports"),
    "task_budget": _sim("checked; FunctionModel reads the countdown (budget.py)"),
}

CONTEXT_EDITS: dict[str, Entry] = {
    "clear_tool_uses_20250919": _sim("old tool results replaced, applied_edits in the reply"),
    "clear_thinking_20251015": _sim("older turns' thinking removed (clear_thinking.py)"),
    "compact_20260112": _sim("a compaction block past the trigger (compaction.py)"),
}
"""Every `context_management.edits` type the SDK names."""

CLEAR_TOOL_USES_FIELDS: dict[str, Entry] = {
    "type": _sim("the edit's type"),
    "trigger": _sim("input_tokens or tool_uses, default 100,000 input tokens"),
    "keep": _sim("the newest tool uses kept, default 3"),
    "clear_at_least": _sim("no edit unless it frees this many input tokens"),
    "exclude_tools": _sim("those tools' results are never cleared"),
    "clear_tool_inputs": _ref("clearing tool inputs (clear_tool_inputs)"),
}
"""Fields of a `clear_tool_uses_20250919` edit."""

CLEAR_THINKING_FIELDS: dict[str, Entry] = {
    "type": _sim("the edit's type"),
    "keep": _sim("the newest thinking turns kept (thinking_turns or all), default 1"),
}
"""Fields of a `clear_thinking_20251015` edit."""

COMPACT_FIELDS: dict[str, Entry] = {
    "type": _sim("the edit's type"),
    "trigger": _sim("input_tokens, default 150,000, at least 50,000"),
    "pause_after_compaction": _sim("the block alone, stop_reason compaction"),
    "instructions": _ref("summary instructions (the fake writes its own summary)"),
}
"""Fields of a `compact_20260112` edit."""

COMPACTION_FIELDS: dict[str, Entry] = {
    "type": _sim("summarize"),
    "instructions": _ref("summary instructions (the fake writes its own summary)"),
}
"""Fields of the on-demand `compaction` parameter."""

_EDIT_FIELDS = {"clear_tool_uses_20250919": CLEAR_TOOL_USES_FIELDS,
                "clear_thinking_20251015": CLEAR_THINKING_FIELDS,
                "compact_20260112": COMPACT_FIELDS}

TOOL_FIELDS: dict[str, Entry] = {
    "name": _sim("checked"),
    "input_schema": _sim("checked"),
    "description": _sim("counted in the prompt's tokens"),
    "type": _sim("client tools and scripted server tools"),
    "cache_control": _sim("cache breakpoints in the usage counts"),
    "strict": _sim("a scripted call must fit the schema"),
    "input_examples": _sim("counted in the prompt's tokens"),
    "defer_loading": _sim("not counted, not callable until a tool_reference loads it"),
    "allowed_callers": _ref("programmatic tool calling (allowed_callers other than "
                            "['direct'])"),
    "eager_input_streaming": _sim("a cut call streams its input raw (invalid JSON)"),
}
"""Fields of a tool definition the fake reads; any other field of a tool the fake leaves
to the tool's own type (server tools such as web_search carry their own settings)."""

_CLIENT = "a client tool the API defines: the script calls it, the client runs it"
_SERVER = "a server tool: the script plays its call and result"
TOOL_TYPES: dict[str, Entry] = {
    "custom": _sim("a tool of the request's own (also: no `type`)"),
    **{kind: _sim(_CLIENT) for kind in (
        "bash_20241022", "bash_20250124", "computer_20241022", "computer_20250124",
        "computer_20251124", "memory_20250818", "text_editor_20241022", "text_editor_20250124",
        "text_editor_20250429", "text_editor_20250728")},
    **{kind: _sim(_SERVER) for kind in (
        "web_search_20250305", "web_search_20260209", "web_search_20260318",
        "web_fetch_20250910", "web_fetch_20260209", "web_fetch_20260309", "web_fetch_20260318",
        "code_execution_20250522", "code_execution_20250825", "code_execution_20260120",
        "code_execution_20260521")},
    **{kind: _sim("tool search: loads deferred tools (search.py)") for kind in (
        "tool_search_tool_regex", "tool_search_tool_regex_20251119", "tool_search_tool_bm25",
        "tool_search_tool_bm25_20251119")},
    "mcp_toolset": _ref("MCP toolsets (mcp_toolset)"),
    "advisor_20260301": _ref("the advisor tool (advisor_20260301)"),
    "computer_toolset_20260801": _ref("the computer toolset (computer_toolset_20260801)"),
    "browser_toolset_20260801": _ref("the browser toolset (browser_toolset_20260801)"),
}
"""Every tool `type` the SDK names (GA and beta). A type not listed is refused."""

BETAS: dict[str, Entry] = {
    "prompt-caching-2024-07-31": _sim("prompt caching"),
    "computer-use-2024-10-22": _sim("computer tools (TOOL_TYPES)"),
    "computer-use-2025-01-24": _sim("computer tools (TOOL_TYPES)"),
    "computer-use-2025-11-24": _sim("computer tools (TOOL_TYPES)"),
    "code-execution-2025-05-22": _sim("code execution tools (TOOL_TYPES)"),
    "pdfs-2024-09-25": _sim("PDF document blocks"),
    "token-counting-2024-11-01": _sim("POST /v1/messages/count_tokens"),
    "structured-outputs-2025-11-13": _sim("output_config.format"),
    "compact-2026-09-04": _sim("compaction (on demand)"),
    "compact-2026-01-12": _sim("context_management (compact_20260112)"),
    "context-management-2025-06-27": _sim("context_management (clear_tool_uses, clear_thinking)"),
    "fallback-credit-2026-06-01": _sim("a refusal's fallback_credit_token (credit.py)"),
    "fallback-credit-2026-07-01": _sim("a refusal's fallback_credit_token (credit.py)"),
    "server-side-fallback-2026-06-01": _sim("fallbacks"),
    "server-side-fallback-2026-07-01": _sim("fallbacks (an entry's max_tokens)"),
    "tool-search-tool-2025-10-19": _sim("defer_loading and tool_reference (search.py)"),
    "task-budgets-2026-03-13": _sim("output_config.task_budget"),
    "message-threads-2026-08-12": _sim("the header passes; `thread` itself is refused with "
                                       "the code the SDK's runner falls back on"),
    "output-128k-2025-02-19": _ref("longer output"),
    "output-300k-2026-03-24": _ref("longer output"),
    **{f"mcp-client-{day}": _ref("the MCP connector")
       for day in ("2025-04-04", "2025-11-20", "2026-09-15")},
    "mcp-tunnels-2026-06-22": _ref("MCP tunnels"),
    "dev-full-thinking-2025-05-14": _ref("full thinking display"),
    "interleaved-thinking-2025-05-14": _ref("thinking between tool calls"),
    "thinking-token-count-2026-05-13": _ref("thinking token counts"),
    "thinking-display-updates-2026-08-18": _ref("thinking display"),
    "thinking-binding-controls-2026-08-01": _ref("thinking binding controls"),
    "context-1m-2025-08-07": _ref("a 1M-token context window"),
    "model-context-window-exceeded-2025-08-26": _ref("that stop reason's opt-in"),
    "fast-mode-2026-02-01": _ref("fast mode"),
    **{f"user-profiles-2026-{day}": _ref("user profiles")
       for day in ("03-24", "08-18", "09-04")},
    "advisor-tool-2026-03-01": _ref("the advisor tool"),
    "managed-agents-2026-04-01": _ref("managed agents"),
    "dreaming-2026-04-21": _ref("dreaming"),
    "agent-memory-2026-07-22": _ref("agent memory"),
    "mid-conversation-tool-changes-2026-07-01": _ref("tool changes mid-conversation"),
    "mid-conversation-output-config-2026-07-01": _ref("output_config mid-conversation"),
    "mid-conversation-system-clear-at-2026-08-21": _ref("system clear-at"),
    "inline-tools-2026-09-15": _ref("inline tools"),
    "token-efficient-tools-2025-02-19": _ref("token-efficient tool calls"),
    "extended-cache-ttl-2025-04-11": _ref("the 1-hour cache"),
    "skills-2025-10-02": _ref("skills"),
    "cache-diagnosis-2026-04-07": _ref("cache diagnosis"),
    "experimental-claude-tag-2026-10-21": _ref("an experimental tag"),
    "message-batches-2024-09-24": _ref("the batches endpoint (not served)"),
    "files-api-2025-04-14": _ref("the files endpoint (not served)"),
    "webhooks-2026-10-07": _ref("webhooks"),
    **{name: _ref("an admin API") for name in (
        "ce-plugins-2026-09-01", "ce-user-management-2026-07-13",
        "ce-claude-code-managed-settings-2026-10-06", "spend-limit-reads-2026-09-26",
        "telemetry-destinations-2026-08-11", "admin-user-sign-out-2026-10-08",
        "analytics-usage-cost-2026-08-24", "efs-2026-10-01",
        "google-managed-data-controls-2026-09-01", "user-profiles-billing-2026-10-01")},
}
"""Every beta in the SDK's `AnthropicBetaParam`. A refused one either gates a feature the
fake does not play or changes what the model does (a 1M context, longer output, fast
mode) in a way the fake does not play. A name not listed here is refused too."""


EXTRA_BETAS = frozenset({"tool-search-tool-2025-10-19"})
"""Betas in `BETAS` that the installed SDK's `AnthropicBetaParam` does not name: the
SDK's own tool search example (examples/tools_runner_search_tool.py) sends this one."""


def refusal(what: str) -> str:
    return (f"looplab's fake does not simulate {what}; run live (LOOPLAB_LIVE=1) or "
            "script its effect")


def _simulated(table: Mapping[str, Entry], key: str) -> bool:
    entry = table.get(key)
    return entry is not None and entry.kind == "simulated"


def check_parameters(body: Mapping[str, Any]) -> None:
    """Refuse (400) every sent parameter, `output_config` field and tool field the fake
    does not simulate."""
    for key, value in body.items():
        if value is not None and not _simulated(PARAMETERS, key):
            details = None
            if key == "thread":
                details = {"error_code": "thread_unsupported_request", "unsupported": ["thread"]}
            raise BadRequest(refusal(key), details)
    config = body.get("output_config")
    if isinstance(config, Mapping):
        for key, value in config.items():
            if value is not None and not _simulated(OUTPUT_CONFIG, key):
                raise BadRequest(refusal(f"output_config.{key}"))
    compaction = body.get("compaction")
    for key, value in compaction.items() if isinstance(compaction, Mapping) else ():
        blank = value is None or (isinstance(value, str) and not value.strip())
        if not blank and not _simulated(COMPACTION_FIELDS, key):
            raise BadRequest(refusal(f"compaction.{key}"))
    management = body.get("context_management")
    edits = management.get("edits") if isinstance(management, Mapping) else None
    for i, edit in enumerate(edits if isinstance(edits, list) else []):
        kind = edit.get("type") if isinstance(edit, Mapping) else None
        if not _simulated(CONTEXT_EDITS, str(kind)):
            raise BadRequest(refusal(f"the context edit {kind}"))
        assert isinstance(edit, Mapping)
        for key, value in edit.items():
            if value is not None and value is not False and not _simulated(
                    _EDIT_FIELDS[str(kind)], key):
                raise BadRequest(refusal(f"context_management.edits.{i}.{key}"))
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, Mapping):
            continue
        kind = tool.get("type")
        if kind is not None and not _simulated(TOOL_TYPES, str(kind)):
            raise BadRequest(refusal(f"tools of type {kind}"))
        if tool.get("allowed_callers") not in (None, ["direct"]):
            # only direct calls are played (the default); calls from code are not
            raise BadRequest(refusal(f"tools.{i}.allowed_callers"))
        if kind not in (None, "custom"):
            continue  # the other fields of an API-defined tool are its own settings
        for key, value in tool.items():
            # a field the API does not have (an MCP tool's `inputSchema`) is the request
            # checks' to answer, as the API does: here only the API's own fields
            if key != "allowed_callers" and key in TOOL_FIELDS and value is not None and (
                    value is not False and not _simulated(TOOL_FIELDS, key)):
                raise BadRequest(refusal(f"tools.{i}.{key}"))


HEADER_PARAMETERS = {
    "user_profile_id": "anthropic-user-profile-id",
    "workspace_id": "anthropic-workspace-id",
}
"""Parameters the SDK sends as a header, not in the body."""


def check_headers(headers: Mapping[str, str]) -> None:
    """Refuse (400) a header parameter the fake does not simulate, and every beta in the
    `anthropic-beta` header it does not serve."""
    for parameter, header in HEADER_PARAMETERS.items():
        if headers.get(header) and not _simulated(PARAMETERS, parameter):
            raise BadRequest(refusal(parameter))
    for name in (headers.get("anthropic-beta") or "").split(","):
        name = name.strip()
        if name and not _simulated(BETAS, name):
            raise BadRequest(refusal(f"the beta {name}"))
