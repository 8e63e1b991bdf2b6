"""Grading a class's exercise notebooks: checks the grader runs itself, bounded and contained.

    looplab-grade submissions/ --csv gradebook.csv --html gradebook.html

For each submitted notebook (`submissions/<student>/NN_lesson.ipynb`), the grader runs
every code cell in a fresh kernel, then runs the lesson's own check cells, taken from its
copy of the lessons (`notebooks/`), on the functions the exercise names. The number of
checks per exercise comes from the lesson too, so a notebook that deletes, edits or fakes
its check cell, prints a passing scorecard, or patches a checker does not pass.

Each kernel runs in a scratch copy of the student's folder, with a scrubbed environment,
in its own session (on Linux, its own PID namespace), under a per-cell time limit and a
per-notebook deadline; afterwards it is killed with everything it started. A notebook
that loops, exits, crashes or is not a notebook gets a status in the gradebook, and the
rest of the class is still graded.

Modules: `lessons` (what each lesson checks), `submissions` (finding and reading
notebooks), `sandbox` (environment and namespace), `forkserver` + `kernels` (starting and
killing kernels), `session` (running code with time limits), `guard` (the grader's code
inside the kernel), `runner` (one notebook), `batch` (a class), `results`, `report`
(CSV and HTML), `progress`, `cli`.
"""

from .batch import grade_all, grade_folder, grade_notebook
from .results import STATUSES, Grade, Row
from .runner import Options

__all__ = ["STATUSES", "Grade", "Options", "Row", "grade_all", "grade_folder", "grade_notebook"]
