"""`make autograder`: the zip Gradescope's autograder takes, built/autograder.zip.

It holds setup.sh and run_autograder (tools/gradescope/) at its top, the points file
(tools/gradescope/points.toml, or the one given), and what installs looplab with its
lessons: pyproject.toml, constraints.txt, README.md, src/ and notebooks/ (the lessons hold
the checks the grader runs). Files git ignores (.venv, caches, build/) are left out.

    python tools/build_autograder.py [--points FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HERE = REPO / "tools" / "gradescope"
TOP = ("setup.sh", "run_autograder")
INCLUDED = ("pyproject.toml", "constraints.txt", "README.md", "src", "notebooks")


def _tracked() -> list[str]:
    """The repository's files under INCLUDED that git does not ignore (tracked or new).
    `-z`: names as they are, not quoted (git quotes the Chinese lessons' names otherwise)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *INCLUDED],
        cwd=REPO, capture_output=True, text=True, encoding="utf-8", check=True,
    ).stdout  # fmt: skip
    return sorted(name for name in listed.split("\0") if name and (REPO / name).is_file())


def _add(zf: zipfile.ZipFile, source: Path, name: str) -> None:
    info = zipfile.ZipInfo.from_file(source, name)
    info.compress_type = zipfile.ZIP_DEFLATED
    if name in TOP:
        info.external_attr = 0o100755 << 16  # Gradescope runs them as they are
    zf.writestr(info, source.read_bytes())


def build(out: Path, points: Path = HERE / "points.toml") -> list[str]:
    """Write the zip to `out`; the names it holds."""
    out.parent.mkdir(parents=True, exist_ok=True)
    names = []
    with zipfile.ZipFile(out, "w") as zf:
        for name in TOP:
            _add(zf, HERE / name, name)
        _add(zf, points, "points.toml")
        for name in _tracked():
            _add(zf, REPO / name, name)
        names = zf.namelist()
    return names


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--points", type=Path, default=HERE / "points.toml")
    p.add_argument("--out", type=Path, default=REPO / "build" / "autograder.zip")
    args = p.parse_args(argv)
    names = build(args.out, args.points)
    print(f"{args.out}: {len(names)} files; upload it as the autograder of a Gradescope "
          "programming assignment")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
