"""What `make lab` sets in JupyterLab (tools/lab/overrides.json) names real settings.

A lesson a student runs, saves, closes and reopens must still show its widgets: the widget
manager writes their state into the notebook on save only when `saveState` is on. A setting
under a plugin id or a key JupyterLab does not know is ignored without a word, so each
one is checked against the schema the installed extension ships."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OVERRIDES = json.loads((ROOT / "tools" / "lab" / "overrides.json").read_text(encoding="utf-8"))
LABEXTENSIONS = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"


def schema(plugin_id: str) -> dict[str, object]:
    package, plugin = plugin_id.split(":")
    for base in (LABEXTENSIONS / package / "schemas", SCHEMAS):
        path = base / package / f"{plugin}.json"
        if path.exists():
            return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    pytest.skip(f"JupyterLab's schema for {plugin_id} is not installed here")


def test_widget_state_is_saved_with_the_notebook() -> None:
    assert OVERRIDES["@jupyter-widgets/jupyterlab-manager:plugin"]["saveState"] is True


@pytest.mark.parametrize("plugin_id", sorted(OVERRIDES))
def test_every_override_is_a_setting_the_plugin_has(plugin_id: str) -> None:
    properties = schema(plugin_id)["properties"]
    assert isinstance(properties, dict)
    unknown = set(OVERRIDES[plugin_id]) - set(properties)
    assert not unknown, f"{plugin_id} has no setting {sorted(unknown)}"
