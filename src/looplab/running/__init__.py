"""Running one tool call so that it can neither crash nor hang the loop: here, in the loop's
own thread (`calls.py`), in a thread with a timeout (`threads.py`), or in a process
(`process_calls.py`); the tool chooses.
"""
