"""The lessons' one switch between the offline fake and a live Anthropic-compatible API.

Read from the environment when `client()` is called (set them before starting Jupyter):

    LOOPLAB_LIVE       1, yes, true or on: go live (0, no, false, off or unset: stay offline)
    LOOPLAB_API_KEY    the key, for any endpoint; else ANTHROPIC_API_KEY, else
    ANTHROPIC_API_KEY  ANTHROPIC_AUTH_TOKEN (sent the same way, as a Bearer token)
    LOOPLAB_BASE_URL   an Anthropic-compatible endpoint (default: the SDK's own,
                       https://api.anthropic.com or ANTHROPIC_BASE_URL)
    LOOPLAB_MODEL      the model name runs and lessons send (`looplab.MODEL`)

`client()` prints one line saying what it read and what it returned; it never prints a key.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

import anthropic
import httpx2

from .core.loop import configured_model
from .fake import FakeModel, ScriptedModel, fake_client
from .i18n import _
from .live.cassette import public_url

ON = ("1", "yes", "true", "on")
OFF = ("", "0", "no", "false", "off")
_HOST = re.compile(r"[A-Za-z0-9.:/-]+")
KEY_VARIABLES = ("LOOPLAB_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
"""Where the key is looked for, first set (and not blank) wins."""


@dataclass(frozen=True)
class Settings:
    """What the environment asks for, and why it cannot be had (`problem`)."""

    live: bool
    """True when a live client can be built: asked for, with a key and a valid URL."""
    switch: str | None
    """`LOOPLAB_LIVE` as read (None when unset)."""
    asked: bool
    """`LOOPLAB_LIVE` is one of the values that mean on."""
    key_variable: str | None
    """The variable the key comes from; the key itself is never kept here."""
    base_url: str | None
    """`LOOPLAB_BASE_URL`, or None for the SDK's default."""
    model: str
    problem: str
    """Why the client stays offline although live was asked for ("" if none)."""


def settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read the switch, the key, the endpoint and the model from the environment."""
    env = os.environ if environ is None else environ
    switch = env.get("LOOPLAB_LIVE")
    value = (switch or "").strip().lower()
    asked = value in ON
    key_variable = next((name for name in KEY_VARIABLES if env.get(name, "").strip()), None)
    base_url = env.get("LOOPLAB_BASE_URL", "").strip() or None
    problem = ""
    if switch is not None and value not in ON + OFF:
        problem = _("LOOPLAB_LIVE={value} is not understood (use 1 to go live, 0 to stay "
                    "offline)").format(value=_shown_value(switch))
    elif asked and key_variable is None:
        problem = _missing_key(env, switch)
    elif asked and key_variable is not None and not _sendable(env[key_variable].strip()):
        problem = _("the key in {name} holds a line break, a space or another character a "
                    "key cannot have; set it again on one line").format(name=key_variable)
    elif asked and base_url is not None:
        problem = _url_problem(base_url)
    return Settings(
        live=asked and not problem,
        switch=switch,
        asked=asked,
        key_variable=key_variable,
        base_url=base_url,
        model=configured_model(env),
        problem=problem,
    )


def client(model: FakeModel | None = None, *, verbose: bool = True) -> anthropic.Anthropic:
    """A live client for the configured endpoint when `settings().live`, else
    `fake_client(model)` (an empty script when `model` is None).

    Prints one line saying which client it returned, the endpoint and model when live, and
    why not when live was asked for but cannot be had (unless `verbose=False`). A scripted
    `model` passed in live mode is not used, and the line says so (a warning when quiet).
    """
    found = settings()
    live = _live_or_none(found)
    if live is None:
        if found.live:  # the SDK refused the URL: say why, never the URL's secrets
            found = replace(found, live=False, problem=_url_refused(found.base_url or ""))
        _say(verbose, offline_line(found))
        return fake_client(model if model is not None else ScriptedModel([]))
    line = (
        f"looplab: using the LIVE API at {public_url(str(live.base_url))} with model {found.model} "
        f"(LOOPLAB_LIVE={found.switch}, key from {found.key_variable}); calls cost tokens."
    )
    if model is not None:
        dropped = f"the scripted model {model!r} passed to looplab.client() is not used live"
        line += f" Note: {dropped}."
        if not verbose:
            warnings.warn(dropped, stacklevel=2)
    _say(verbose, line)
    return live


def live_client(found: Settings) -> anthropic.Anthropic:
    """The `anthropic.Anthropic` that `found` describes (a key is required)."""
    if found.key_variable is None:
        raise ValueError("no key: set LOOPLAB_API_KEY or ANTHROPIC_API_KEY")
    secret = os.environ[found.key_variable].strip()
    if found.key_variable == "ANTHROPIC_AUTH_TOKEN":
        return anthropic.Anthropic(auth_token=secret, base_url=found.base_url)
    return anthropic.Anthropic(api_key=secret, base_url=found.base_url)


def offline_line(found: Settings) -> str:
    """The line `client()` prints when it returns the fake."""
    if found.problem:
        return _("looplab: {problem}; using the offline fake API instead.").format(
            problem=found.problem)
    if found.switch is None:
        return _("looplab: using the offline fake API (set LOOPLAB_LIVE=1 to go live).")
    return _("looplab: using the offline fake API (LOOPLAB_LIVE={switch}; set LOOPLAB_LIVE=1 "
             "to go live).").format(switch=repr(found.switch))


def _missing_key(env: Mapping[str, str], switch: str | None) -> str:
    blank = [name for name in KEY_VARIABLES if name in env]
    if blank:
        return (
            f"LOOPLAB_LIVE={switch} but {' and '.join(blank)} "
            f"{'is' if len(blank) == 1 else 'are'} blank; put the key in ANTHROPIC_API_KEY "
            "or LOOPLAB_API_KEY"
        )
    return (
        f"LOOPLAB_LIVE={switch} but no key is set (ANTHROPIC_API_KEY, LOOPLAB_API_KEY or "
        "ANTHROPIC_AUTH_TOKEN)"
    )


def _live_or_none(found: Settings) -> anthropic.Anthropic | None:
    """The live client `found` asks for, or None (offline, or a URL the SDK refuses)."""
    if not found.live:
        return None
    try:
        return live_client(found)
    except (ValueError, TypeError, httpx2.InvalidURL):
        return None


def _sendable(key: str) -> bool:
    """Whether `key` can go in an HTTP header as it is (printable ASCII, no space)."""
    return key.isascii() and key.isprintable() and " " not in key


def _shown_value(value: str) -> str:
    """`value` quoted when it is short or a host name, else only its length: a key
    pasted into the wrong variable is never printed (a key has no dot)."""
    word = len(value) <= 8 and value.isprintable()
    if word or (_HOST.fullmatch(value) and "." in value):
        return repr(value)
    return _("(a value of {n} characters)").format(n=len(value))


def _url_problem(url: str) -> str:
    """Why `url` cannot be the endpoint ("" if it can). Only its scheme, host, port and
    path are ever shown: its user, password or query may hold a key."""
    if not _sendable(url):
        return _("LOOPLAB_BASE_URL holds a line break, a space or another character a URL "
                 "cannot have")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - reading it checks it is a number in range
    except ValueError:
        return _url_refused(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = repr(public_url(url)) if parts.scheme and parts.netloc else _shown_value(url)
        return _("LOOPLAB_BASE_URL={url} is not an http(s) URL (write it like "
                 "https://api.example.com)").format(url=shown)
    return ""


def _url_refused(url: str) -> str:
    return _("LOOPLAB_BASE_URL cannot be read as a URL ({shown}); write it like "
             "https://api.example.com").format(shown=_shown_value(url))


def _say(verbose: bool, line: str) -> None:
    if verbose:
        print(line)
