"""Gradescope's zip (`make autograder`) and the GitHub Classroom workflow: what they run is
a command `looplab-grade` accepts, and the zip holds what Gradescope and pip need."""

from __future__ import annotations

import shlex
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

from looplab.grading.cli import parser
from looplab.grading.points import load_points

REPO = Path(__file__).resolve().parents[2]


def _command(script: str) -> list[str]:
    """The arguments of the `looplab-grade` line of a shell script."""
    (line,) = [line for line in script.splitlines() if "looplab-grade " in line]
    words = shlex.split(line)
    return words[[w.endswith("looplab-grade") for w in words].index(True) + 1 :]


def test_make_autograder_builds_the_zip_gradescope_takes(tmp_path: Path) -> None:
    assert "autograder:" in (REPO / "Makefile").read_text()
    out = tmp_path / "autograder.zip"
    subprocess.run([sys.executable, str(REPO / "tools/build_autograder.py"), "--out", str(out)],
                   check=True, capture_output=True)  # fmt: skip
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        assert {"setup.sh", "run_autograder", "points.toml", "pyproject.toml",
                "constraints.txt", "src/looplab/grading/cli.py",
                "notebooks/06_token_growth.ipynb"} <= names  # fmt: skip
        assert not any(n.startswith((".venv/", "build/")) or "__pycache__" in n for n in names)
        chinese = sorted(p.relative_to(REPO).as_posix()
                         for p in (REPO / "notebooks/zh-CN").glob("[0-9][0-9]_*.ipynb"))
        assert chinese and set(chinese) <= names  # their names in UTF-8, flagged as such
        assert all(zf.getinfo(name).flag_bits & 0x800 for name in chinese)
        for name in ("setup.sh", "run_autograder"):
            assert stat.S_IMODE(zf.getinfo(name).external_attr >> 16) == 0o755
        run = zf.read("run_autograder").decode()
        points = tmp_path / "points.toml"
        points.write_bytes(zf.read("points.toml"))
    args = parser().parse_args(_command(run))
    assert args.gradescope_root == Path("/autograder") and args.points == Path("points.toml")
    assert load_points(points).lessons == {"03_stop_reason_is_the_fork": 20.0,
                                           "06_token_growth": 30.0}  # fmt: skip


def test_the_classroom_workflow_grades_each_push_with_looplab_grade() -> None:
    flow = yaml.safe_load((REPO / "tools/classroom/looplab-grade.yml").read_text())
    assert "push" in flow[True]  # YAML 1.1 reads the key `on` as True
    steps = flow["jobs"]["grade"]["steps"]
    (grade,) = [s for s in steps if "looplab-grade " in s.get("run", "")]
    args = parser().parse_args(_command(grade["run"]))
    assert args.gradescope_root == Path(".") and args.lessons == Path("looplab/notebooks")
    assert (REPO / str(args.points).removeprefix("looplab/")).is_file()
    assert any("results/results.json" in s.get("run", "") for s in steps)
