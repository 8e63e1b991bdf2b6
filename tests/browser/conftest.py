"""JupyterLab on 127.0.0.1 and headless Chromium via Playwright, for the browser tests.

The notebooks here are opened by the tests in a real browser, not compared by nbval.
Everything skips when the `playwright` package or a system Chromium is missing (no browser
is ever downloaded). Every wait has a timeout, and the server is always stopped.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

collect_ignore_glob = ["*.ipynb"]

HERE = Path(__file__).parent
SERVER_START_S = 40
# a laptop screen: what a class has
VIEWPORT = {"width": 1024, "height": 768}


def _chromium() -> str | None:
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


try:
    from labpage import TOKEN, WAIT_MS
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    SKIP = "the playwright package is missing: pip install -e '.[test]'"
else:
    SKIP = (
        ""
        if _chromium()
        else "no Chromium found (/usr/bin/chromium or `chromium` on PATH); "
        "on Debian/Ubuntu: apt-get install chromium"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if SKIP:
        for item in items:
            if HERE in Path(str(item.fspath)).parents:
                item.add_marker(pytest.mark.skip(reason=SKIP))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for_server(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"jupyter lab exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    pytest.fail(f"jupyter lab did not answer within {SERVER_START_S} s:\n{log.read_text()}")


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


@pytest.fixture
def lab_root(tmp_path: Path) -> Path:
    """The folder the server serves; tests put their notebooks in it."""
    root = tmp_path / "root"
    root.mkdir()
    return root


@pytest.fixture
def lab_url(tmp_path: Path, lab_root: Path) -> Iterator[str]:
    """A JupyterLab server on a free loopback port, serving `lab_root`."""
    settings = tmp_path / "settings"
    settings.mkdir()
    overrides = {
        # no "get notified about Jupyter news?" toast over the page
        "@jupyterlab/apputils-extension:notification": {
            "checkForUpdates": False,
            "fetchNews": "false",
        },
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
        f"--ServerApp.root_dir={lab_root}",
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


@pytest.fixture
def page(lab_url: str) -> Iterator[Page]:
    """A 1024×768 Chromium page on the server; `open_notebook` points it at a notebook."""
    chromium = _chromium()
    assert chromium is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium,
            args=[
                "--no-sandbox",  # root in containers; the page is a local test server
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
            ],
        )
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(WAIT_MS)
            yield page
        finally:
            browser.close()
