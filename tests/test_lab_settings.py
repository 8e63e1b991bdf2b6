"""What looplab sets in JupyterLab (tools/lab/overrides.d/looplab.json) names real settings,
and every way JupyterLab starts gets them: `make lab`, and `jupyter lab notebooks/` in an
environment looplab is installed in (the package installs the file there).

A lesson a student runs, saves, closes and reopens must still show its widgets: the widget
manager writes their state into the notebook on save only when `saveState` is on. A setting
under a plugin id or a key JupyterLab does not know is ignored without a word, so each
one is checked against the schema the installed extension ships."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from jupyterlab_server.settings_utils import _get_overrides

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ROOT / "tools" / "lab" / "overrides.d" / "looplab.json"
OVERRIDES = json.loads(SETTINGS.read_text(encoding="utf-8"))
# Where JupyterLab reads an environment's settings (LabApp.app_settings_dir's default),
# each package's own file in overrides.d/
INSTALLED = "share/jupyter/lab/settings/overrides.d"
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


def test_no_news_popup_covers_a_lesson() -> None:
    notification = OVERRIDES["@jupyterlab/apputils-extension:notification"]
    assert notification == {"checkForUpdates": False, "fetchNews": "false"}


def test_make_lab_reads_the_file_the_package_installs() -> None:
    """`make lab` points JupyterLab's settings folder at tools/lab; JupyterLab reads it
    (its own reader, as the server calls it) and finds the settings."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--LabServerApp.app_settings_dir=tools/lab " in makefile
    overrides, error = _get_overrides(str(ROOT / "tools" / "lab"))
    assert (overrides, error) == (OVERRIDES, "")


def test_the_package_installs_the_settings_where_any_jupyterlab_reads_them() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data_files = project["tool"]["setuptools"]["data-files"]
    assert data_files == {INSTALLED: [str(SETTINGS.relative_to(ROOT))]}


def test_the_conda_environment_installs_looplab_with_its_data_files() -> None:
    """An editable install (`pip install -e`) installs no data files: conda's environment
    installs looplab as a package, so `jupyter lab notebooks/` reads its settings."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip == [".[docs,lab,lite,test]"]
