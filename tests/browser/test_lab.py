"""The widgets in a real browser: JupyterLab on 127.0.0.1, headless Chromium via Playwright.

Opens `lab_demo.ipynb`, runs all cells, checks that the widgets rendered, clicks LiveRun's
Step and sees the next turn appear, and saves a screenshot to `artifacts/lab.png`.
Skips when the `playwright` package or a system Chromium is missing (no browser is
ever downloaded). Every wait has a timeout, and the server is always stopped.
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

HERE = Path(__file__).parent
NOTEBOOK = "lab_demo.ipynb"
ARTIFACTS = HERE / "artifacts"
TOKEN = "looplab-browser-test"
SERVER_START_S = 40
WAIT_MS = 20_000
# first import of looplab in the kernel (anthropic, jsonschema) on a busy machine
RUN_ALL_MS = 90_000


def _chromium() -> str | None:
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


try:
    from playwright.sync_api import Page, expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    pytestmark = pytest.mark.skip(
        reason="the playwright package is missing: pip install -e '.[test]'"
    )
else:
    if _chromium() is None:
        pytestmark = pytest.mark.skip(
            reason="no Chromium found (/usr/bin/chromium or `chromium` on PATH); "
            "on Debian/Ubuntu: apt-get install chromium"
        )


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


@pytest.fixture
def lab_url(tmp_path: Path) -> Iterator[str]:
    """A JupyterLab server on a free loopback port, serving a copy of the notebook."""
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(HERE / NOTEBOOK, root / NOTEBOOK)
    settings = tmp_path / "settings"
    settings.mkdir()
    # no "get notified about Jupyter news?" toast over the page
    overrides = {
        "@jupyterlab/apputils-extension:notification": {
            "checkForUpdates": False,
            "fetchNews": "false",
        }
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
def page(lab_url: str) -> Iterator[Page]:
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
            page = browser.new_page(viewport={"width": 1280, "height": 1600})
            page.set_default_timeout(WAIT_MS)
            page.goto(f"{lab_url}/lab/tree/{NOTEBOOK}?token={TOKEN}", timeout=WAIT_MS)
            yield page
        finally:
            browser.close()


def test_widgets_render_and_step_in_jupyterlab(page: Page) -> None:
    # the kernel is really connected before anything runs
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=RUN_ALL_MS)
    # fire and forget: returning the command's promise would wait with no timeout
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")

    cells = page.locator(".jp-Notebook .jp-CodeCell")
    expect(cells).to_have_count(4)
    viewer, plot, live = cells.nth(1), cells.nth(2), cells.nth(3)
    # the last cell's widget is up once every cell has run
    expect(live.locator(".looplab-turn")).to_contain_text("no turns yet", timeout=RUN_ALL_MS)

    # TurnViewer: the first turn, its badge and the paired, red is_error result
    expect(viewer.locator('.looplab-turn[data-turn="1"]')).to_be_visible()
    expect(viewer.locator(".looplab-stop-reason").first).to_have_text("tool_use")
    expect(viewer.locator(".looplab-tool-result.looplab-error")).to_contain_text(
        "ValueError: no such city"
    )
    viewer.get_by_role("button", name="next ▶").click()
    expect(viewer.locator('.looplab-turn[data-turn="2"]')).to_be_visible()
    expect(viewer.locator(".looplab-tool-result")).to_contain_text("Paris: 24°C, sunny")

    # the plot came out as an image
    expect(plot.locator(".jp-RenderedImage img")).to_be_visible()

    # LiveRun: one turn per click on Step
    live.get_by_role("button", name="Step").click()
    expect(live.locator('.looplab-turn[data-turn="1"]')).to_be_visible()
    expect(live.locator(".widget-output")).to_contain_text("turn 1: stop_reason tool_use")
    live.get_by_role("button", name="Step").click()
    expect(live.locator('.looplab-turn[data-turn="2"]')).to_be_visible()
    expect(live.locator(".looplab-tool-result")).to_contain_text("Paris: 24°C, sunny")
    live.get_by_role("button", name="Run to end").click()
    expect(live.locator(".looplab-run-status")).to_have_text("done")
    expect(live.locator(".looplab-stop-reason")).to_have_text("end_turn")

    notebook = page.locator(".jp-Notebook")
    expect(notebook).not_to_contain_text("Loading widget")
    expect(notebook).not_to_contain_text("Error displaying widget")
    expect(page.locator(".jp-OutputArea-output[data-mime-type*='error']")).to_have_count(0)

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lab.png"), full_page=True)
