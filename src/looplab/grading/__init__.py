"""Grading a class's exercise notebooks: checks decided in the grader, kernels contained.

    looplab-grade submissions/ --csv gradebook.csv --html gradebook.html

For each submitted notebook (`submissions/<student>/NN_lesson.ipynb`), the grader runs
every code cell in a fresh kernel, then runs the lesson's own check cells, taken from its
copy of the lessons (`notebooks/`), in its own process: a checker calls the student's
function in the kernel over a Unix socket, serves that function's API requests, tool calls
and clock from its own fake, and judges the plain JSON sent back. The number of checks
per exercise comes from the lesson too, so a notebook that deletes, edits or fakes its
check cell, prints a passing scorecard, or patches a checker does not pass.

Each kernel runs in a scratch copy of the student's folder, with a scrubbed environment,
in a bubblewrap of its own that holds only that copy (without bubblewrap a class is graded
only when the teacher says `--unsandboxed`), under limits on memory, file size, processes,
open files and CPU time, a per-cell time limit and a per-notebook deadline; afterwards it
is killed with everything it started. A notebook that loops, exits, crashes or is not a
notebook gets a status in the gradebook, and the rest of the class is still graded.

Modules: `lessons` (what each lesson checks), `submissions` (finding and reading
notebooks), `shipped` (answers imported from looplab) + `hiding` (a kernel's looplab
without them), `sandbox` + `jail` + `limits`
(environment, namespaces, bubblewrap, rlimits), `forkserver` + `kernels` + `jailed`
(starting and killing kernels), `session` (running code with time limits), `remote` (check
cells run here against names in the kernel), `wire` + `codec` + `wire_lines` (the grader's
side of the socket), `wire_kernel` (the kernel's side), `runner` (one notebook), `batch` (a
class), `results`, `report` (CSV and HTML), `progress`, `cli`; the gradebook in points:
`points`, `lateness`, `marks` (a class in points), `lms` (one row per student), `feedback`
(a page per student), `update` (re-grading a few), `gradescope` (results.json), `outputs`
(their options). `browser` refuses to start in the browser edition (Pyodide).
"""

from .browser import refuse_in_browser

refuse_in_browser()  # first: what follows cannot load in Pyodide

from .batch import grade_all, grade_folder, grade_notebook  # noqa: E402
from .results import STATUSES, Grade, Row  # noqa: E402
from .runner import Options  # noqa: E402

__all__ = ["STATUSES", "Grade", "Options", "Row", "grade_all", "grade_folder", "grade_notebook"]
