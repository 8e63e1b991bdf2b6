"""Looplab's own answer to an exercise, reached by a path the source does not spell out.

`shipped.py` reads the submission's source for `from looplab import close_dangling`; a name
built at run time (`importlib`, `__import__`, `sys.modules`, a string put together) is out
of its sight. The grader therefore starts each kernel with the shipped answers of its
lesson's exercises out of every looplab namespace (getting one fails like any missing
name), and learns from the kernel whether looplab's own answer ran inside a checked call.
Each notebook here scores what an honest stub scores, or `invalid` with the reason; each
honest solution still gets full marks.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from grading_notebooks import check, write_notebook

from looplab.grading import Grade, batch, grade_folder
from looplab.grading.runner import Options

pytestmark = pytest.mark.slow  # seconds each: `make quick` leaves them out

REPO = Path(__file__).resolve().parents[2]
DANGLING = "05_stop_gates.ipynb"
DANGLING_ZH = "05_停止条件_四道闸门.ipynb"  # graded in Chinese, as its lesson runs
FORK = "03_stop_reason_is_the_fork.ipynb"
SANDBOX = "22_code_in_a_sandbox.ipynb"

BY_NAME = {  # looplab's close_dangling, asked for by a name made at run time
    "import_module": "import importlib\n"
                     "my_close_dangling = getattr(importlib.import_module("
                     "'looplab.history.dangling'), 'close_dangling')",
    "dunder_import": "my_close_dangling = getattr(__import__('looplab.history.dangling', "
                     "fromlist=['_']), 'close_dangling')",
    "sys_modules": "import sys\nimport looplab\n\n"
                   "my_close_dangling = getattr(sys.modules['looplab'], 'close_dangling')",
    "concatenated": "import importlib\n"
                    "module = importlib.import_module('loop' + 'lab')\n"
                    "my_close_dangling = vars(module)['close_' + 'dangling']",
    "reloaded": "import importlib\n"
                "module = importlib.reload(importlib.import_module('looplab.history.dangling'))\n"
                "my_close_dangling = module.close_dangling",
    "called_inside": "import importlib\n\n"
                     "def my_close_dangling(messages):\n"
                     "    fn = getattr(importlib.import_module('looplab'), 'close_dangling')\n"
                     "    return fn(messages)",
}  # fmt: skip
DUG_OUT = {  # the same function, found without its name: only its running gives it away
    "found_in_memory": "import gc\n\n"
                       "my_close_dangling = next(\n"
                       "    f for f in gc.get_objects()\n"
                       "    if callable(f) and getattr(f, '__qualname__', '') == 'close_dangling')",
    "behind_a_wrapper": "import gc\n\n"
                        "def my_close_dangling(messages):\n"
                        "    found = [f for f in gc.get_objects() if callable(f)\n"
                        "             and getattr(f, '__qualname__', '') == 'close_dangling']\n"
                        "    return found[0](messages)",
    "returned_lazily": "import gc\n\n"
                       "class Later(list):  # its items are made when the grader reads it\n"
                       "    def __iter__(self):\n"
                       "        found = [f for f in gc.get_objects() if callable(f)\n"
                       "                 and getattr(f, '__qualname__', '') == 'close_dangling']\n"
                       "        return iter(found[0](self.messages))\n\n"
                       "def my_close_dangling(messages):\n"
                       "    later = Later()\n"
                       "    later.messages = messages\n"
                       "    return later",
}  # fmt: skip
TABLE = {  # lesson 03: looplab's STOP_REASONS, reached the same ways
    "table_by_getattr": "import importlib\n"
                        "table = getattr(importlib.import_module('looplab.core.loop'), "
                        "'STOP_' + 'REASONS')\n\n"
                        "def next_action(stop_reason):\n"
                        "    return table.get(stop_reason, 'stop')",
    "table_from_sys_modules": "import sys\nimport looplab.exercises\n\n"
                              "def next_action(stop_reason):\n"
                              "    table = vars(sys.modules['looplab.exercises.fork'])"
                              "['STOP_REASONS']\n"
                              "    return table.get(stop_reason, 'stop')",
}  # fmt: skip
RESULT = {  # lesson 22: looplab's result_of behind code_result, by a name made at run time
    "result_by_getattr": "import importlib\n\n"
                         "def code_result(run):\n"
                         "    module = importlib.import_module('looplab.lessons.code_sandbox')\n"
                         "    try:\n"
                         "        return getattr(module, 'result_' + 'of')(run), False\n"
                         "    except Exception as e:\n"
                         "        return str(e), True",
    "result_found_in_memory": "import gc\n\n"
                              "def code_result(run):\n"
                              "    fn = next(f for f in gc.get_objects() if callable(f)\n"
                              "              and getattr(f, '__qualname__', '') == 'result_of')\n"
                              "    try:\n"
                              "        return fn(run), False\n"
                              "    except Exception as e:\n"
                              "        return str(e), True",
}  # fmt: skip
STUBS = {
    "stub_05": (DANGLING, "def my_close_dangling(messages):\n    raise NotImplementedError"),
    "stub_03": (FORK, "def next_action(stop_reason):\n    raise NotImplementedError"),
    "stub_22": (SANDBOX, "def code_result(run):\n    raise NotImplementedError"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    root = tmp_path_factory.mktemp("shipped")
    for student, source in {**BY_NAME, **DUG_OUT}.items():
        write_notebook(root / student / DANGLING, [source, check("pass")])
    write_notebook(root / "found_zh" / DANGLING_ZH, [DUG_OUT["found_in_memory"]])
    for student, source in TABLE.items():
        write_notebook(root / student / FORK, [source])
    for student, source in RESULT.items():
        write_notebook(root / student / SANDBOX, [source])
    for student, (lesson, source) in STUBS.items():
        write_notebook(root / student / lesson, [source])
    grades = grade_folder(root, lessons=REPO / "notebooks", jobs=2)
    return {g.student: g for g in grades}


def _score(grade: Grade) -> tuple[str, int, int]:
    return grade.status, grade.passed, grade.total


def test_an_honest_stub_scores_nothing(graded: dict[str, Grade]) -> None:
    assert _score(graded["stub_05"]) == ("failed", 0, 7)
    assert _score(graded["stub_03"]) == ("failed", 0, 9)


@pytest.mark.parametrize("student", BY_NAME)
def test_looplabs_answer_by_a_name_made_at_run_time_is_missing(
    graded: dict[str, Grade], student: str
) -> None:
    assert _score(graded[student]) == _score(graded["stub_05"]), graded[student]


@pytest.mark.parametrize("student", TABLE)
def test_looplabs_table_by_a_name_made_at_run_time_is_missing(
    graded: dict[str, Grade], student: str
) -> None:
    assert _score(graded[student]) == _score(graded["stub_03"]), graded[student]


def test_looplabs_code_result_is_missing_by_name_and_invalid_when_it_runs(
    graded: dict[str, Grade],
) -> None:
    stub = _score(graded["stub_22"])
    assert stub[0] == "failed" and stub[1] == 0 and stub[2] > 0, graded["stub_22"]
    assert _score(graded["result_by_getattr"]) == stub, graded["result_by_getattr"]
    grade = graded["result_found_in_memory"]
    assert _score(grade) == ("invalid", 0, stub[2]), grade
    assert grade.reason == (
        "code_result used looplab's own result_of: the exercise asks you to write it"
    )


@pytest.mark.parametrize("student", DUG_OUT)
def test_looplabs_answer_found_without_its_name_is_invalid_when_it_runs(
    graded: dict[str, Grade], student: str
) -> None:
    grade = graded[student]
    assert _score(grade) == ("invalid", 0, 7), grade
    assert grade.reason == (
        "my_close_dangling used looplab's own close_dangling: the exercise asks you to write it"
    )


def test_the_reason_is_given_in_the_submissions_language(graded: dict[str, Grade]) -> None:
    grade = graded["found_zh"]
    assert _score(grade) == ("invalid", 0, 7), grade
    assert grade.reason == (
        "my_close_dangling 用了 looplab 自带的 close_dangling：这道练习要你自己写出来"
    )


def test_without_bubblewrap_the_kernels_looplab_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fork server's kernels (`--unsandboxed`) are started the same way."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(batch, "_said", [])
    write_notebook(tmp_path / "by_name" / DANGLING, [BY_NAME["import_module"]])
    write_notebook(tmp_path / "dug_out" / DANGLING, [DUG_OUT["found_in_memory"]])
    write_notebook(tmp_path / "table" / FORK, [TABLE["table_by_getattr"]])
    grades = grade_folder(tmp_path, lessons=REPO / "notebooks", jobs=2,
                          options=Options(unsandboxed=True))  # fmt: skip
    by_student = {g.student: _score(g) for g in grades}
    assert by_student == {"by_name": ("failed", 0, 7), "dug_out": ("invalid", 0, 7),
                          "table": ("failed", 0, 9)}  # fmt: skip
