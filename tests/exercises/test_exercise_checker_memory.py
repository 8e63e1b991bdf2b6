"""Lesson 17's checker: the reference gate passes, a stub is one line, and each plausible
wrong gate fails the check that names it."""

from __future__ import annotations

from typing import Any

from scorecards import failed, hint, stub

from looplab.exercises import check_memory_gate

NAMES = ("a session that read no page stores what the user said",
         "after a page, create, str_replace, insert, delete and rename are refused",
         "after a page, a view still runs: the agent can still recall",
         "the refusal names the page the session read")  # fmt: skip


def memory_gate(call: dict[str, Any], read: list[str], *, refused: tuple[str, ...] = (),
                everything: bool = False, named: bool = True,
                always: bool = False) -> str | None:  # fmt: skip
    command = call["input"].get("command")
    writes = refused or ("create", "str_replace", "insert", "delete", "rename")
    if (read or always) and (everything or command in writes):
        return f"not stored: this session read {', '.join(read)}" if named else "not stored"
    return None


def test_the_reference_gate_passes() -> None:
    card = check_memory_gate(memory_gate)
    assert card.passed and len(card) == 4, str(card)


def test_a_stub_is_one_line_not_written_yet() -> None:
    card = check_memory_gate(stub)
    assert failed(card) == list(NAMES)
    assert str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_a_gate_that_refuses_create_alone_lets_the_page_edit_the_note() -> None:
    card = check_memory_gate(lambda c, r: memory_gate(c, r, refused=("create",)))
    assert failed(card) == [NAMES[1]]
    assert hint(card, NAMES[1]) == ("these commands ran after the page was read: "
                                    "str_replace, insert, delete")


def test_a_gate_that_refuses_views_too_stops_the_agent_recalling() -> None:
    assert failed(check_memory_gate(lambda c, r: memory_gate(c, r, everything=True))) == [
        NAMES[2]]


def test_a_refusal_that_does_not_name_the_page_fails() -> None:
    card = check_memory_gate(lambda c, r: memory_gate(c, r, named=False))
    assert failed(card) == [NAMES[3]] and "'not stored'" in hint(card, NAMES[3])


def test_a_gate_that_refuses_every_write_stores_nothing_from_the_user() -> None:
    assert failed(check_memory_gate(lambda c, r: memory_gate(c, r, always=True))) == [NAMES[0]]


def test_a_gate_that_raises_on_some_calls_shows_the_error() -> None:
    def crashes_on_views(call: dict[str, Any], read: list[str]) -> str | None:
        if call["input"]["command"] == "view":
            raise KeyError("path")
        return memory_gate(call, read)

    card = check_memory_gate(crashes_on_views)
    assert NAMES[2] in failed(card) and "KeyError: 'path'" in hint(card, NAMES[2])
