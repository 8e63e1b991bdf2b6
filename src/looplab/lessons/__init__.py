"""What the lessons use on top of everything else: the demo agent and its sandbox, the
exercise checkers and grading.
"""
