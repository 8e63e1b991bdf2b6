"""The notebook here is opened by test_lab.py in a real browser, not compared by nbval."""

collect_ignore_glob = ["*.ipynb"]
