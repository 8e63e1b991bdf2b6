"""Re-execute lessons in place so the outputs nbval compares against are current.

    python tools/run_notebooks.py                      # every notebooks/NN_*.ipynb
    python tools/run_notebooks.py notebooks/05_*.ipynb # some of them

Written for `make notebooks`. Two runs of an unchanged lesson give byte-identical files:
- print output is coalesced into one stream per cell (the kernel may split it anywhere);
- no timing metadata and no saved widget state (it is large, holds rendered PNGs and
  changes on every run; a reopened lesson is re-run anyway);
- widget model ids, random on every run, are replaced by ids derived from the cell's
  position. nbval never compares them; this only keeps `git diff` quiet.

Cells tagged `skip-execution` (live-API cells) are left as they are.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ROOT = Path(__file__).resolve().parents[1]


def stable_widget_ids(nb: nbformat.NotebookNode, name: str) -> None:
    for c, cell in enumerate(nb.cells):
        for o, output in enumerate(cell.get("outputs", [])):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None:
                view["model_id"] = hashlib.sha1(f"{name}:{c}:{o}".encode()).hexdigest()[:32]


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        record_timing=False,
        store_widget_state=False,
        coalesce_streams=True,
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    nb.metadata.pop("widgets", None)
    stable_widget_ids(nb, path.name)
    nbformat.write(nb, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    paths = parser.parse_args().notebooks or sorted(
        [*(ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"),
         *(ROOT / "notebooks" / "zh-CN").glob("[0-9][0-9]_*.ipynb")]
    )
    # Lessons must show the offline fake, whatever this shell has set.
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "LOOPLAB_LIVE", "LOOPLAB_API_KEY",
                 "LOOPLAB_BASE_URL", "LOOPLAB_MODEL", "MPLBACKEND"):
        os.environ.pop(name, None)
    # English lessons speak English whatever this machine's locale; the Chinese lessons
    # choose their language in their first cell.
    os.environ["LOOPLAB_LANG"] = "en"
    for path in paths:
        print(f"running {path.name}", flush=True)
        run(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
