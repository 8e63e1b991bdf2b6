"""Grading a submitted exercise notebook: run it, then score its check cells.

    card = grade_notebook("submissions/ada/05_stop_gates.ipynb")
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...core.i18n import _
from .scorecard import Check, Scorecard

CHECK_TAG = "check"
# A scorecard's summary line, in either language: group 2 is set when every check passed.
_SUMMARY = re.compile(
    r"^(\S+\(.*\))(?:: |：)(?:(all \d+ checks passed|全部 \d+ 项检查通过)"
    r"|(\d+ of \d+ checks passed|\d+ / \d+ 项检查通过))$"
)


def grade_notebook(path: str | Path, *, timeout_s: float = 120) -> Scorecard:
    """Run a student's exercise notebook top to bottom in a fresh kernel; score its checks.

    Every cell tagged `check` (the exercise copies tag all of theirs) is one check. It
    passes when it raised nothing and every scorecard it showed passed. Needs `nbclient`
    (installed with looplab's `test` extra).

        card = grade_notebook("submissions/ada/05_stop_gates.ipynb")
        assert card.passed, card
    """
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "grade_notebook needs nbclient and nbformat: pip install 'looplab[test]'"
        ) from e
    path = Path(path)
    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    NotebookClient(
        nb,
        timeout=timeout_s,
        allow_errors=True,  # a failing check must not stop the checks after it
        interrupt_on_timeout=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    card = Scorecard(f"grade_notebook({path.name})")
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and CHECK_TAG in cell.metadata.get("tags", []):
            card.append(_grade_cell(index, cell))
    return card


def _grade_cell(index: int, cell: Any) -> Check:
    name = _("cell {index}").format(index=index)
    problems: list[str] = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            problems.append(f"{output.get('ename')}: {output.get('evalue')}".splitlines()[0])
            continue
        text = output.get("text") or output.get("data", {}).get("text/plain") or ""
        lines = (text if isinstance(text, str) else "".join(text)).splitlines()
        for i, line in enumerate(lines):
            found = _SUMMARY.match(line)
            if found is None:
                continue
            name = _("cell {index}: {checker}").format(index=index, checker=found.group(1))
            if found.group(2) is None:
                wrong = next((x for x in lines[i + 1 :] if x.startswith("✗ ")), "")
                problems.append(found.group(3) + (
                    _("; first: {check}").format(check=wrong[2:]) if wrong else ""))
    if cell.get("execution_count") is None:
        problems.append(_("the cell did not run"))
    return Check(name, not problems, "; ".join(problems))
