"""looplab.schemas: validators compiled once, and jsonschema loaded without the optional
package whose import compiles grammars for seconds."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from looplab.schemas import best_match, validator

FIRST_USE = """
import sys
import looplab.schemas as schemas
errors = list(schemas.validator({"type": "object", "required": ["a"]}).iter_errors({}))
print(len(errors), "rfc3987_syntax" in sys.modules)
import rfc3987_syntax  # still importable by anyone who wants it
print("importable")
"""


@pytest.mark.skipif(importlib.util.find_spec("rfc3987_syntax") is None,
                    reason="rfc3987_syntax is not installed here (JupyterLab brings it)")
def test_the_first_check_does_not_load_the_grammar_package_and_leaves_it_importable() -> None:
    out = subprocess.run([sys.executable, "-c", FIRST_USE], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["1", "False", "importable"]


def test_a_validator_is_built_once_per_schema_and_checks() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    same = {"required": ["n"], "properties": {"n": {"type": "integer"}}, "type": "object"}
    assert validator(schema) is validator(same)  # key order does not matter
    assert validator(schema).is_valid({"n": 1})
    error = best_match(validator(schema).iter_errors({"n": "one"}))
    assert error is not None and list(error.absolute_path) == ["n"]
    assert best_match(validator(schema).iter_errors({"n": 2})) is None
