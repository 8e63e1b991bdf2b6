"""The widgets in a real browser, on a 1024×768 screen: they render, step, and fit.

Opens `lab_demo.ipynb`, runs all cells, and checks what a student sees: the turn viewer's
buttons and gate meters on screen together, text that breaks only at spaces and long
results that scroll in their own box; LiveRun's Step; the token explorer redrawing in place
when a slider is let go; the quiz marking the chosen answer with its score in view; a
scorecard aligned left. Screenshots go to `artifacts/`.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from labpage import (
    RUN_ALL_MS,
    assert_on_screen,
    box,
    command,
    open_notebook,
    screenshot,
    scroll_to_top,
)
from playwright.sync_api import Locator, Page, expect

HERE = Path(__file__).parent
NOTEBOOK = "lab_demo.ipynb"


def run_demo(page: Page, lab_url: str, lab_root: Path) -> Locator:
    shutil.copy(HERE / NOTEBOOK, lab_root / NOTEBOOK)
    open_notebook(page, lab_url, NOTEBOOK)
    command(page, "notebook:run-all-cells")
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    expect(cells).to_have_count(7)
    # the last cell's output is there once every cell has run
    expect(cells.nth(6).locator("td").first).to_be_visible(timeout=RUN_ALL_MS)
    return cells


def test_widgets_render_step_and_fit_a_laptop_screen(
    page: Page, lab_url: str, lab_root: Path
) -> None:
    cells = run_demo(page, lab_url, lab_root)
    check_turn_viewer(page, cells.nth(1))
    expect(cells.nth(2).locator(".jp-RenderedImage img")).to_be_visible()
    check_live_run(cells.nth(3))
    check_token_explorer(page, cells.nth(4))
    check_quiz(page, cells.nth(5))
    check_scorecard(cells.nth(6))

    notebook = page.locator(".jp-Notebook")
    expect(notebook).not_to_contain_text("Loading widget")
    expect(notebook).not_to_contain_text("Error displaying widget")
    expect(page.locator(".jp-OutputArea-output[data-mime-type*='error']")).to_have_count(0)


def check_turn_viewer(page: Page, viewer: Locator) -> None:
    turn = viewer.locator(".looplab-turn >> visible=true")
    expect(turn).to_have_attribute("data-turn", "1")
    expect(turn.locator(".looplab-stop-reason").first).to_have_text("tool_use")
    expect(turn.locator(".looplab-tool-result.looplab-error")).to_contain_text(
        "ValueError: no such city"
    )
    scroll_to_top(viewer)
    screenshot(page, "turn_viewer_1024x768.png")
    # the buttons and every gate meter at once, without scrolling
    meters = turn.locator(".looplab-gate")
    expect(meters).to_have_count(4)
    buttons = [viewer.get_by_role("button", name=n) for n in ("◀ prev", "next ▶")]
    assert_on_screen(page, *buttons, *meters.all())

    # lines break at spaces only: JupyterLab's `pre { word-break: break-all }` does not win
    for element in [*turn.locator("pre").all(), turn.locator(".looplab-text")]:
        style = element.evaluate(
            "e => [getComputedStyle(e).wordBreak, getComputedStyle(e).overflowWrap]"
        )
        assert style == ["normal", "normal"], element
    # a long result scrolls in a box of capped height; its over-long word scrolls sideways
    forecast = turn.locator(".looplab-tool-result", has_text="day 40").locator("pre")
    height, full, width, full_width = forecast.evaluate(
        "e => [e.clientHeight, e.scrollHeight, e.clientWidth, e.scrollWidth]"
    )
    assert height < 0.4 * 768 and full > 2 * height
    assert full_width > width  # the URL is not broken up
    # tool_use and tool_result stack when the page is narrow (here: beside the file browser)
    pair = turn.locator(".looplab-pair").first
    use, result = box(pair.locator(".looplab-tool-use")), box(pair.locator(".looplab-tool-result"))
    assert result["y"] >= use["y"] + use["height"] - 1

    viewer.get_by_role("button", name="next ▶").click()
    turn = viewer.locator(".looplab-turn >> visible=true")
    expect(turn).to_have_attribute("data-turn", "2")
    expect(turn.locator(".looplab-tool-result")).to_contain_text("Paris: 24°C, sunny")


def check_live_run(live: Locator) -> None:
    expect(live.locator(".looplab-turn >> visible=true")).to_contain_text("no turns yet")
    live.get_by_role("button", name="Step").click()
    expect(live.locator('.looplab-turn[data-turn="1"]')).to_be_visible()
    expect(live.locator(".widget-output")).to_contain_text("turn 1: stop_reason tool_use")
    live.get_by_role("button", name="Step").click()
    turn = live.locator('.looplab-turn[data-turn="2"]')
    expect(turn).to_be_visible()
    expect(turn.locator(".looplab-tool-result")).to_contain_text("Paris: 24°C, sunny")
    live.get_by_role("button", name="Run to end").click()
    expect(live.locator(".looplab-run-status")).to_have_text("done")
    expect(
        live.locator(".looplab-turn >> visible=true").locator(".looplab-stop-reason")
    ).to_have_text("end_turn")


def check_token_explorer(page: Page, explorer: Locator) -> None:
    scroll_to_top(explorer)
    image = explorer.locator("img.widget-image")
    expect(image).to_be_visible()
    image.evaluate("e => { e.dataset.probe = 'the same element'; }")
    before, height = image.get_attribute("src"), box(explorer)["height"]
    handle = explorer.locator(".widget-slider").nth(2).locator(".noUi-handle")
    # dragging does not redraw; letting go does, in place: same image element, same height
    grip = box(handle)
    page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2)
    page.mouse.down()
    page.mouse.move(grip["x"] + 40, grip["y"] + grip["height"] / 2, steps=5)
    page.wait_for_timeout(1_500)
    assert image.get_attribute("src") == before
    page.mouse.up()
    expect(image).not_to_have_attribute("src", before or "")
    assert image.evaluate("e => e.dataset.probe") == "the same element"
    assert abs(box(explorer)["height"] - height) <= 1
    expect(explorer.locator(".widget-html pre")).not_to_contain_text("N=10 ")
    screenshot(page, "token_explorer_1024x768.png")


def check_quiz(page: Page, quiz: Locator) -> None:
    expect(quiz.locator(".jp-OutputArea-output")).to_have_count(1)  # no static copy as well
    scroll_to_top(quiz)
    rows = quiz.locator(".widget-toggle-buttons")
    first_false = rows.nth(0).get_by_role("button", name="False")
    first_false.click()
    expect(first_false).to_have_class(re.compile(r"\bmod-active\b"))
    colour = first_false.evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour == "rgb(31, 95, 168)"  # filled: the chosen answer stands out
    score = quiz.get_by_text("Score: 1 right")
    expect(score).to_be_visible()
    # answering far down the list: the score line is still on screen
    last_true = rows.nth(13).get_by_role("button", name="True")
    last_true.scroll_into_view_if_needed()
    last_true.click()
    expect(quiz.get_by_text("Score: 1 right (2 of 14 answered)")).to_be_visible()
    assert_on_screen(page, last_true, quiz.get_by_text("Score: 1 right"))
    screenshot(page, "quiz_1024x768.png")


def check_scorecard(card: Locator) -> None:
    aligned = card.locator("td").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c).textAlign)"
    )
    assert aligned and set(aligned) == {"left"}, aligned
