"""JSON Schema checks: a Draft 2020-12 validator per schema, built once.

jsonschema is imported on first use, and without the optional `rfc3987_syntax`: when that
package is installed (jupyter-events brings it into every JupyterLab environment),
`import jsonschema` compiles its 39 grammars at once, about 2 s on a laptop, for IRI format
checks that looplab never asks for (no validator here has a `format_checker`). The package
stays importable for anyone else; only jsonschema's IRI formats go unchecked in this process.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any

_SLOW_OPTIONAL = "rfc3987_syntax"


def jsonschema() -> Any:
    """The `jsonschema` module, imported the first time it is needed (see above)."""
    block = "jsonschema" not in sys.modules and _SLOW_OPTIONAL not in sys.modules
    if block:
        sys.modules[_SLOW_OPTIONAL] = None  # type: ignore[assignment]  # its import fails
    try:
        import jsonschema as module  # type: ignore[import-untyped]
    finally:
        if block:
            del sys.modules[_SLOW_OPTIONAL]  # importable again by anyone else
    return module


@functools.lru_cache(maxsize=256)
def _compiled(schema: str) -> Any:
    return jsonschema().Draft202012Validator(json.loads(schema))


def validator(schema: Mapping[str, Any]) -> Any:
    """A validator of `schema` (its JSON text is the cache key): compiled once, not per use."""
    return _compiled(json.dumps(schema, sort_keys=True))


def best_match(errors: Iterable[Any]) -> Any:
    """The most relevant of `errors` (jsonschema's own choice), or `None` when there are none."""
    return jsonschema().exceptions.best_match(errors)
