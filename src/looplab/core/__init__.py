"""The loop a student reads beside the article: `loop.py` (run_agent, one turn of
AgentRun, the messages it appends), `limits.py` (the stop gates), `result.py` (what a run
leaves behind), `tools.py` (what a tool is, a call of one, answering calls).

It imports only the standard library, `anthropic`, what tool validation needs, and the
two packages beside it: `looplab.running` and `looplab.history`. It words everything in
English; `looplab.i18n` translates what is printed.
"""
