"""Endpoints the offline fake does not serve say so, and the async client is public."""

from __future__ import annotations

import asyncio

import anthropic
import pytest

import looplab
from looplab.fake import ScriptedModel, say


def test_unsupported_endpoint_names_the_fake_and_how_to_go_live() -> None:
    client = looplab.fake_client(ScriptedModel([say("hi")]))
    with pytest.raises(anthropic.NotFoundError) as info:
        client.models.list()
    text = str(info.value)
    assert "looplab's offline fake" in text
    assert "LOOPLAB_LIVE=1" in text and "ANTHROPIC_API_KEY" in text


def test_async_fake_client_is_public() -> None:
    client = looplab.async_fake_client(ScriptedModel([say("hi")]))

    async def ask() -> str:
        reply = await client.messages.create(
            model="claude-test-model",
            max_tokens=100,
            messages=[{"role": "user", "content": "hello"}],
        )
        return reply.content[0].text  # type: ignore[union-attr]

    assert asyncio.run(ask()) == "hi"
