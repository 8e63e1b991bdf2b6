"""Add compiled bytecode to wheels: `python compile_wheels.py OUT_DIR WHEEL...`.

Each WHEEL is written to OUT_DIR with, beside every module, the
`__pycache__/<module>.<tag>.pyc` of the Python that runs this script (tag: cpython-314), and
those files in its RECORD. The browser edition runs it inside Pyodide (tools/lite/pyodide_run.mjs),
so the bytecode is Pyodide's own: importing anthropic there then reads 3,000 compiled modules
instead of compiling them on every first visit.

The .pyc files are "unchecked hash" ones (PEP 552): used whatever the sources' timestamps,
which unpacking a wheel does not keep. The sources stay, for tracebacks.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import sys
import zipfile
from importlib._bootstrap_external import _code_to_hash_pyc  # type: ignore[attr-defined]
from pathlib import Path, PurePosixPath


def pyc_name(source: str, beside: bool = False) -> str:
    """Where the import system looks for the bytecode of `source`: in __pycache__/, or in a
    zip on sys.path (zipimport) beside it, as `module.pyc`."""
    path = PurePosixPath(source)
    if beside:
        return str(path.with_suffix(".pyc"))
    return str(path.parent / "__pycache__" / f"{path.stem}.{sys.implementation.cache_tag}.pyc")


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def compile_wheel(wheel: Path, out: Path) -> int:
    """Write `wheel` (or a zip of modules, like Pyodide's python_stdlib.zip) with its modules'
    bytecode added to the folder `out`; how many."""
    added: list[str] = []
    beside = wheel.suffix == ".zip"
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(
            out / wheel.name, "w", zipfile.ZIP_DEFLATED) as target:
        record = next((n for n in source.namelist() if n.endswith(".dist-info/RECORD")), "")
        for info in source.infolist():
            data = source.read(info)
            if info.filename == record:
                continue
            target.writestr(info, data)
            if not info.filename.endswith(".py"):
                continue
            try:
                code = compile(data, info.filename, "exec", dont_inherit=True)
            except SyntaxError:  # a template or a file for another Python: left as it is
                continue
            pyc = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
            name = pyc_name(info.filename, beside)
            target.writestr(zipfile.ZipInfo(name, info.date_time), pyc, zipfile.ZIP_DEFLATED)
            added.append(record_line(name, pyc))
        if record:
            lines = source.read(record).decode().rstrip("\n").split("\n") + added
            target.writestr(source.getinfo(record), "\n".join(lines) + "\n")
    return len(added)


def main(args: list[str]) -> int:
    out, *wheels = map(Path, args)
    out.mkdir(parents=True, exist_ok=True)
    for wheel in wheels:
        print(f"{wheel.name}: {compile_wheel(wheel, out)} modules compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
