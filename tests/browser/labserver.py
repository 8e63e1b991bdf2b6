"""Servers on 127.0.0.1 for the browser tests and the benchmarks: JupyterLab on a folder,
and a folder of static files (a built site)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "looplab-browser-test"
SERVER_START_S = 40
LAB_SETTINGS = ROOT / "tools" / "lab" / "overrides.d" / "looplab.json"


class ServerError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for_server(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerError(f"jupyter lab exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    raise ServerError(f"jupyter lab did not answer within {SERVER_START_S} s:\n{log.read_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server and its kernels (they share the session started for it)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # any kernel left behind
    except ProcessLookupError:
        pass
    process.wait(timeout=10)


@contextmanager
def jupyter_lab(root: Path, tmp_path: Path) -> Iterator[str]:
    """A JupyterLab server on a free loopback port, serving `root`; its settings, config and
    log in `tmp_path`. Yields its address (no trailing "/"); the token is TOKEN."""
    settings = tmp_path / "settings"
    settings.mkdir()
    overrides = {
        # what `make lab` sets (no "get notified about Jupyter news?" toast over the page
        # among them), then what the tests need
        **json.loads(LAB_SETTINGS.read_text(encoding="utf-8")),
        # every cell in the page, not only those scrolled into view
        "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
    }
    (settings / "overrides.json").write_text(json.dumps(overrides))
    env = {
        **os.environ,
        # keep the user's Jupyter/IPython config and state out of the test
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "IPYTHONDIR": str(tmp_path / "ipython"),
    }
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        f"--LabServerApp.app_settings_dir={settings}",
        f"--LabApp.user_settings_dir={tmp_path / 'user-settings'}",
        f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and CI run as root
    log = tmp_path / "jupyter.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for_server(url, process, log)
        yield url
    finally:
        _stop(process)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript",
                      ".js": "text/javascript", ".json": "application/json"}

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """`folder` on a free loopback port; yields its address, ending in "/"."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
