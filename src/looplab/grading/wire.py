"""The grader's side of the wire: one Unix socket per kernel, served by the grader.

For each job (the value of a name, or a call of the student's function) the grader runs
`wire_kernel.serve` in the kernel, which asks this server for the job, and sends the
result here. While the student's function runs, everything it asks of the world comes
here too: its API requests go to the fake API of the check that is running (through that
client's own HTTP transport, so the fake counts and checks every request), its tool calls
and clock readings to the grader's tools and clock. So what the grader knows of a run is
what it served and the plain JSON it was sent. Every request must carry the kernel's
token, which only this kernel was sent.
"""

from __future__ import annotations

import base64
import contextvars
import functools
import secrets
import socketserver
import threading
import time
from pathlib import Path
from typing import Any

import httpx2

from .codec import Handles, back, remote_exception
from .session import Outcome, Session
from .wire_lines import Budget, Flooded, Line, WireClosed, at_path

POLL_S = 0.02
"""How soon the server notices it is closed (`close` waits for it)."""
MAX_CONNECTIONS = 32
"""Connections one kernel may have open to the grader at once (one per thread that asks)."""
MAX_BUFFERED = 64_000_000
"""Bytes of unread messages the grader holds for one kernel, its connections together."""
MAX_STREAMS = 16
"""Streamed answers one kernel may have open at once; opening one more drops the oldest."""
SERVE = "__import__('looplab.grading.wire_kernel').grading.wire_kernel.serve({path!r}, {token!r})"


_reverse = threading.local()


def reverse_line() -> Line | None:
    """The connection of the kernel request this thread is answering, if any."""
    line: Line | None = getattr(_reverse, "line", None)
    return line


class KernelStopped(BaseException):
    """The kernel gave no answer: it ran over its time, crashed, or was stopped. Not an
    `Exception`, so a checker does not catch it as the student's error: it ends the check
    cell, whose checks then fail with this reason."""


class Wire:
    """The socket of one kernel, and the job it is asked to do."""

    def __init__(self, folder: Path) -> None:
        self.path = str(folder / "wire.sock")
        self.token = secrets.token_hex(16)
        self.handles = Handles()
        self._job: dict[str, Any] | None = None
        self._result: Any = None
        self._lock = threading.Lock()
        self._open = 0
        self._budget = Budget(MAX_BUFFERED)
        self._streams: dict[int, Any] = {}
        """Streamed answers (`text/event-stream`) the kernel reads piece by piece, by number."""
        self._streamed = 0
        self.broken = ""
        """Why the kernel was cut off for overstepping a bound of this server, if it was."""
        wire = self
        # the calls the kernel makes back run in the grading thread's context: the language
        # a submission is checked in (`i18n.speaking`) is the language of its tools' words
        context = contextvars.copy_context()

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                context.copy().run(wire._serve, Line(self.request, token=wire.token,
                                                    budget=wire._budget))

        class Server(socketserver.ThreadingUnixStreamServer):
            def process_request(self, request: Any, client_address: Any) -> None:
                if not wire._opened():  # no thread, no file kept for it: closed at once
                    self.shutdown_request(request)
                    return
                super().process_request(request, client_address)

            def process_request_thread(self, request: Any, client_address: Any) -> None:
                try:
                    super().process_request_thread(request, client_address)
                finally:
                    with wire._lock:
                        wire._open -= 1

        self._server = Server(self.path, Handler, bind_and_activate=False)
        at_path(self._server.socket, self.path, "bind")
        self._server.server_activate()
        self._server.daemon_threads = True
        serve = functools.partial(self._server.serve_forever, poll_interval=POLL_S)
        threading.Thread(target=serve, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _opened(self) -> bool:
        """Count a new connection; False (and the kernel cut off) when it is one too many."""
        with self._lock:
            if self._open >= MAX_CONNECTIONS:
                self._cut_off(f"its kernel opened more than {MAX_CONNECTIONS} connections "
                              "to the grader at once")  # fmt: skip
                return False
            self._open += 1
            return True

    def _cut_off(self, why: str) -> None:
        """Remember why (the first reason); the grade says so. Called with the lock held."""
        self.broken = self.broken or why
        self._job = None

    def _serve(self, line: Line) -> None:
        """Answer the requests of one connection, in turn, until it closes."""
        _reverse.line = line  # the kernel waits on it: calls back into the kernel go there
        try:
            while True:
                message = line.receive()  # it began with the kernel's token (`Line`)
                if not isinstance(message, dict):
                    return
                line.send(self._answer(message, line))
        except Flooded as e:
            with self._lock:
                self._cut_off(str(e))
            return
        except (WireClosed, OSError):
            return
        finally:
            _reverse.line = None
            line.close()

    def _answer(self, message: dict[str, Any], line: Line) -> Any:
        op = message.get("op")
        with self._lock:
            job = None if self.broken else self._job
        if job is None:
            return {"raised": {"type": "RuntimeError", "message": "no check is running"}}
        if op == "job":
            return job
        if op == "http_read":
            return self._read(message)
        if op == "result":
            with self._lock:
                if message.get("job") == job["job"] and self._result is None:
                    self._result = message.get("result")
            return {}
        target = self.handles.objects.get(message.get("id"))  # type: ignore[arg-type]
        if target is None:
            return {"raised": {"type": "LookupError", "message": "no such object"}}
        if op == "http":
            return self._http(target, message)
        return self._call(target, message)

    def _call(self, target: Any, message: dict[str, Any]) -> Any:
        args = back(message.get("args", []), reverse_line())
        kwargs = back(message.get("kwargs", {}), reverse_line())
        try:
            value = target(*args, **kwargs) if isinstance(kwargs, dict) else target(*args)
        except Exception as e:
            return {"raised": self.exception_out(e)}
        return {"value": self.handles.out(value)}

    def exception_out(self, e: BaseException) -> dict[str, Any]:
        return {"type": type(e).__name__, "module": type(e).__module__,
                "message": str(e), "tag": self.handles.tag(e)}  # fmt: skip

    def _http(self, client: Any, message: dict[str, Any]) -> Any:
        """Send the kernel's request through the check's own client, as its SDK would."""
        try:
            request = httpx2.Request(
                str(message["method"]), str(message["url"]), headers=message["headers"],
                content=base64.b64decode(message["body"]),
                extensions={"timeout": message["timeout"]} if message.get("timeout") else {},
            )  # fmt: skip
            # the SDK's http client (its transport); a stream is read as the kernel reads it
            response = client._client.send(request, stream=True)
            headers = list(response.headers.multi_items())
            if response.status_code < 400 and response.headers.get(
                    "content-type", "").startswith("text/event-stream"):
                return {"status": response.status_code, "headers": headers,
                        "stream": self._opened_stream(response)}
            body = response.read()
        except Exception as e:
            return {"raised": self.exception_out(e)}
        if response.status_code >= 400:
            headers.append(("x-looplab-tag", str(self.handles.tag((client, response)))))
        return {"status": response.status_code, "headers": headers,
                "body": base64.b64encode(body).decode()}  # fmt: skip

    def _opened_stream(self, response: httpx2.Response) -> int:
        """Keep `response` open for the kernel to read (`_read`); its number."""
        with self._lock:
            self._streamed += 1
            self._streams[self._streamed] = (response, response.iter_raw())
            while len(self._streams) > MAX_STREAMS:
                oldest = min(self._streams)
                self._streams.pop(oldest)[0].close()
            return self._streamed

    def _read(self, message: dict[str, Any]) -> dict[str, Any]:
        """The next piece of an open stream, as its transport sends it; `done` at its end.
        A live stream arrives event by event: read here only when the kernel asks, so the
        check's clock moves as the student's code reads."""
        with self._lock:
            found = self._streams.get(message.get("stream"))  # type: ignore[arg-type]
        if found is None:
            return {"raised": {"type": "LookupError", "message": "no such stream"}}
        response, pieces = found
        try:
            piece = next(pieces, None)
        except Exception as e:
            piece = None
            error: dict[str, Any] | None = {"raised": self.exception_out(e)}
        else:
            error = None
        if piece is None:
            with self._lock:
                self._streams.pop(message.get("stream"), None)  # type: ignore[arg-type]
            response.close()
            return error or {"done": True}
        return {"chunk": base64.b64encode(piece).decode()}

    def exception_in(self, info: Any) -> Exception:
        """The exception the kernel reported: the grader's own when it came from here."""
        if not isinstance(info, dict):
            return remote_exception("Exception", "the kernel sent no exception")
        found = self.handles.tags.get(info.get("tag"))  # type: ignore[arg-type]
        if isinstance(found, Exception):
            return found
        if isinstance(found, tuple):
            client, response = found
            error: Exception = client._make_status_error_from_response(response)
            return error
        return remote_exception(str(info.get("type")), str(info.get("message", "")))

    def run(self, job: dict[str, Any], session: Session, until: float) -> tuple[Any, Outcome]:
        """Run `job` in the kernel; (its result or None, how the request ended)."""
        with self._lock:
            self._job = {**job, "job": secrets.token_hex(8)}
            self._result = None
        try:
            left = until - time.monotonic()
            if left <= 0:
                return None, Outcome("interrupted")
            code = SERVE.format(path=self.path, token=self.token)
            outcome = session.execute(code, left, silent=True)
        finally:
            with self._lock:
                self._job, result = None, self._result
                streams, self._streams = list(self._streams.values()), {}
            for response, _ in streams:
                response.close()
        return result, outcome
