"""Make every test run hermetic: offline, no API key, no real network.

Environment changes happen at import time, before nbval starts any kernel, because
kernels inherit this process's environment.
"""

from __future__ import annotations

import gc
import ipaddress
import os
import socket
from pathlib import Path
from typing import Any

import pytest

for _name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "LOOPLAB_LIVE", "LOOPLAB_API_KEY",
              "LOOPLAB_BASE_URL", "LOOPLAB_MODEL"):
    os.environ.pop(_name, None)
# A client created by mistake without the fake talks to a closed local port and fails
# at once instead of reaching the internet.
os.environ["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
# Tests and the English lessons speak English whatever this machine's locale is; the
# Chinese lessons choose their language in their first cell.
os.environ["LOOPLAB_LANG"] = "en"
# Plots render into stored outputs the same way everywhere (and never open a window).
os.environ.pop("MPLBACKEND", None)


def _is_local(address: Any) -> bool:
    if not isinstance(address, tuple):  # AF_UNIX paths and the like
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost: would need DNS, so not local


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        pytest.fail(f"a test tried to open a network connection to {address!r}; tests are offline")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        pytest.fail(f"a test tried to open a network connection to {address!r}; tests are offline")
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


# A test that takes seconds says so in its own file: `@pytest.mark.slow` on the test, or
# `pytestmark = pytest.mark.slow` for a file slow throughout (found with `pytest
# --durations=30`). `make test` and `make quick` leave them out; `make slow` runs them.
# tests/test_collected.py checks that every test file is run by some make target.


# -- sharing the tests between cores ---------------------------------------------------------

# `make pytest` runs pytest-xdist. It hands the tests out one unit at a time, the units with
# the most tests first, then the single tests in collection order (the slow ones first: the
# hook at the end sorts them). A notebook is one unit (its cells run in order in one
# kernel) and so is each file below, whose module fixtures grade whole folders or build
# the docs site (once, not once per worker). xdist's own `loadgroup` cannot say this: with
# pytest 9 its group marker no longer changes a test's id, so a group's tests are spread anyway.
ONE_WORKER = {
    "tests/browser/test_docs_site.py",
    "tests/grading/test_grading_cheats.py",
    "tests/grading/test_grading_hostile.py",
    "tests/grading/test_grading_lessons.py",
    "tests/grading/test_grading_lms.py",
    "tests/grading/test_grading_returned_objects.py",
    "tests/grading/test_grading_tricks.py",
    "tests/views/test_plots_without_matplotlib.py",
}


def unit_of(nodeid: str) -> str:
    """The unit of work a test is handed out in: its file, or the test alone."""
    path = nodeid.split("::", 1)[0]
    return path if path.endswith(".ipynb") or path in ONE_WORKER else nodeid


class Scheduling:
    """The plugin that hands out the units; registered only where xdist is (`-p no:xdist`
    leaves its hook unknown)."""

    @staticmethod
    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        from xdist.scheduler import LoadScopeScheduling

        class ByUnit(LoadScopeScheduling):  # sorts the units by size, the largest first
            def _split_scope(self, nodeid: str) -> str:
                return unit_of(nodeid)

        return ByUnit(config, log)


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(Scheduling(), "looplab-scheduling")
    runs_tests = hasattr(config, "workerinput") or not config.getoption("numprocesses", None)
    if config.getoption("nbval_current_env", False) and runs_tests:  # not xdist's controller
        # the lessons' kernels are forked from one process per worker (forked_kernels.py)
        import forked_kernels

        forked_kernels.use_forked_kernels()
        config.add_cleanup(forked_kernels.close)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # the slow tests first (the order is stable otherwise), so that no test of seconds is
    # handed out last, with the other workers idle
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    _skip_the_sandbox_lesson_without_bubblewrap(items)


def _skip_the_sandbox_lesson_without_bubblewrap(items: list[pytest.Item]) -> None:
    """Lesson 22 runs model-written code in bubblewrap and refuses where it cannot start
    (macOS, no user namespaces): under nbval its cells are skipped there, with the reason."""
    cells = [item for item in items if item.path.suffix == ".ipynb"
             and item.path.name.startswith("22_")]  # fmt: skip
    if not cells:
        return
    import tempfile

    from looplab.lessons.code_sandbox import why_no_sandbox

    with tempfile.TemporaryDirectory(prefix="looplab-probe-") as folder:
        why = why_no_sandbox(Path(folder) / "work")
    for item in cells if why is not None else []:
        item.add_marker(pytest.mark.skip(reason=f"lesson 22 needs bubblewrap: {why}"))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    # Python's last garbage collection would walk every object the tests imported (the SDK's
    # types, the grammars jsonschema compiles), over a second per pytest process, to find
    # no garbage that still matters: everything is written and closed by now.
    gc.freeze()
