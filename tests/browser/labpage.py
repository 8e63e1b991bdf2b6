"""What the browser tests do in JupyterLab, in a few words each (the fixtures are in conftest)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from labserver import TOKEN
from playwright.sync_api import Locator, Page, expect

ARTIFACTS = Path(__file__).parent / "artifacts"

WAIT_MS = 20_000
# first import of looplab in the kernel (anthropic, jsonschema) on a busy machine
RUN_ALL_MS = 90_000
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# an output that JupyterLab shows as a widget (it gives such outputs no data-mime-type)
WIDGET_OUTPUT = ".jp-OutputArea-output > .jupyter-widgets"


def open_notebook(page: Page, lab_url: str, name: str) -> None:
    """Open `name` and wait until its kernel is connected."""
    page.goto(f"{lab_url}/lab/tree/{quote(name)}?token={TOKEN}", timeout=WAIT_MS)
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=RUN_ALL_MS)


def command(page: Page, name: str, args: dict[str, Any] | None = None) -> None:
    """Start a JupyterLab command (fire and forget: its promise may never settle)."""
    page.evaluate("([c, a]) => { window.jupyterapp.commands.execute(c, a); }", [name, args or {}])


def scroll_to_top(locator: Locator) -> None:
    """Scroll the notebook so that `locator` starts at the top of the window."""
    locator.evaluate("e => e.scrollIntoView({block: 'start'})")


def box(locator: Locator) -> dict[str, Any]:
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not laid out"
    return dict(found)


def assert_on_screen(page: Page, *locators: Locator) -> None:
    """Every locator is wholly inside the window, at the same scroll position."""
    size = page.viewport_size
    assert size is not None
    for locator in locators:
        b = box(locator)
        assert b["x"] >= 0 and b["x"] + b["width"] <= size["width"], (locator, b)
        assert b["y"] >= 0 and b["y"] + b["height"] <= size["height"], (locator, b)


def screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))
