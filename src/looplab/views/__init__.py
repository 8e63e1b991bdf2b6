"""How a learner sees a run: HTML views, widgets, plots, the token explorer and the quiz.

Views import the core, never the other way round.
"""
