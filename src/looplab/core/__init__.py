"""The agent itself: the loop, its limits and gates, tools and running them, the history
rules and closing dangling calls, results and token arithmetic.

The core imports only the standard library, `anthropic` and what tool validation needs.
"""
