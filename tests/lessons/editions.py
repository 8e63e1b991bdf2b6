"""The two editions of the lessons, paired by number: `notebooks/NN_*.ipynb` and its Chinese
twin `notebooks/zh-CN/NN_*.ipynb`, whose file name is in Chinese (its tab in JupyterLab)."""

from __future__ import annotations

from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LESSON_GLOB = "[0-9][0-9]_*.ipynb"
LESSONS = sorted(NOTEBOOKS.glob(LESSON_GLOB))


def chinese(lesson: Path | str, folder: Path = NOTEBOOKS / "zh-CN") -> Path:
    """The lesson in `folder` with the number of `lesson` (a path, a file name or "06")."""
    number = Path(lesson).name[:2]
    found = sorted(folder.glob(f"{number}_*.ipynb"))
    assert len(found) == 1, f"{folder}: {len(found)} lessons numbered {number}, not one"
    return found[0]
