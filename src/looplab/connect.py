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
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import anthropic

from .core.loop import configured_model
from .fake import FakeModel, ScriptedModel, fake_client
from .i18n import _

ON = ("1", "yes", "true", "on")
OFF = ("", "0", "no", "false", "off")
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
        problem = f"LOOPLAB_LIVE={switch!r} is not understood (use 1 to go live, 0 to stay offline)"
    elif asked and key_variable is None:
        problem = _missing_key(env, switch)
    elif asked and base_url is not None and not _is_http_url(base_url):
        problem = (
            f"LOOPLAB_BASE_URL={base_url!r} is not an http(s) URL "
            "(write it like https://api.example.com)"
        )
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
    if not found.live:
        _say(verbose, offline_line(found))
        return fake_client(model if model is not None else ScriptedModel([]))
    live = live_client(found)
    line = (
        f"looplab: using the LIVE API at {live.base_url} with model {found.model} "
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


def _is_http_url(text: str) -> bool:
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _say(verbose: bool, line: str) -> None:
    if verbose:
        print(line)
