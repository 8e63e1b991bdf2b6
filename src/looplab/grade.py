"""`python -m looplab.grade SUBMISSIONS_DIR`: the `looplab-grade` command (`lessons.grading`)."""

import sys

from .grading.cli import main

if __name__ == "__main__":
    sys.exit(main())
