"""`python -m looplab.grading SUBMISSIONS_DIR`: see `cli.py`."""

import sys

from .cli import main

sys.exit(main())
