"""Tricks a sceptical teaching assistant tried on the grader when it trusted the kernel.

The checks are decided in the grader's process now, from the requests its fake API served
and the plain JSON the kernel sent back; each notebook below once beat the grader, and
each is refused or graded honestly here. All are graded together, `--jobs 2`, by
`grade_folder`; each test reads its own student's grade.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, SOLVED, STUB, Cell, check, write_notebook

from looplab.grading import Grade, grade_folder
from looplab.grading.cli import main

pytestmark = pytest.mark.slow  # seconds each: `make quick` leaves them out

REPO = Path(__file__).resolve().parents[2]
FORGED = "[('ok', True, '')] * 6"
OLD_RESULT_LINE = f"repr(('check_token_formula(total_input)', {FORGED}, '')) + '\\n'"

TRICKS: dict[str, list[Cell | str]] = {
    # the grader's check request was ordinary code in the user namespace
    "own_compile": [STUB, "import builtins\n_compile = builtins.compile\n\n"
                    "def compile(source, *args, **kwargs):\n"
                    "    forged = ('def run(path, steps):\\n'\n"
                    f"              '    open(path, \"a\").write({OLD_RESULT_LINE!r})')\n"
                    "    return _compile(forged, *args, **kwargs)", check()],
    "own_exec": [STUB, "import builtins\n_exec = builtins.exec\n\n"
                 "def exec(code, ns=None, *rest):\n"
                 "    if ns is not None:\n"
                 "        ns['run'] = lambda path, steps: open(path, 'a').write(\n"
                 f"            {OLD_RESULT_LINE})\n"
                 "    return None", check()],
    "builtins_dict": [STUB, "class Forged(dict):\n"
                      "    def __repr__(self):\n"
                      f"        return {OLD_RESULT_LINE}\n\n"
                      "__builtins__ = Forged(vars(__builtins__) if not isinstance("
                      "__builtins__, dict) else __builtins__)", check()],
    # the stub reaches the code that asked for it, and answers in its place
    "frame_walk": ["import sys\n\n"
                   "def total_input(n_turns, S, delta):\n"
                   "    frame = sys._getframe()\n"
                   "    while frame is not None:\n"
                   "        wire, job = frame.f_locals.get('wire'), frame.f_locals.get('job')\n"
                   "        if hasattr(wire, 'ask') and isinstance(job, dict) and 'job' in job:\n"
                   "            wire.ask({'op': 'result', 'job': job['job'],\n"
                   "                      'result': {'value': 400}})\n"
                   "        path = frame.f_locals.get('path')\n"
                   "        if isinstance(path, str) and 'checks-' in path:\n"
                   f"            open(path, 'a').write({OLD_RESULT_LINE})\n"
                   "        frame = frame.f_back\n"
                   "    raise NotImplementedError('the input tokens of n_turns requests')",
                   check()],
    "audit_hook": [STUB, "import sys\nseen = []\n\n"
                   "def hook(event, args):\n"
                   "    if event == 'open' and 'checks-' in str(args[0]) and not seen:\n"
                   "        seen.append(args[0])\n"
                   f"        open(args[0], 'a').write({OLD_RESULT_LINE})\n\n"
                   "sys.addaudithook(hook)", check()],
    "patched_wire": [STUB, "import looplab.grading.wire_kernel as w\n\n"
                     "def serve(path, token):\n"
                     "    wire = w._Wire(path, token)\n"
                     "    job = wire.ask({'op': 'job'})\n"
                     "    result = {'kind': 'callable'} if job['kind'] == 'lookup' "
                     "else {'value': 400}\n"
                     "    wire.ask({'op': 'result', 'job': job['job'], 'result': result})\n\n"
                     "w.serve = serve", check()],
    # the checkers compared the student's object with the expected value, student first
    "always_equal_int": ["class Yes(int):\n    def __eq__(self, other):\n        return True\n"
                         "    __hash__ = int.__hash__\n\n"
                         "def total_input(n_turns, S, delta):\n    return Yes(0)", check()],
    # another kernel's results, rewritten by a thread of this one (--jobs 2)
    "thief": [STUB, "import glob, json, socket, threading, time\n\n"
              "def steal():\n"
              "    end = time.time() + 40\n"
              "    while time.time() < end:\n"
              "        for path in glob.glob('/tmp/looplab-*/**/checks-*.txt', recursive=True):\n"
              f"            open(path, 'a').write({OLD_RESULT_LINE})\n"
              "        for path in glob.glob('/tmp/looplab-*/**/wire.sock', recursive=True):\n"
              "            try:\n"
              "                s = socket.socket(socket.AF_UNIX)\n"
              "                s.connect(path)\n"
              "                s.sendall(json.dumps({'op': 'result', 'job': '*', "
              "'result': {'value': 400}}).encode() + b'\\n')\n"
              "                s.close()\n"
              "            except OSError:\n"
              "                pass\n"
              "        time.sleep(0.05)\n\n"
              "threading.Thread(target=steal, daemon=True).start()", check()],
    "victim": [STUB, "import time\ntime.sleep(3)", check()],
    "syntax_error": ["def total_input(n_turns, S, delta)\n    return n_turns * S", check()],
}  # fmt: skip


def by_student(root: Path, lessons: Path) -> dict[str, Grade]:
    """Every notebook under `root` graded against `lessons`, --jobs 2, by student."""
    return {g.student: g for g in grade_folder(root, lessons=lessons, jobs=2)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    root = tmp_path_factory.mktemp("tricks")
    for student, cells in TRICKS.items():
        write_notebook(root / student / LESSON, cells)
    return by_student(root, LESSONS)


@pytest.mark.parametrize("student", [s for s in TRICKS if s not in ("syntax_error", "victim")])
def test_a_trick_does_not_pass(graded: dict[str, Grade], student: str) -> None:
    grade = graded[student]
    assert (grade.status, grade.total) == ("failed", 6), grade
    assert grade.passed <= 1, grade  # 400 is the right answer to fn(1, 400, 300) only


def test_a_forged_answer_is_graded_as_the_answer_it_is(graded: dict[str, Grade]) -> None:
    grade = graded["patched_wire"]  # every call of total_input "returned" 400
    assert [r.passed for r in grade.rows] == [True, False, False, False, False, False]
    assert grade.rows[1].hint == "got 400 for fn(0, 400, 300), expected 0"


def test_an_object_that_equals_everything_is_not_a_number(graded: dict[str, Grade]) -> None:
    grade = graded["always_equal_int"]
    assert grade.passed == 0
    assert grade.rows[0].hint.startswith("got <Yes in the kernel> for fn(1, 400, 300)")


def test_another_kernel_cannot_change_a_students_grade(graded: dict[str, Grade]) -> None:
    grade = graded["victim"]
    assert (grade.status, grade.passed, grade.total) == ("failed", 0, 6)
    assert grade.rows[0].hint.startswith("NotImplementedError")


def test_a_syntax_error_is_named_with_its_cell(graded: dict[str, Grade]) -> None:
    grade = graded["syntax_error"]
    assert (grade.status, grade.passed) == ("failed", 0)
    assert grade.first_failed_hint() == (
        "check_token_formula(total_input): check 1 — "
        "cell 1 has a SyntaxError: expected ':' (line 1)"
    )


DANGLING = "05_stop_gates.ipynb"
IMPORTS = {
    "from_import": "from looplab.history.dangling import close_dangling as my_close_dangling",
    "assigned": "import looplab\nmy_close_dangling = looplab.close_dangling",
    "wrapped": "from looplab import close_dangling\n\n"
               "def my_close_dangling(messages):\n    return close_dangling(messages)",
}  # fmt: skip


@pytest.fixture(scope="module")
def lessons_graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    """Against the real lessons: answers imported from looplab, an object equal to all."""
    root = tmp_path_factory.mktemp("imports")
    for student, source in IMPORTS.items():
        write_notebook(root / student / DANGLING, [source, check("pass")])
    write_notebook(root / "always_equal" / "03_stop_reason_is_the_fork.ipynb", [
        "class Yes(str):\n    def __eq__(self, other):\n        return True\n"
        "    __hash__ = str.__hash__\n\n"
        "def next_action(stop_reason):\n    return Yes('done')",
    ])  # fmt: skip
    return by_student(root, REPO / "notebooks")


@pytest.mark.parametrize("student", IMPORTS)
def test_looplabs_own_function_as_the_answer_is_invalid(
    lessons_graded: dict[str, Grade], student: str
) -> None:
    grade = lessons_graded[student]
    assert (grade.status, grade.passed, grade.total) == ("invalid", 0, 7)
    assert grade.reason == (
        "my_close_dangling is looplab's own close_dangling, imported from looplab: "
        "the exercise asks you to write it"
    )


def test_a_string_that_equals_everything_passes_only_where_it_is_right(
    lessons_graded: dict[str, Grade],
) -> None:
    grade = lessons_graded["always_equal"]  # 'done' is right for end_turn only
    assert (grade.status, grade.total) == ("failed", 9)
    assert [r.name for r in grade.rows if r.passed] == ["end_turn"]


def test_names_that_are_not_utf8_and_other_layouts_are_graded(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    gbk = os.fsencode(root) + b"/" + "张三".encode("gbk")
    os.makedirs(gbk)
    write_notebook(Path(os.fsdecode(gbk)) / "06_Token_Growth.ipynb", [SOLVED, check()])
    write_notebook(root / "jon_06_token_growth.ipynb", [SOLVED, check()])
    out = tmp_path / "gradebook.csv"
    code = main([str(root), "--lessons", str(LESSONS), "--jobs", "2", "--csv", str(out),
                 "--html", str(tmp_path / "gradebook.html")])  # fmt: skip
    assert code == 0
    with out.open(encoding="utf-8", newline="") as f:
        rows = [(r["student"], r["notebook"], r["status"]) for r in csv.DictReader(f)]
    assert sorted(rows) == [
        ("\\xd5\\xc5\\xc8\\xfd", "06_Token_Growth.ipynb", "passed"),
        ("jon", "jon_06_token_growth.ipynb", "passed"),
    ]
    assert "\\xd5\\xc5\\xc8\\xfd" in (tmp_path / "gradebook.html").read_text(encoding="utf-8")


GATE_LESSON = "08_testing_an_agent_with_a_scripted_model.ipynb"
GATE_TESTS = {
    # tells the agent from its broken twins by identity, not by what it does
    "identity": "def test_repeated_call_gate(agent):\n"
                "    assert agent is AGENT, 'not the agent of this notebook'",
    # an agent of its own that records how it was called, and a test that reads it
    "own_agent": "calls = []\n\n"
                 "def agent(client, *, clock=None, **limits):\n"
                 "    calls.append(limits)\n"
                 "    return None\n\n"
                 "def test_repeated_call_gate(agent_under_test):\n"
                 "    agent_under_test(fake_client(ScriptedModel([say('done')])))\n"
                 "    assert calls and calls[-1].get('max_repeats', 3) == 3, 'a broken gate'",
    # the result of a run, asked for the settings the agent ran with
    "result_limits": "def test_repeated_call_gate(agent):\n"
                     "    result = agent(fake_client(ScriptedModel([say('done')])))\n"
                     "    assert result.limits.max_repeats == 3, 'a broken gate'",
}  # fmt: skip


@pytest.fixture(scope="module")
def gate_graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    """Lesson 08: tests that try to tell the agents apart by anything but behaviour."""
    import json

    lesson = json.loads((REPO / "notebooks" / GATE_LESSON).read_text(encoding="utf-8"))
    setup = next("".join(c["source"]) for c in lesson["cells"]
                 if "def agent(" in "".join(c["source"]))  # fmt: skip
    root = tmp_path_factory.mktemp("gate")
    for student, source in GATE_TESTS.items():
        write_notebook(root / student / GATE_LESSON, [setup, "AGENT = agent", source])
    return by_student(root, REPO / "notebooks")


@pytest.mark.parametrize("student", GATE_TESTS)
def test_a_gate_test_cannot_tell_the_agents_apart_but_by_behaviour(
    gate_graded: dict[str, Grade], student: str
) -> None:
    status, passed, total = (gate_graded[student].status, gate_graded[student].passed,
                             gate_graded[student].total)  # fmt: skip
    assert (status, total) == ("failed", 3) and passed < 3, gate_graded[student]


SANDBOXED = {
    # the teacher's solution, read from the lessons next to the package, run as the answer
    "solution_from_package": [
        "import json, looplab, pathlib\n"
        "root = pathlib.Path(looplab.__file__).resolve().parents[2]\n"
        "found = list(root.glob('tests/grading/grading_lessons/06_*.ipynb'))\n"
        "for cell in json.loads(found[0].read_text())['cells'] if found else []:\n"
        "    if 'def total_input' in ''.join(cell['source']):\n"
        "        exec(''.join(cell['source']))",
        check(),
    ],
    # the package's source, written by the kernel
    "writes_package": [
        STUB, "import looplab, pathlib\n"
        "(pathlib.Path(looplab.__file__).parent / '_planted.py').write_text('x = 1')", check(),
    ],
    # another student's solution, copied from their folder or their scratch copy
    "reads_others": [
        STUB, "import glob, json, time\n"
        "time.sleep(2)  # the honest student's kernel is running by now\n"
        "for path in (glob.glob('/tmp/pytest-of-*/pytest-*/sandboxed*/honest/*.ipynb')\n"
        "             + glob.glob('/tmp/looplab-*/grade-*/work/folder/honest/*.ipynb')):\n"
        "    for cell in json.load(open(path))['cells']:\n"
        "        if 'def total_input' in ''.join(cell['source']):\n"
        "            exec(''.join(cell['source']))",
        check(),
    ],
    "honest": [SOLVED, check()],
}  # fmt: skip


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    from looplab.grading.jail import jail_for

    why = jail_for(None, []).why_not()
    if why is not None:
        pytest.skip(f"no sandbox here: {why}")
    root = tmp_path_factory.mktemp("sandboxed")
    for student, cells in SANDBOXED.items():
        write_notebook(root / student / LESSON, cells)
    return by_student(root, LESSONS)


def test_in_the_sandbox_the_lessons_solutions_are_out_of_sight(
    sandboxed: dict[str, Grade],
) -> None:
    grade = sandboxed["solution_from_package"]
    assert (grade.status, grade.passed) == ("failed", 0), grade
    assert sandboxed["honest"].status == "passed"


def test_in_the_sandbox_the_package_cannot_be_written(sandboxed: dict[str, Grade]) -> None:
    import looplab

    assert not (Path(looplab.__file__).parent / "_planted.py").exists()
    assert sandboxed["writes_package"].passed == 0


def test_in_the_sandbox_a_kernel_sees_no_other_student(sandboxed: dict[str, Grade]) -> None:
    grade = sandboxed["reads_others"]
    assert grade.status == "failed" and grade.rows[0].hint.startswith("NotImplementedError")


CANNED_LESSON = "05_stop_gates.ipynb"
CANNED = (
    "def my_close_dangling(messages):\n"
    "    # the answers to the inputs the checker once always sent, nothing else\n"
    "    last = messages[-1]\n"
    "    ids = [b.get('id') for b in last['content']] if last['role'] == 'assistant' else []\n"
    "    if ids[-2:] != ['toolu_02', 'toolu_03']:\n"
    "        return messages\n"
    "    return [*messages, {'role': 'user', 'content': [\n"
    "        {'type': 'tool_result', 'tool_use_id': i, 'content': 'not run', 'is_error': True}\n"
    "        for i in ('toolu_02', 'toolu_03')]}]"
)


def test_answers_canned_for_a_checkers_inputs_do_not_pass(tmp_path: Path) -> None:
    write_notebook(tmp_path / "canned" / CANNED_LESSON, [CANNED])
    grade = by_student(tmp_path, REPO / "notebooks")["canned"]
    assert (grade.status, grade.total) == ("failed", 7) and grade.passed < 7, grade
