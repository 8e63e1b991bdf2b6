"""`make lab` as a student starts it, on a port they chose and with options of their own:
JupyterLab comes up with looplab's settings, and its kernels talk to it over Unix sockets,
without ipykernel's warning about unencrypted TCP and without a file in the lessons' folder."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
from tornado.websocket import websocket_connect

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "looplab-make-lab-test"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"
WIDGETS = "@jupyter-widgets/jupyterlab-manager:plugin"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _api(url: str, method: str = "GET") -> Any:
    request = urllib.request.Request(url, method=method,
                                     headers={"Authorization": f"token {TOKEN}"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=5) as r:
        body = r.read()
        return json.loads(body) if body else None


def _until(what: str, get: Any, seconds: float, log: Path, process: Any) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            found = get()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            found = None
        if found:
            return found
        time.sleep(0.25)
    pytest.fail(f"{what} within {seconds} s:\n{log.read_text(errors='replace')}")


async def _run_in_kernel(port: int, kernel_id: str, code: str) -> str:
    """Run `code` in the kernel the way JupyterLab does, through the server's websocket;
    return what it printed."""
    url = f"ws://127.0.0.1:{port}/api/kernels/{kernel_id}/channels?token={TOKEN}"
    ws = await websocket_connect(url)
    msg_id = uuid.uuid4().hex
    header = {"msg_id": msg_id, "msg_type": "execute_request", "username": "test",
              "session": uuid.uuid4().hex, "date": "", "version": "5.3"}
    await ws.write_message(json.dumps({
        "header": header, "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False}}))  # fmt: skip
    printed = ""
    while True:
        raw = await asyncio.wait_for(ws.read_message(), timeout=60)
        assert isinstance(raw, str), "the server closed the kernel's websocket"
        message = json.loads(raw)
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "stream":
            printed += message["content"]["text"]
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            ws.close()
            return printed


def test_make_lab_on_a_chosen_port_with_options_and_quiet_kernels(tmp_path: Path) -> None:
    port, notebooks = _free_port(), ROOT / "notebooks"
    before = sorted(notebooks.rglob("*"))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "IPYTHONDIR": str(tmp_path / "ip")}
    lab_args = (f"--no-browser --IdentityProvider.token={TOKEN} "
                f"--LabApp.user_settings_dir={tmp_path / 'user'} "
                f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}")  # fmt: skip
    # the environment this test runs in, never re-installed by make (-o: take it as done)
    stamp = Path(sys.prefix) / ".looplab-installed"
    command = ["make", "-s", "-o", str(stamp), "lab", f"STAMP={stamp}",
               f"BIN={Path(sys.executable).parent}", f"PORT={port}", f"LAB_ARGS={lab_args}"]
    log = tmp_path / "lab.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _until("JupyterLab answering on PORT", lambda: _api(f"{url}/api/status"), 60, log,
               process)
        settings = _api(f"{url}/lab/api/settings/{NOTIFICATION}")["schema"]["properties"]
        assert settings["fetchNews"]["default"] == "false"
        assert settings["checkForUpdates"]["default"] is False
        widgets = _api(f"{url}/lab/api/settings/{WIDGETS}")["schema"]["properties"]
        assert widgets["saveState"]["default"] is True
        kernel = _api(f"{url}/api/kernels", method="POST")
        printed = asyncio.run(_run_in_kernel(port, kernel["id"], "print(6 * 7)"))
        assert printed == "42\n", log.read_text(errors="replace")
        _api(f"{url}/api/kernels/{kernel['id']}", method="DELETE")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    output = log.read_text(errors="replace")
    assert "without encryption" not in output
    assert f":{port}/lab" in output
    assert sorted(notebooks.rglob("*")) == before  # no socket files among the lessons
