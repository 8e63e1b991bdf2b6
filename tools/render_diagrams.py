"""Draw the lessons' mermaid diagrams as SVG for the docs site: docs/diagrams/<key>.svg.

    python tools/render_diagrams.py                  # mermaid from the npm registry
    python tools/render_diagrams.py --mermaid FILE   # a mermaid.min.js you already have

JupyterLab draws a ```mermaid block in a lesson itself; the docs site shows the SVG drawn
here instead (docs/_ext/diagrams.py says why). Run this after changing a diagram, in either
edition, and commit docs/diagrams/: `make test` fails while a diagram has no SVG. It needs
npm (to fetch mermaid, unless --mermaid is given) and Debian's Chromium, and is run by hand,
never by `make docs` or `make test`. SVGs no lesson uses any more are removed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from diagrams import DIAGRAMS, diagram_key  # noqa: E402

MERMAID = "mermaid@11.17.2"
CHROMIUM = "/usr/bin/chromium"
FENCE = re.compile(r"^```mermaid[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
# the diagram's look: mermaid's default theme, with a font every reader's system has
CONFIG = {"startOnLoad": False, "theme": "default", "securityLevel": "strict",
          "fontFamily": "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', "
                        "'Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei', sans-serif"}


def lesson_diagrams(notebooks: Path) -> dict[str, str]:
    """Every mermaid block in the lessons of every edition, by its key."""
    found = {}
    for notebook in sorted([*notebooks.glob("[0-9][0-9]_*.ipynb"),
                            *notebooks.glob("*/[0-9][0-9]_*.ipynb")]):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                for source in FENCE.findall("".join(cell["source"])):
                    found[diagram_key(source)] = source.strip()
    return found


def fetch_mermaid(folder: Path) -> Path:
    subprocess.run(["npm", "pack", "--silent", MERMAID], cwd=folder, check=True,
                   stdout=subprocess.DEVNULL)
    (archive,) = folder.glob("mermaid-*.tgz")
    with tarfile.open(archive) as tar:
        tar.extract("package/dist/mermaid.min.js", folder, filter="data")
    return folder / "package" / "dist" / "mermaid.min.js"


def render(diagrams: dict[str, str], script: Path) -> dict[str, str]:
    from playwright.sync_api import sync_playwright

    svgs = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        page.set_content("<!doctype html><html><body></body></html>")
        page.add_script_tag(path=str(script))
        page.evaluate("config => mermaid.initialize(config)", CONFIG)
        for key, source in diagrams.items():
            svgs[key] = page.evaluate(
                "async ([id, source]) => (await mermaid.render(id, source)).svg",
                [f"diagram-{key}", source])
        browser.close()
    return svgs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--mermaid", type=Path, help="mermaid.min.js (default: from npm)")
    args = parser.parse_args()
    diagrams = lesson_diagrams(args.notebooks)
    DIAGRAMS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        script = args.mermaid or fetch_mermaid(Path(tmp))
        for key, svg in render(diagrams, script).items():
            # mermaid writes coordinates to 1e-13 px; two decimals draw the same picture
            svg = re.sub(r"(\d\.\d\d)\d+", r"\1", svg)
            (DIAGRAMS / f"{key}.svg").write_text(svg + "\n", encoding="utf-8")
    for stale in DIAGRAMS.glob("*.svg"):
        if stale.stem not in diagrams:
            stale.unlink()
    print(f"{len(diagrams)} diagrams in {DIAGRAMS.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
