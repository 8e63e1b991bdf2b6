"""`make autograder`: the zip Gradescope's autograder takes, built/autograder.zip.

It holds setup.sh and run_autograder (tools/gradescope/) at its top, the points file
(tools/gradescope/points.toml, or the one given), and what installs looplab with the
lessons' checks: pyproject.toml, constraints.txt, src/ and notebooks/, and no solution.
Each lesson is shipped as its student copy (what `make exercises` writes, made afresh
here, never read from notebooks/exercises/, which may hold a teacher's answers): the copy
keeps every check cell the grader reads, and a student's code in a container without user
namespaces (no sandbox) finds no solution to read. The README is a short one for the same
reason: the project's own quotes the solution markers. Files git ignores (.venv, caches,
build/) are left out.

    python tools/build_autograder.py [--points FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import re
import runpy
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HERE = REPO / "tools" / "gradescope"
TOP = ("setup.sh", "run_autograder")
INCLUDED = ("pyproject.toml", "constraints.txt", "src", "notebooks")
LESSON = re.compile(r"notebooks/(?:([^/]+)/)?[0-9][0-9]_[^/]*\.ipynb")
README = (
    "# looplab, as Gradescope's autograder\n\nThe grader and the student copies of the "
    "lessons (their checks, no solutions); the lessons themselves are in the looplab "
    "repository.\n"
)


def _tracked() -> list[str]:
    """The repository's files under INCLUDED that git does not ignore (tracked or new).
    `-z`: names as they are, not quoted (git quotes the Chinese lessons' names otherwise)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *INCLUDED],
        cwd=REPO, capture_output=True, text=True, encoding="utf-8", check=True,
    ).stdout  # fmt: skip
    return sorted(
        name for name in listed.split("\0")
        if name and (REPO / name).is_file() and "/exercises/" not in name
    )  # fmt: skip


def _student_copy(name: str) -> bytes | None:
    """A lesson's student copy as `make exercises` writes it, None for a lesson with no
    exercise (nothing to take out) and for a file that is not a lesson."""
    found = LESSON.fullmatch(name)
    if found is None:
        return None
    tool = runpy.run_path(str(REPO / "tools" / "make_exercises.py"))
    copy = tool["make_exercise"](tool["_read"](REPO / name), Path(name).name,
                                 found.group(1) or "en")  # fmt: skip
    return None if copy is None else str(tool["stamped"](copy)).encode("utf-8")


def _add(zf: zipfile.ZipFile, source: Path, name: str, data: bytes | None = None) -> None:
    info = zipfile.ZipInfo.from_file(source, name)
    info.compress_type = zipfile.ZIP_DEFLATED
    if name in TOP:
        info.external_attr = 0o100755 << 16  # Gradescope runs them as they are
    zf.writestr(info, source.read_bytes() if data is None else data)


def build(out: Path, points: Path = HERE / "points.toml") -> list[str]:
    """Write the zip to `out`; the names it holds."""
    out.parent.mkdir(parents=True, exist_ok=True)
    names = []
    with zipfile.ZipFile(out, "w") as zf:
        for name in TOP:
            _add(zf, HERE / name, name)
        _add(zf, points, "points.toml")
        _add(zf, REPO / "README.md", "README.md", README.encode("utf-8"))
        for name in _tracked():
            _add(zf, REPO / name, name, _student_copy(name))
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
