#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image; the zip is unpacked in
# /autograder/source. It installs looplab (with the student copies of its lessons, which
# hold the checks and no solution) and bubblewrap, which keeps a student's kernel from the
# grader's files where the container allows user namespaces.
set -euo pipefail
apt-get update
apt-get install -y --no-install-recommends python3 python3-venv python3-pip bubblewrap
python3 -m venv /autograder/venv
cd /autograder/source
/autograder/venv/bin/python -m pip install --upgrade pip
if /autograder/venv/bin/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  /autograder/venv/bin/python -m pip install -c constraints.txt -e ".[lab]"
else
  /autograder/venv/bin/python -m pip install -e ".[lab]"
fi
