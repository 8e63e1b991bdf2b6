"""Re-execute lessons in place so the outputs nbval compares against are current.

    python tools/run_notebooks.py                      # every notebooks/NN_*.ipynb
    python tools/run_notebooks.py notebooks/05_*.ipynb # some of them
    python tools/run_notebooks.py notebooks/05_*.ipynb --into DIR  # run copies, into DIR

Written for `make notebooks`. Two runs of an unchanged lesson give byte-identical files:
- print output is coalesced into one stream per cell (the kernel may split it anywhere);
- no timing metadata;
- the state of every widget a cell shows is saved in the notebook's metadata, so a lesson
  opened (and saved) in JupyterLab shows its widgets without being run again. Widget model
  ids, random uuids on every run, are replaced by ids made from the lesson's name, the cell
  that created the model and its rank there; models that no output shows are left out.

Cells tagged `skip-execution` (live-API cells) are left as they are. Each kernel talks to this
process over Unix sockets in a folder of its own (not over TCP, which has ipykernel warn that
anyone on the machine could read the traffic).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
REF = "IPY_MODEL_"  # how one widget's state names another
LINKS = ("LinkModel", "DirectionalLinkModel")  # jslink/jsdlink: shown by no output, yet needed
ROOT = Path(__file__).resolve().parents[1]


class _Client(NotebookClient):
    """Also records, for each widget model, the cell that created it and its rank there."""

    def __init__(self, nb: nbformat.NotebookNode, **kw: Any) -> None:
        super().__init__(nb, **kw)
        self.created_in: dict[str, tuple[int, int]] = {}
        self._per_cell: Counter[int] = Counter()

    def handle_comm_msg(self, outs: Any, msg: dict[str, Any], cell_index: int) -> None:
        if msg["msg_type"] == "comm_open":
            comm_id = msg["content"]["comm_id"]
            self.created_in.setdefault(comm_id, (cell_index, self._per_cell[cell_index]))
            self._per_cell[cell_index] += 1
        super().handle_comm_msg(outs, msg, cell_index)


def _model_refs(value: Any) -> Iterator[str]:
    """Every model id that `value` (a widget state or a list of outputs) refers to."""
    if isinstance(value, str) and value.startswith(REF):
        yield value[len(REF) :]
    elif isinstance(value, list):
        for item in value:
            yield from _model_refs(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == WIDGET_VIEW and isinstance(item, dict) and "model_id" in item:
                yield item["model_id"]
            else:
                yield from _model_refs(item)


def _renamed(value: Any, ids: dict[str, str]) -> Any:
    """`value` with every model id in it replaced by `ids[...]` (unknown ids stay)."""
    if isinstance(value, str) and value.startswith(REF):
        return REF + ids.get(value[len(REF) :], value[len(REF) :])
    if isinstance(value, list):
        return [_renamed(item, ids) for item in value]
    if isinstance(value, dict):
        if "model_id" in value and "version_major" in value:  # a widget view
            return {**value, "model_id": ids.get(value["model_id"], value["model_id"])}
        return {key: _renamed(item, ids) for key, item in value.items()}
    return value


def _shown_models(state: dict[str, Any], roots: list[str]) -> list[str]:
    """The models the outputs show and all they refer to, plus the links between them."""
    seen: dict[str, None] = {}
    todo = list(reversed(roots))
    while todo:
        model = todo.pop()
        if model in seen or model not in state:
            continue
        seen[model] = None
        todo.extend(reversed(list(_model_refs(state[model]["state"]))))
    for model, entry in state.items():
        refs = set(_model_refs(entry["state"]))
        if entry["model_name"] in LINKS and refs and refs <= seen.keys():
            seen[model] = None
    return list(seen)


def _without_unset_style(entry: dict[str, Any]) -> dict[str, Any]:
    """A Layout or Style model's entry without its unset (None) properties.

    Unset is their default in the browser too, and they are most of a lesson's saved state.
    """
    name = entry["model_name"]
    if name != "LayoutModel" and not name.endswith("StyleModel"):
        return entry
    return {**entry, "state": {k: v for k, v in entry["state"].items() if v is not None}}


def stable_widgets(nb: nbformat.NotebookNode, name: str, created_in: dict[str, Any]) -> None:
    """Keep the state of the widgets the outputs show, under ids that are the same every run."""
    saved = nb.metadata.pop("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    roots = [ref for cell in nb.cells for ref in _model_refs(cell.get("outputs", []))]
    ids: dict[str, str] = {}
    for model in _shown_models(saved, roots):
        where = ":".join(map(str, created_in.get(model, ("?", len(ids)))))
        ids[model] = hashlib.sha1(f"{name}:{where}".encode()).hexdigest()[:32]
    for c, cell in enumerate(nb.cells):
        for o, output in enumerate(cell.get("outputs", [])):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None and view["model_id"] not in ids:  # no state was recorded
                ids[view["model_id"]] = hashlib.sha1(f"{name}:{c}:{o}".encode()).hexdigest()[:32]
        if "outputs" in cell:
            cell["outputs"] = nbformat.from_dict(_renamed(cell["outputs"], ids))
    state = {ids[m]: _renamed(_without_unset_style(saved[m]), ids) for m in ids if m in saved}
    if state:
        nb.metadata["widgets"] = nbformat.from_dict(
            {WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}}
        )


def kernel_manager(sockets: Path) -> AsyncKernelManager:
    """A local python3 kernel on the IPC transport, its sockets in the folder `sockets`
    (Windows, which has no IPC transport in ZeroMQ, keeps TCP)."""
    if os.name == "nt":
        return AsyncKernelManager(kernel_name="python3")
    # an absolute path: the kernel runs in the lesson's folder, this process elsewhere
    return AsyncKernelManager(kernel_name="python3", transport="ipc", ip=str(sockets / "kernel"))


def run(path: Path, dest: Path | None = None) -> None:
    """Execute the notebook at `path` (in its own folder); write it to `dest` (default: back)."""
    nb = read(path)
    with tempfile.TemporaryDirectory(prefix="looplab-kernel-") as sockets:
        client = _Client(
            nb,
            km=kernel_manager(Path(sockets)),
            timeout=600,
            record_timing=False,
            store_widget_state=True,
            coalesce_streams=True,
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute(cleanup_kc=True)  # a kernel manager passed in is not shut down else
    stable_widgets(nb, path.name, client.created_in)
    nbformat.write(nb, dest or path)


def read(path: Path) -> nbformat.NotebookNode:
    """The lesson at `path`; a file that is not one stops the command with one line
    naming it (not UTF-8, not JSON, not a notebook)."""
    try:
        return nbformat.read(path, as_version=4)
    except (OSError, ValueError, AttributeError, nbformat.ValidationError) as e:
        reason = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        raise SystemExit(f"{path}: not a notebook ({type(e).__name__}: {reason})") from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument(
        "--into", type=Path, help="write the run notebooks into this folder, not in place"
    )
    args = parser.parse_args()
    paths = args.notebooks or sorted(
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
    for path in paths:  # every lesson is read before any runs: a bad one stops nothing half-way
        read(path)
    for path in paths:
        print(f"running {path.name}", flush=True)
        run(path, args.into / path.name if args.into else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
