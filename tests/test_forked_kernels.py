"""The kernels `make pytest` gives nbval come from the fork server and behave like kernels:
they run in the notebook's folder with the worker's environment, an interrupt stops a
cell, and shutting down ends the process."""

from __future__ import annotations

import os
from pathlib import Path

import forked_kernels
import nbval.kernel
import psutil
import pytest

pytestmark = pytest.mark.slow  # seconds each: `make test` and `make quick` leave them out


def test_nbval_kernels_are_forked_run_where_asked_and_can_be_interrupted(tmp_path: Path) -> None:
    forked_kernels.use_forked_kernels()
    kernel = nbval.kernel.RunningKernel(nbval.kernel.CURRENT_ENV_KERNEL_NAME, cwd=str(tmp_path),
                                        startup_timeout=120)  # fmt: skip
    printed: list[str] = []
    try:
        pid = kernel.km.provisioner.pid
        parent = psutil.Process(pid).parent()
        assert parent is not None and "looplab.grading.forkserver" in parent.cmdline()
        out = kernel.kc.execute_interactive(
            "import os; print(os.getcwd(), os.environ['LOOPLAB_LANG'])", timeout=60,
            output_hook=lambda m: printed.append(m["content"].get("text", "")))
        assert out["content"]["status"] == "ok"
        assert "".join(printed).split() == [str(tmp_path), os.environ["LOOPLAB_LANG"]]
        kernel.kc.execute("print('looping', flush=True)\nwhile True:\n    pass")
        while kernel.kc.get_iopub_msg(timeout=60)["content"].get("text") != "looping\n":
            pass  # the loop has started: an interrupt now stops it, not an idle kernel
        kernel.km.interrupt_kernel()
        reply = kernel.kc.get_shell_msg(timeout=60)
        assert reply["content"]["ename"] == "KeyboardInterrupt"
    finally:
        kernel.stop()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE

