"""The message-history rules with the API's own texts (`rules.py`, `texts.py`), and
`close_dangling`, which answers the calls a stopped run left open (`dangling.py`)."""
