"""How the loop words what it tells the model and the learner: an English template and its
fields, filled in by `wording`.

`running/` and `core/` import no catalog and speak English. `import looplab` sets
`wording` to the learner's language (`looplab.i18n.render`), so a tool result reaches the
model, and a run's summary the learner, in the language the run was made in. `make
translations` finds the templates by the name `worded` (and `Stop`'s second argument).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def english(template: str, fields: Mapping[str, Any]) -> str:
    """`template` filled in with `fields`: how the core words a message (in English)."""
    return template.format(**fields) if fields else template


wording: Callable[[str, Mapping[str, Any]], str] = english
"""Template and fields -> text. English until `import looplab` installs the catalog."""


def worded(template: str, **fields: Any) -> str:
    """`template` with `fields`, in the language `wording` speaks now."""
    return wording(template, fields)
