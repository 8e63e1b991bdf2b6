"""Make every test run hermetic: offline, no API key, no real network.

Environment changes happen at import time, before nbval starts any kernel, because
kernels inherit this process's environment.
"""

from __future__ import annotations

import ipaddress
import os
import socket
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
