"""The Chinese lessons stay the English lessons, translated: same cells, same code.

For each `notebooks/NN_*.ipynb` there is one `notebooks/zh-CN/NN_*.ipynb`, paired by the
number NN and named in Chinese (so the two tabs in JupyterLab differ), with the same cells
(same ids, same kinds, same order). Code cells hold the same code once comments and string
literals are set aside (the `tokenize` module tells them apart, so the lessons carry no
markers): every name, operator, number and keyword must match; what a string says may be
translated. Markdown is free text. A cell added, removed or changed in one edition and not
the other fails here, naming lesson and cell.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import nbformat
import pytest
from editions import LESSON_GLOB, LESSONS, chinese
from editions import NOTEBOOKS as ROOT
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HAN = re.compile(r"[\u4e00-\u9fff]")
TEXT = "<text>"
F_START, F_END = (getattr(tokenize, n, None) for n in ("FSTRING_START", "FSTRING_END"))
SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
        tokenize.ENDMARKER}


def code_tokens(source: str) -> list[str]:
    """The cell's tokens without comments; each string literal (an f-string whole, with
    what its braces hold, and adjacent literals together) becomes `<text>`.

    IPython lines (`%magic`, `!shell`) are compared as they are."""
    python = "\n".join("pass  # " + line if line.lstrip()[:1] in ("%", "!") else line
                       for line in source.splitlines())
    out: list[str] = []
    depth = 0  # inside an f-string (Python 3.12+ splits one into many tokens)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(python + "\n").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return [source]  # not Python: compare the text itself
    for t in tokens:
        depth += (t.type == F_START) - (t.type == F_END)
        if t.type in SKIP:
            if t.type == tokenize.COMMENT and t.line.lstrip().startswith("pass  # "):
                out.append(t.line.strip())  # a magic line, kept
            continue
        if depth or t.type in (tokenize.STRING, F_END):
            if not (out and out[-1] == TEXT):
                out.append(TEXT)
            continue
        out.append(t.string)
    return out


def differences(english: nbformat.NotebookNode, chinese: nbformat.NotebookNode) -> list[str]:
    """Every way the two editions of one lesson disagree, one line each."""
    en = [(c.get("id"), c.cell_type) for c in english.cells]
    zh = [(c.get("id"), c.cell_type) for c in chinese.cells]
    if en != zh:
        only_en = [i for i, _ in en if i not in {j for j, _ in zh}]
        only_zh = [i for i, _ in zh if i not in {j for j, _ in en}]
        return [f"cells differ: only in English {only_en}, only in Chinese {only_zh}"
                if only_en or only_zh else "same cells in another order or of another kind"]
    found = []
    for e, z in zip(english.cells, chinese.cells, strict=True):
        if e.cell_type == "code" and code_tokens(e.source) != code_tokens(z.source):
            found.append(f"cell {e.get('id')}: the code differs (beyond comments and "
                         "string literals)")
        if e.cell_type == "code" and e.metadata.get("tags", []) != z.metadata.get("tags", []):
            found.append(f"cell {e.get('id')}: tags differ")
    return found


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_each_lesson_has_a_chinese_twin_with_the_same_cells_and_code(lesson: Path) -> None:
    twin = chinese(lesson)
    problems = differences(nbformat.read(lesson, 4), nbformat.read(twin, 4))
    assert not problems, f"{lesson.name}:\n  " + "\n  ".join(problems)


def test_no_chinese_lesson_without_an_english_one() -> None:
    orphans = sorted(p.name for p in (ROOT / "zh-CN").glob(LESSON_GLOB)
                     if p.name[:2] not in {e.name[:2] for e in LESSONS})
    assert not orphans, f"Chinese lessons with no English original: {orphans}"


@pytest.mark.parametrize("folder", ["", "exercises"], ids=["lessons", "student copies"])
def test_each_chinese_twin_has_its_own_chinese_file_name(folder: str) -> None:
    """A JupyterLab tab shows the file name: with both editions open, the tabs must differ,
    and a Chinese reader reads a Chinese title. Lesson and student copy share the name."""
    english = sorted((ROOT / folder).glob(LESSON_GLOB))
    assert english
    for lesson in english:
        twin = chinese(lesson, ROOT / "zh-CN" / folder)
        assert twin.name != lesson.name and HAN.search(twin.stem), twin.name
        assert not set(twin.stem) & set(" /?#%:*\"'<>|\\"), twin.name  # awkward in URLs, zips
        if folder:
            assert (ROOT / "zh-CN" / twin.name).is_file(), f"{twin.name}: not the lesson's name"


# -- the checker itself catches each kind of drift ------------------------------------------

def pair(en_code: str, zh_code: str, **zh_extra: object) -> list[str]:
    en = new_notebook(cells=[new_markdown_cell("# Title", id="title"),
                             new_code_cell(en_code, id="code")])
    zh = new_notebook(cells=[new_markdown_cell("# 标题", id="title"),
                             new_code_cell(zh_code, id="code", **zh_extra)])
    return differences(en, zh)


def test_translated_comments_and_strings_are_allowed() -> None:
    en = 'task = "Run the login tests."\nprint(task)  # show it\n%xmode Minimal'
    zh = 'task = "跑一下 login 模块的测试。"\nprint(task)  # 打印出来\n%xmode Minimal'
    assert pair(en, zh) == []
    en = 'print(f"{n:>2} turns", "of", n)\nx = ("a"\n     "b")'
    zh = 'print(f"第 {n:>2} 轮", "共", n)\nx = ("甲乙")'
    assert pair(en, zh) == []


@pytest.mark.parametrize(
    "zh",
    [
        'task = "跑一下 login 模块的测试。"\nprint(task, end="")',  # code changed
        'task = "跑一下 login 模块的测试。"',  # a line dropped
        'task = 2\nprint(task)',  # a string became a number
        'task = "跑一下 login 模块的测试。"\nprint(tusk)',  # a name changed
        'task = "跑一下 login 模块的测试。"\nprint(task)\n%xmode Plain',  # magic changed
    ],
)
def test_changed_code_is_caught(zh: str) -> None:
    en = 'task = "Run the login tests."\nprint(task)'
    assert pair(en + "\n%xmode Minimal" if "xmode" in zh else en, zh) != []


def test_a_missing_or_moved_cell_is_caught() -> None:
    en = new_notebook(cells=[new_code_cell("x = 1", id="a"), new_code_cell("y = 2", id="b")])
    assert "only in English ['b']" in differences(en, new_notebook(
        cells=[new_code_cell("x = 1", id="a")]))[0]
    assert differences(en, new_notebook(
        cells=[new_code_cell("y = 2", id="b"), new_code_cell("x = 1", id="a")])) != []


def test_changed_tags_are_caught() -> None:
    assert pair("x = 1", "x = 1", metadata={"tags": ["check"]}) == ["cell code: tags differ"]


def test_a_docstring_may_differ_and_the_code_around_it_is_still_compared() -> None:
    en = 'def f():\n    """Run the tests.\n\n    Args: none\n    """\n    return 1'
    zh = 'def f():\n    """跑一下测试。\n\n    Args: none\n    """\n    return 1'
    assert pair(en, zh) == []
    assert pair(en, zh.replace("return 1", "return 2")) != []


def test_the_lessons_carry_no_translation_markers() -> None:
    marked = [f"{p.relative_to(ROOT)} cell {c.get('id')}"
              for p in [*LESSONS, *sorted((ROOT / "zh-CN").glob(LESSON_GLOB))]
              for c in nbformat.read(p, 4).cells
              if c.cell_type == "code" and "# i18n" in c.source]
    assert not marked, f"`# i18n` comments a reader sees: {marked}"


# The headings a reader finds the lesson by, in the same cells in both editions: each
# pattern's number (a step's, a mistake's) must match too.
HEADINGS = [
    ("step", re.compile(r"^## Step (\d+)\b"), re.compile(r"^## 步骤 (\d+)\b")),
    ("exercise", re.compile(r"^## Exercise\b"), re.compile(r"^## 练习")),
    ("mistakes", re.compile(r"^## Mistakes\b"), re.compile(r"^## 常见错误")),
    ("mistake", re.compile(r"^### Mistake #(\d+)"), re.compile(r"^### (?:常见)?错误 #?(\d+)")),
    ("goals", re.compile(r"^## Learning goals"), re.compile(r"^## 学习目标")),
    ("summary", re.compile(r"^## Summary"), re.compile(r"^## 小结")),
]


def headings(notebook: nbformat.NotebookNode, edition: int) -> list[tuple[int, str, str]]:
    """(cell, kind, number) of every heading of HEADINGS; `edition` 1 English, 2 Chinese."""
    found = []
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            for kind, *patterns in HEADINGS:
                match = patterns[edition - 1].match(line)
                if match:
                    found.append((number, kind, "".join(match.groups())))
    return found


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_the_steps_exercise_and_mistakes_headings_are_in_the_same_cells(lesson: Path) -> None:
    english = headings(nbformat.read(lesson, as_version=4), 1)
    assert english, f"{lesson.name}: no heading found"
    assert headings(nbformat.read(chinese(lesson), as_version=4), 2) == english


def test_a_missing_chinese_heading_is_caught() -> None:
    en = new_notebook(cells=[new_markdown_cell("## Step 1 — a\n\ntext"),
                             new_markdown_cell("## Exercise\n\nWrite it.")])
    zh = new_notebook(cells=[new_markdown_cell("## 步骤 1：一\n\n文字"),
                             new_markdown_cell("写出来。")])
    assert headings(en, 1) != headings(zh, 2)
    zh.cells[1].source = "## 练习\n\n写出来。"
    assert headings(en, 1) == headings(zh, 2)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_a_chinese_exercise_says_its_task_in_chinese(lesson: Path) -> None:
    """The `# 任务：` line is what the student copy shows in place of the solution."""
    cells = nbformat.read(chinese(lesson), as_version=4).cells
    english = [i for i, c in enumerate(cells) if c.cell_type == "code" and "# TASK:" in c.source]
    assert english == []
