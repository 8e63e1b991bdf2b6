"""A kernel cannot starve the grader: floods of connections and of bytes at its socket.

The grader runs as a teacher's would, `looplab-grade` in a process of its own, here with
only 1,024 open files; a kernel allowed 4,096 (`--open-files`) opens 1,100 connections
to the grader, another sends 40 lines of 31 MB with no newline (with the token it stole,
and without). The gradebook is complete, the flooders get `error` with the bound named, the
honest neighbour passes, the grader never holds the floods in memory, and no scratch folder
is left behind.
"""

from __future__ import annotations

import csv
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, SOLVED, STUB, Cell, check, write_notebook

from looplab.grading.jail import jail_for

pytestmark = pytest.mark.slow  # seconds each: `make quick` leaves them out

SOCKET = "os.path.join(os.path.dirname(os.environ['HOME']), 'wire.sock')"
BYTES = (
    "def flood(token):\n"
    "    head = (json.dumps({'token': token})[:-1] + ', \"x\": \"').encode() if token else b''\n"
    "    def one():\n"
    "        try:\n"
    "            s = socket.socket(socket.AF_UNIX)\n"
    f"            s.connect({SOCKET})\n"
    "            s.sendall(head + b'a' * 31_000_000)\n"
    "            time.sleep(30)\n"
    "        except OSError:\n"
    "            pass\n"
    "    threads = [threading.Thread(target=one) for _ in range(40)]\n"
    "    for t in threads:\n"
    "        t.start()\n"
    "    for t in threads:\n"
    "        t.join()\n"
)
FLOODS: dict[str, list[Cell | str]] = {
    "connections": [STUB, "import os, socket\nsockets = []\n"
                    "for _ in range(1100):\n"
                    "    s = socket.socket(socket.AF_UNIX)\n"
                    f"    s.connect({SOCKET})\n"
                    "    sockets.append(s)", check()],
    # the token taken from the grader's own call into the kernel, then the flood
    "bytes_with_token": [STUB, "import json, os, socket, threading, time\n" + BYTES +
                         "import looplab.grading.wire_kernel as w\n"
                         "_serve = w.serve\n\n"
                         "def serve(path, token):\n"
                         "    w.serve = _serve\n"
                         "    flood(token)\n"
                         "    return _serve(path, token)\n\n"
                         "w.serve = serve", check()],
    "bytes_without_token": [STUB, "import json, os, socket, threading, time\n" + BYTES +
                            "flood('')", check()],
    "honest": [SOLVED, check()],
}  # fmt: skip


def low_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


@pytest.fixture(scope="module")
def flooded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict[str, str]], Path,
                                                                 subprocess.CompletedProcess[str],
                                                                 int]:  # fmt: skip
    why = jail_for(None, []).why_not()
    if why is not None:
        pytest.skip(f"no sandbox here: {why}")
    root = tmp_path_factory.mktemp("flood")
    for student, cells in FLOODS.items():
        write_notebook(root / "class" / student / LESSON, cells)
    (root / "scratch").mkdir()
    env = {**os.environ, "TMPDIR": str(root / "scratch")}  # where the grader's scratch goes
    done = subprocess.run(
        [sys.executable, "-m", "looplab.grade", str(root / "class"), "--lessons", str(LESSONS),
         "--jobs", "2", "--open-files", "4096", "--cell-timeout", "60",
         "--csv", str(root / "g.csv"), "--html", str(root / "g.html")],
        capture_output=True, text=True, env=env, preexec_fn=low_files, timeout=600,
    )  # fmt: skip
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(root / "g.csv", newline="", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)} if done.returncode == 0 else {}
    return rows, root, done, peak_kib


def test_the_gradebook_is_complete_and_the_neighbour_passes(flooded) -> None:  # type: ignore[no-untyped-def]
    rows, _, done, _ = flooded
    assert done.returncode == 0, done.stderr
    assert set(rows) == set(FLOODS)
    assert (rows["honest"]["status"], rows["honest"]["checks_passed"]) == ("passed", "6")


def test_too_many_connections_are_their_students_error(flooded) -> None:  # type: ignore[no-untyped-def]
    row = flooded[0]["connections"]
    assert (row["status"], row["checks_passed"]) == ("error", "0")
    page = (flooded[1] / "g.html").read_text(encoding="utf-8")
    assert "its kernel opened more than 32 connections to the grader at once" in page


def test_a_flood_of_bytes_is_cut_off_and_never_held(flooded) -> None:  # type: ignore[no-untyped-def]
    rows, _, _, peak_kib = flooded
    assert (rows["bytes_with_token"]["status"], rows["bytes_with_token"]["checks_passed"]) == (
        "error", "0")  # fmt: skip
    page = (flooded[1] / "g.html").read_text(encoding="utf-8")
    assert "its kernel sent the grader more than 64 MB at once" in page
    # without the token the first bytes are all the grader reads: the stub's own grade
    assert rows["bytes_without_token"]["status"] == "failed"
    assert rows["bytes_without_token"]["checks_passed"] == "0"
    assert peak_kib < 700_000  # 40 x 31 MB held would be 1.2 GB


def test_no_scratch_folder_is_left(flooded) -> None:  # type: ignore[no-untyped-def]
    _, root, _, _ = flooded
    assert list((root / "scratch").glob("looplab-*/grade-*")) == []
