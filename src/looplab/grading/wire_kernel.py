"""The kernel's side of the wire: run one job the grader asks for, and send back plain JSON.

The grader runs `serve(path, token)` in the student's kernel for each thing it needs: the
value of a name, or a call of the student's function. The job's arguments arrive from the
grader; the ones the grader keeps for itself arrive as stand-ins that talk back over the
wire (a client whose HTTP goes to the grader's fake API, tools and a clock that run in the
grader). What goes back is the return value as plain JSON (`plain`). Nothing here decides
a grade: a kernel that changes this module can only send other JSON, which the grader
checks like any other answer.
"""

from __future__ import annotations

import base64
import builtins
import dataclasses
import importlib
import inspect
import pickle
import threading
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pydantic

from ..core.tools import Tool, tool
from .hiding import Watch
from .wire_lines import Line, connect
from .wire_stream import WireStream

_refs: dict[int, Any] = {}
"""Kernel objects the grader holds only by number (a client, a tool), for this kernel."""
_lock = threading.Lock()
_connections = threading.local()
"""Each thread's open connection to the grader, by socket path."""


def _ref(value: Any) -> int:
    with _lock:
        number = len(_refs) + 1
        _refs[number] = value
    return number


@dataclasses.dataclass(frozen=True)
class _Wire:
    path: str
    token: str

    def ask(self, message: dict[str, Any]) -> Any:
        """One request; while the grader answers with requests of its own (`kcall`, an
        agent of the grader calling back), run them here and answer each. Each thread
        keeps its connection open for the next request."""
        lines: dict[str, Line] = vars(_connections)
        line = lines.get(self.path) or connect(self.path)
        lines[self.path] = line
        try:
            line.send(message, self.token)
            while True:
                reply = line.receive()
                if not (isinstance(reply, dict) and reply.get("op") == "kcall"):
                    return reply
                line.send(_kcall(self, reply), self.token)
        except BaseException:
            lines.pop(self.path, None)  # a request cut short: its connection is done
            line.close()
            raise


def _kcall(wire: _Wire, request: dict[str, Any]) -> dict[str, Any]:
    try:
        if "name" in request:  # the student's function, called back by the grader
            return _call(_namespace().get(request["name"]), request, wire)
        target = _refs[int(request["ref"])]
        if request.get("http"):
            return _http_here(target, request["http"])
        args = [arrive(a, wire) for a in request.get("args", [])]
        kwargs = {k: arrive(v, wire) for k, v in request.get("kwargs", {}).items()}
        return {"value": plain(target(*args, **kwargs))}
    except Exception as e:
        return {"raised": raised(e)}


def _http_here(client: Any, http: dict[str, Any]) -> dict[str, Any]:
    """A request of the grader's agent, sent through a client the student's code made."""
    request = httpx2.Request(http["method"], http["url"], headers=http["headers"],
                             content=base64.b64decode(http["body"]),
                             extensions={"timeout": http.get("timeout")})  # fmt: skip
    response = client._client.send(request)  # the SDK's own HTTP client, as the SDK sends
    return {"status": response.status_code, "headers": list(response.headers.multi_items()),
            "body": base64.b64encode(response.read()).decode()}  # fmt: skip


def raised(e: BaseException) -> dict[str, Any]:
    """An exception as plain data: its type's name, its first line, and the grader's tag
    when it came from the grader (a tool's exception, an API error the fake answered)."""
    try:
        text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    except Exception:  # an exception whose __str__ raises
        text = ""
    tag = getattr(e, "_looplab_tag", None)
    response = getattr(e, "response", None)
    if tag is None and isinstance(e, anthropic.APIStatusError) and response is not None:
        tag = response.headers.get("x-looplab-tag", "")
    return {"type": type(e).__name__, "message": text[:2000],
            "tag": int(str(tag)) if str(tag).isdigit() else None}  # fmt: skip


def plain(value: Any) -> Any:
    """`value` as JSON the grader can read: SDK objects as their dicts, tuples marked,
    anything else as a number the grader can hand back."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, tuple):
        return {"$tuple": [plain(v) for v in value]}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict) and all(type(k) is str for k in value):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, pydantic.BaseModel) and type(value).__module__.startswith("anthropic"):
        kind = "message" if getattr(value, "type", None) == "message" else "block"
        return {"$sdk": kind, "v": value.model_dump(mode="json", exclude_unset=True)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = f"{type(value).__module__}.{type(value).__qualname__}"
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        if name.startswith("looplab.") and all(type(v) in (bool, int, float, str) or v is None
                                                for v in fields.values()):  # fmt: skip
            return {"$dataclass": name, "fields": fields}
    made = value if isinstance(value, Tool) else _as_tool(value)
    if made is not None:  # a tool, or a function returned to be one (a sub-agent's delegate)
        return {"$tool": _ref(value), "name": made.name, "description": made.description,
                "input_schema": plain(made.input_schema)}  # fmt: skip
    return {"$kref": _ref(value), "type": type(value).__name__}


def _as_tool(value: Any) -> Tool | None:
    """A plain function as the tool it can be (its definition read here), else None."""
    if not inspect.isfunction(value):
        return None
    try:
        return tool(value)
    except TypeError:  # not a tool's signature: it stays a function in the kernel
        return None


def _stub(wire: _Wire, number: int, name: str) -> Callable[..., Any]:
    """A function that runs the grader's callable `number` and returns what it returned."""

    def call(*args: Any, **kwargs: Any) -> Any:
        reply = wire.ask({"op": "call", "id": number, "args": [plain(a) for a in args],
                          "kwargs": {k: plain(v) for k, v in kwargs.items()}})  # fmt: skip
        if "raised" in reply:
            raise _rebuilt(reply["raised"])
        return arrive(reply.get("value"), wire)

    call.__name__ = call.__qualname__ = name
    return call


def _rebuilt(info: dict[str, Any]) -> BaseException:
    """The grader's exception, as the same type here where it can be found."""
    cls: Any = None
    module, name = info.get("module") or "builtins", str(info.get("type"))
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        cls = None
    message = str(info.get("message", ""))
    try:
        e = cls(message) if isinstance(cls, type) and issubclass(cls, Exception) else None
    except Exception:
        e = None
    if e is None:
        e = type(name, (Exception,), {})(message)
    setattr(e, "_looplab_tag", info.get("tag"))  # noqa: B010 - the grader's mark
    return e


class _Transport(httpx2.BaseTransport):
    """HTTP for the SDK, answered by the grader's fake API over the wire."""

    def __init__(self, wire: _Wire, number: int) -> None:
        self.wire = wire
        self.number = number

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        timeout = request.extensions.get("timeout")
        reply = self.wire.ask({
            "op": "http", "id": self.number, "method": request.method, "url": str(request.url),
            "headers": list(request.headers.multi_items()),
            "body": base64.b64encode(request.read()).decode(),
            "timeout": timeout if isinstance(timeout, dict) else None,
        })  # fmt: skip
        if "raised" in reply:
            raise _rebuilt(reply["raised"])
        body: Any = ({"stream": WireStream(self.wire.ask, reply["stream"], _rebuilt)}
                     if "stream" in reply else {"content": base64.b64decode(reply["body"])})
        return httpx2.Response(reply["status"], headers=reply["headers"], request=request, **body)


def _client(wire: _Wire, spec: dict[str, Any]) -> anthropic.Anthropic:
    from ..fake.client import FAKE_API_KEY, FAKE_BASE_URL, _without_retry_waits

    http = httpx2.Client(transport=_Transport(wire, spec["$client"]))
    client = anthropic.Anthropic(api_key=FAKE_API_KEY, base_url=FAKE_BASE_URL, http_client=http,
                                 max_retries=spec["max_retries"])  # fmt: skip
    return _without_retry_waits(client) if spec.get("no_waits") else client


def _runner(wire: _Wire, spec: dict[str, Any]) -> Any:
    from ..exercises.runner import lookup

    client = _client(wire, spec["client"])
    params = arrive(spec["params"], wire)
    return client.beta.messages.tool_runner(**params, tools=[lookup])


def arrive(value: Any, wire: _Wire) -> Any:
    """A value from the grader, with its stand-ins made."""
    if isinstance(value, list):
        return [arrive(v, wire) for v in value]
    if not isinstance(value, dict):
        return value
    if "$tuple" in value:
        return tuple(arrive(v, wire) for v in value["$tuple"])
    if "$pickle" in value:  # made by the grader: the only side that may be trusted
        return pickle.loads(base64.b64decode(value["$pickle"]))
    if "$client" in value:
        return _client(wire, value)
    if "$runner" in value:
        return _runner(wire, value)
    if "$kref" in value:
        return _refs[int(value["$kref"])]
    if "$tool" in value:
        own = value.get("kref")
        fn = _refs[own] if type(own) is int else _stub(wire, value["$tool"], value["name"])
        return Tool(value["name"], value["description"], value["input_schema"], fn,
                    value.get("timeout_s"), value.get("isolate", "thread"))  # fmt: skip
    if "$agent" in value:  # the lesson's agent, its run_agent served by the grader
        namespace = {**_namespace(), "run_agent": arrive(value["run_agent"], wire)}
        exec(compile(value["$agent"], "<the lesson's agent>", "exec"), namespace)
        return namespace[value["name"]]
    if "$ledger" in value:
        from .shared import SharedLedger

        return SharedLedger(_stub(wire, value["$ledger"], "ledger"))
    if "$callable" in value:
        fn = _stub(wire, value["$callable"], value.get("name", "fn"))
        if type(value.get("within_s")) is float:  # an approver's time (lesson 15)
            fn.within_s = value["within_s"]  # type: ignore[attr-defined]
        return fn
    return {k: arrive(v, wire) for k, v in value.items()}


def _namespace() -> dict[str, Any]:
    from IPython import get_ipython

    namespace: dict[str, Any] = get_ipython().user_ns
    return namespace


def serve(path: str, token: str) -> None:
    """Run the grader's current job in this kernel and send its result."""
    wire = _Wire(path, token)
    job = wire.ask({"op": "job"})
    namespace = _namespace()
    name = job.get("name")
    if job["kind"] == "kcall":  # an object a function of the student's returned, called
        result = _kcall(wire, {k: v for k, v in job.items() if k != "name"})
    elif job["kind"] == "lookup":
        value = namespace.get(name, _MISSING)
        if value is _MISSING and hasattr(builtins, name):
            value = getattr(builtins, name)
        kind = "missing" if value is _MISSING else "callable" if callable(value) else "value"
        result = {"kind": kind, "value": plain(value) if kind == "value" else None}
    else:
        result = _call(namespace.get(name), job, wire)
    wire.ask({"op": "result", "job": job["job"], "result": result})


def _call(fn: Any, job: dict[str, Any], wire: _Wire) -> dict[str, Any]:
    args = [arrive(a, wire) for a in job["args"]]
    kwargs = {k: arrive(v, wire) for k, v in job["kwargs"].items()}
    # looplab's own answer running inside, also as its value is read (hiding.py: 2nd layer)
    with Watch() as watch:
        try:
            value = fn(*args, **kwargs)
        except BaseException as e:  # noqa: B036 - sys.exit in a checked function is an answer too
            return {"raised": raised(e), **watch.report()}
        result = {"value": plain(value), "args": [plain(a) if isinstance(a, list) else None
                                                  for a in args]}  # fmt: skip
    return {**result, **watch.report()}


_MISSING = object()
