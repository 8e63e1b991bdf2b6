"""Lesson 13's pins cover the whole tool definition and are compared on every listing: a
changed description or a changed input schema is refused until reviewed again."""

from __future__ import annotations

import dataclasses

from looplab.lessons.demo import demo_tools
from looplab.lessons.pins import pin, pinned


def test_a_pin_covers_the_name_the_description_and_the_input_schema() -> None:
    _run_tests, read_file = demo_tools()
    widened = dataclasses.replace(read_file, input_schema={
        **read_file.input_schema,
        "properties": {**read_file.input_schema["properties"], "note": {"type": "string"}}})
    reworded = dataclasses.replace(read_file, description=read_file.description + " Also...")
    pins = {pin(read_file), pin(widened), pin(reworded),
            pin(dataclasses.replace(read_file, name="read"))}
    assert len(pins) == 4 and all(len(p) == 64 for p in pins)


def test_a_listed_mcp_tool_pins_like_the_tool_made_from_it() -> None:
    _run_tests, read_file = demo_tools()
    listed = {"name": read_file.name, "description": read_file.description,
              "inputSchema": read_file.input_schema}
    assert pin(listed) == pin(read_file)


def test_pinned_gives_only_the_reviewed_unchanged_tools_and_says_why_not() -> None:
    run_tests, read_file = demo_tools()
    reviewed = {read_file.name: pin(read_file), run_tests.name: pin(run_tests)}
    later = dataclasses.replace(read_file, input_schema={
        **read_file.input_schema, "required": ["path", "note"]})
    unknown = dataclasses.replace(run_tests, name="lookup_setting")
    allowed, refused = pinned([run_tests, later, unknown], reviewed)
    assert allowed == [run_tests]
    assert refused[0].startswith("read_file: its definition changed since it was reviewed")
    assert refused[1] == "lookup_setting: not reviewed (no pin)"
