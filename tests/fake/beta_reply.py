"""One request through the SDK's beta client, sent as it is or streamed and assembled: the
fake's features are tested both ways."""

from __future__ import annotations

from typing import Any


def beta_reply(client: Any, body: dict[str, Any], stream: bool) -> Any:
    """`client.beta.messages.create(**body)`, or the same request streamed, as one message."""
    if stream:
        with client.beta.messages.stream(**body) as events:
            return events.get_final_message()
    return client.beta.messages.create(**body)
