"""A recording never writes a credential the client's base URL carries: in its user and
password, its path, or its query (the SDK appends the API's path after the query:
`/?token=…/v1/messages`). Through the real SDK, against the offline fake."""

from __future__ import annotations

from pathlib import Path

import anthropic
import pytest

import looplab
from looplab import FunctionModel, fake_client, record, say

SECRET = "s3cr3t-Tok3n-9f8e7d"
BASES = {
    "query": f"http://fake.local/?token={SECRET}",
    "path": f"http://fake.local/{SECRET}/",
    "userinfo": f"http://user:{SECRET}@fake.local",
    "all at once": f"http://me:{SECRET}@fake.local/{SECRET}/?key={SECRET}&beta=true",
}


@pytest.mark.parametrize("where", BASES)
def test_no_credential_of_the_base_url_is_written(tmp_path: Path, where: str) -> None:
    path = tmp_path / "run.json"
    echo = FunctionModel(lambda r: say(f"you asked {r.last_user_text()}"))
    client = record(fake_client(echo).with_options(base_url=BASES[where]), path)
    try:  # the fake may refuse the odd path: the exchange is recorded all the same
        client.messages.create(model=looplab.MODEL, max_tokens=50,
                               messages=[{"role": "user", "content": f"is {SECRET} safe?"}])
    except anthropic.APIStatusError:
        pass
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text, text
    assert text.count("\n") >= 2  # the header and the exchange


def test_the_api_path_and_its_own_query_are_kept() -> None:
    from looplab.live.scrub import api_path

    assert api_path("/proxy/v1/messages", "beta=true&token=x", "http://h/proxy/") == (
        "/v1/messages", "beta=true")
    assert api_path("/", f"token={SECRET}/v1/messages", f"http://h/?token={SECRET}") == ("/", "")
