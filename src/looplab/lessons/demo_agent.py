"""The demo agent: a fake model that investigates the demo repository like the article's
transcript, deciding each turn from the real tool results it was sent (in the language
current when it speaks). `looplab.lessons.demo` re-exports it beside the tools."""

from __future__ import annotations

import re
from typing import Any

from ..fake import FunctionModel, Request, call, say
from ..history.blocks import text_of
from ..i18n import _


def demo_agent(module: str = "login") -> FunctionModel:
    """A fake model that investigates like the article's transcript, from real tool results.

    Turn 1 runs the module's tests. If one fails, turn 2 reads the log and the source in
    one parallel call. Turn 3 explains the failure using only what those calls returned.
    """

    def respond(request: Request) -> Any:
        results = request.last_results_by_name()
        if not results:
            return [say(_("Let me run the {module} tests first.").format(module=module)),
                    call("run_tests", module=module)]
        if "run_tests" in results:
            output = text_of(results["run_tests"])
            if not re.search(r"\b\d+ failed\b", output):
                last = output.strip().splitlines()[-1] if output.strip() else _("(no output)")
                return say(_("No {module} test fails. pytest says: {last}").format(
                    module=module, last=last))
            return [
                say(_("A test fails. I'll read the log and the source together.")),
                call("read_file", path=f"logs/{module}.log"),
                call("read_file", path=f"{module}.py"),
            ]
        return say(_explain(request, module))

    respond.__name__ = "demo_agent"
    return FunctionModel(respond)


def _tool_outputs(request: Request) -> list[tuple[str, dict[str, Any], str]]:
    """`(tool name, input, result text)` of every answered call in the history."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    outputs = []
    for message in request.messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                calls[block["id"]] = (block["name"], block.get("input") or {})
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                name, input = calls[block["tool_use_id"]]
                outputs.append((name, input, text_of(block.get("content"))))
    return outputs


def _explain(request: Request, module: str) -> str:
    """The final answer, built from the run_tests output, the log and the source it got."""
    tests = log = source = ""
    for name, input, text in _tool_outputs(request):
        path = str(input.get("path", ""))
        if name == "run_tests":
            tests = text
        elif name == "read_file" and path.endswith(".log"):
            log = text
        elif name == "read_file" and path.endswith(".py"):
            source = text

    failed = re.search(r"^FAILED (\S+?)::(\w+)(?: - (.*))?$", tests, re.MULTILINE)
    summary = re.search(r"^\d+ failed.*$", tests, re.MULTILINE)
    counts = _(" ({summary})").format(summary=summary.group(0)) if summary else ""
    lines = [_("{test} fails{counts}: {reason}").format(
                 test=failed.group(2), counts=counts, reason=failed.group(3) or _("see the output"))
             if failed else _("A test fails{counts}.").format(counts=counts)]
    check = next(
        ((n, line.strip()) for n, line in enumerate(source.splitlines(), 1)
         if re.search(r"[<>]=?\s*self\.max_attempts", line)),
        None,
    )
    limit = re.search(r"^MAX_ATTEMPTS\s*=\s*(\d+)", source, re.MULTILINE)
    if check is None:
        lines.append(_("I found no lockout check in {module}.py, so I cannot say why yet.").format(
            module=module))
    else:
        lines.append(_("The lockout check, {module}.py line {line}: `{code}`").format(
            module=module, line=check[0], code=check[1]))
        if ">=" not in check[1] and ">" in check[1] and limit:
            n = int(limit.group(1))
            lines.append(_(
                "With MAX_ATTEMPTS = {n}, {n} failed attempts give {n} > {n}, which is "
                "False: the account is not locked yet, so attempt {next} still gets "
                "through. The check is off by one; it should be `>=`."
            ).format(n=n, next=n + 1))
    evidence = [line.strip() for line in log.splitlines() if " ERROR " in line]
    if evidence:
        lines.append(_("The log shows the same in production: {line}").format(line=evidence[-1]))
    return "\n".join(lines)
