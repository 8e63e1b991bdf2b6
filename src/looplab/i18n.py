"""What looplab says to a learner, in the learner's language: English or Chinese (zh-CN).

Standard gettext: the catalogs are `looplab/locale/<lang>/LC_MESSAGES/looplab.po`, compiled
to `.mo` with Babel (`make translations`). `set_language("zh-CN")` or `LOOPLAB_LANG=zh-CN`
chooses; without either, the locale does (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`).
English is the fallback for any message a catalog lacks. What the API itself says (its 400
texts, field names, `stop_reason` values) is never translated.

    from looplab.i18n import _
    print(_("not written yet: {name}").format(name="run_agent"))

Mark a message where it is *used*, not where a module-level constant is defined: `_()`
reads the language at the moment it is called, so switching language takes effect at once.
"""

from __future__ import annotations

import gettext
import os
import struct
import unicodedata
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

LANGUAGES = ("en", "zh-CN")
"""The languages looplab speaks, as `set_language` takes them."""

DOMAIN = "looplab"
_ALIASES = {"en": "en", "zh": "zh-CN", "zh-cn": "zh-CN", "zh-hans": "zh-CN", "zh-sg": "zh-CN"}
_chosen: list[str] = []  # the language set_language chose for the whole process, if any
_here: ContextVar[str | None] = ContextVar("looplab_language", default=None)
"""The language `speaking` chose for one thread's work (the grader grades a Chinese
submission in Chinese while it grades an English one in another thread)."""


def normalise(tag: str) -> str | None:
    """`zh_CN.UTF-8`, `zh-cn`, `zh` -> `zh-CN`; `en_US` -> `en`; a language we lack -> None."""
    base = tag.split(".")[0].split("@")[0].replace("_", "-").strip().lower()
    if base in ("c", "posix", ""):
        return "en"
    if base in _ALIASES:
        return _ALIASES[base]
    family = base.split("-")[0]
    if family == "en":
        return "en"
    return "zh-CN" if family == "zh" else None  # the one Chinese catalog is Simplified


def set_language(language: str | None) -> str:
    """Speak `language` ("en" or "zh-CN") from now on; `None` goes back to the default
    (`LOOPLAB_LANG`, then the locale). Returns the language now in use."""
    _chosen.clear()
    if language is not None:
        found = normalise(language) if isinstance(language, str) else None
        if found is None:
            raise ValueError(f"looplab speaks {' and '.join(LANGUAGES)}; got {language!r}. "
                             'Use set_language("en") or set_language("zh-CN").')
        _chosen.append(found)
    return current()


@contextmanager
def speaking(language: str) -> Iterator[str]:
    """Speak `language` in this thread (and in what it hands its context to, as looplab's
    tool threads are) until the block ends; other threads keep theirs."""
    found = normalise(language)
    if found is None:
        raise ValueError(f"looplab speaks {' and '.join(LANGUAGES)}; got {language!r}")
    token = _here.set(found)
    try:
        yield found
    finally:
        _here.reset(token)


def current() -> str:
    """The language messages are in now."""
    here = _here.get()
    if here is not None:
        return here
    if _chosen:
        return _chosen[0]
    wanted = os.environ.get("LOOPLAB_LANG")
    if wanted:
        return normalise(wanted) or "en"  # an unknown LOOPLAB_LANG falls back to English
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:  # LANGUAGE may list several, "zh_CN:en"
            for tag in value.split(":"):
                found = normalise(tag)
                if found is not None:
                    return found
            return "en"
    return "en"


_catalogs: dict[str, gettext.NullTranslations] = {}


def _mo_file(language: str) -> Traversable:
    """Where the compiled catalog of `language` is installed."""
    return (files("looplab") / "locale" / language.replace("-", "_") / "LC_MESSAGES"
            / f"{DOMAIN}.mo")


def catalog(language: str) -> gettext.NullTranslations:
    """The compiled catalog of `language` (an empty one for English). A catalog that is
    missing or cannot be read (truncated, corrupt) is English, with one warning naming the
    file: a broken translation must not break what it translates."""
    if language not in _catalogs:
        if language == "en":
            _catalogs[language] = gettext.NullTranslations()
        else:
            mo = _mo_file(language)
            try:
                with mo.open("rb") as f:
                    _catalogs[language] = gettext.GNUTranslations(f)
            except (OSError, ValueError, LookupError, struct.error) as err:
                _catalogs[language] = gettext.NullTranslations()
                warnings.warn(f"looplab's {language} catalog {mo} cannot be read "
                              f"({type(err).__name__}: {err}); looplab speaks English. "
                              "Reinstalling looplab (or `make translations`) restores it.",
                              RuntimeWarning, stacklevel=2)
    return _catalogs[language]


def _(message: str) -> str:
    """`message` in the current language (itself when there is no translation)."""
    return catalog(current()).gettext(message)


def render(template: str, fields: Mapping[str, object]) -> str:
    """`template` in the current language, filled in with `fields` (none: left as it is)."""
    text = _(template) if template else ""  # gettext("") is the catalog's header
    return text.format(**fields) if fields else text


def worded(template: str, **fields: object) -> str:
    """`template` in the current language, filled in with `fields`: what a run tells the
    model (a tool result) or the learner now. `Message` keeps it to be said later."""
    return render(template, fields)


def N_(message: str) -> str:
    """Mark `message` for the catalog without translating it (gettext's `gettext_noop`):
    for a template translated later, where it is used, as `Message(template, **fields)`."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for `n`, in the current language."""
    return catalog(current()).ngettext(singular, plural, n)


class Message(str):
    """A message kept to be translated when it is shown, not when it is made.

    Its value as a string is the English text (so it compares, hashes and serialises the
    same in every language); `str()` and f-strings give it in the language current at that
    moment. A run that stopped in English reads in Chinese after `set_language("zh-CN")`.
    """

    template: str
    fields: dict[str, object]

    def __new__(cls, template: str, **fields: object) -> Message:
        self = super().__new__(cls, template.format(**fields) if fields else template)
        self.template, self.fields = template, fields
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        """Copied and pickled as its template and fields (a field's value may hold braces)."""
        return (_message, (self.template, self.fields))

    def __str__(self) -> str:
        return render(self.template, self.fields)

    def __format__(self, spec: str) -> str:
        """Formatted like a str; padding to a width counts a wide (Chinese) character as the
        two columns it takes on screen, so a table of messages stays aligned."""
        text = str(self)
        padded = format(text, spec)
        wide = sum(unicodedata.east_asian_width(c) in ("W", "F") for c in text)
        extra = min(wide, len(padded) - len(text))
        if extra <= 0 or padded.count(" ") < extra:
            return padded
        if padded.endswith(" " * extra):
            return padded[:-extra]
        return padded[extra:] if padded.startswith(" " * extra) else padded


def _message(template: str, fields: dict[str, object]) -> Message:
    return Message(template, **fields)
