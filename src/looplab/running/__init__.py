"""Running one tool call so that it can neither crash nor hang the loop.

`calls.run_call` is the one entry: a call runs in the loop's own thread unless its tool asks
for a timeout (`threads.py`) or a process (`processes.py`, `process_calls.py`).
"""
