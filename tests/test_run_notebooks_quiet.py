"""`make notebooks` (tools/run_notebooks.py) prints what it runs, and not ipykernel's warning
about a kernel talking over unencrypted TCP for every lesson: its kernels use Unix sockets,
in a folder of their own that is gone afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.slow  # a real kernel per run: seconds

TOOL = Path(__file__).resolve().parents[1] / "tools" / "run_notebooks.py"


@pytest.mark.skipif(os.name == "nt", reason="ZeroMQ has no IPC transport on Windows")
def test_a_lesson_runs_without_the_tcp_warning_and_leaves_no_socket(tmp_path: Path) -> None:
    lesson, into = tmp_path / "lesson", tmp_path / "run"
    lesson.mkdir()
    into.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import os\nprint(6 * 7, sorted(os.listdir()))")]
    nbformat.write(nb, lesson / "01_small.ipynb")
    # a temp folder of its own (other tests may run kernels in the shared one meanwhile), with
    # a short path: a Unix socket's path has at most 107 bytes
    temp = Path(tempfile.mkdtemp(prefix="looplab-test-"))
    env = {**os.environ, "TMPDIR": str(temp)}

    done = subprocess.run([sys.executable, str(TOOL), str(lesson / "01_small.ipynb"),
                           "--into", str(into)], capture_output=True, text=True, timeout=300,
                          check=False, env=env)  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert "without encryption" not in done.stderr + done.stdout
    assert "WARNING" not in done.stderr, done.stderr  # nor a kernel left behind at exit
    assert "running 01_small.ipynb" in done.stdout
    ran = nbformat.read(into / "01_small.ipynb", as_version=4)
    # the kernel ran in the lesson's folder, and no socket of it was there
    assert ran.cells[0].outputs[0]["text"] == "42 ['01_small.ipynb']\n"
    assert sorted(p.name for p in lesson.iterdir()) == ["01_small.ipynb"]
    left = list(temp.iterdir())
    shutil.rmtree(temp)
    assert left == []  # the sockets' folder is gone
