"""The set-up files agree with each other, so conda users and `make` users get one package."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _floor(spec: str) -> tuple[int, ...]:
    match = re.search(r">=\s*(\d+(?:\.\d+)*)", spec)
    assert match, f"no lower bound in {spec!r}"
    return tuple(int(p) for p in match.group(1).split("."))


def test_environment_yml_matches_pyproject() -> None:
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    deps = env["dependencies"]
    python = next(d for d in deps if isinstance(d, str) and d.startswith("python"))
    assert _floor(python) == _floor(_pyproject()["project"]["requires-python"])

    pip_section = next(d["pip"] for d in deps if isinstance(d, dict) and "pip" in d)
    (looplab,) = [line for line in pip_section if line.startswith(".[")]
    extras = set(re.search(r"\[([^\]]*)\]", looplab).group(1).split(","))  # type: ignore[union-attr]
    assert extras == set(_pyproject()["project"]["optional-dependencies"])


def test_makefile_installs_the_same_extras_under_the_constraints() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    extras = set(_pyproject()["project"]["optional-dependencies"])
    assert f'-c constraints.txt -e ".[{",".join(sorted(extras))}]"' in makefile


def test_constraints_pin_every_runtime_dependency() -> None:
    pins = {
        line.split("==")[0].lower().replace("_", "-")
        for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line
    }
    for dep in _pyproject()["project"]["dependencies"]:
        name = re.split(r"[<>=!;\[ ]", dep, maxsplit=1)[0].lower()
        assert name in pins, f"{name} is not pinned in constraints.txt"


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line.startswith("make ")]
    assert all(f"`make {name}`" in readme for name in ("test", "slow", "browser"))
    assert commands[-3:] == ["make test", "make slow", "make browser"]


# The SDK whose requests and responses the lessons' stored outputs show: whatever installs
# looplab gets the version constraints.txt pins, or a patch release of it.
SDK = "anthropic"


def _pinned(name: str) -> str:
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.lower().startswith(f"{name}=="):
            return line.split("==")[1].strip()
    raise AssertionError(f"{name} is not pinned in constraints.txt")


def test_the_sdk_range_is_the_pinned_version_and_its_patch_releases() -> None:
    from packaging.requirements import Requirement
    from packaging.version import Version

    (requirement,) = [Requirement(d) for d in _pyproject()["project"]["dependencies"]
                      if Requirement(d).name == SDK]  # fmt: skip
    pinned = Version(_pinned(SDK))
    major, minor = pinned.release[:2]
    allowed = requirement.specifier
    assert pinned in allowed and Version(f"{major}.{minor}.{pinned.micro + 1}") in allowed
    assert Version(f"{major}.{minor + 1}.0") not in allowed, f"{SDK} {allowed} lets a newer SDK in"
