"""Server-side fallback on the fake, through the real SDK: when the requested model
refuses, the next script step plays the fallback model; a `fallback` block marks the
hand-over and `usage.iterations` names the model that answered."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from beta_reply import beta_reply

from looplab import ScriptedModel, fake_client, refuse, say
from looplab.fake import FunctionModel
from looplab.fake.models import Request

ASK = [{"role": "user", "content": "Explain this exploit report."}]
PRIMARY, SECOND, THIRD = "claude-opus-4-8", "claude-sonnet-4-5", "claude-haiku-4-5"


def create(model: Any, fallbacks: Any, stream: bool = False, **extra: Any) -> Any:
    client = fake_client(model)
    body = {"model": PRIMARY, "max_tokens": 200, "messages": ASK, "fallbacks": fallbacks,
            "betas": ["server-side-fallback-2026-06-01"], **extra}
    return beta_reply(client, body, stream)


@pytest.mark.parametrize("stream", [False, True])
def test_a_refusal_is_answered_by_the_fallback_model(stream: bool) -> None:
    model = ScriptedModel([refuse("cyber"), say("The report describes a patched bug.")])
    reply = create(model, [{"model": SECOND}], stream)
    hand_over, answer = reply.content
    assert hand_over.type == "fallback"
    assert (hand_over.from_.model, hand_over.to.model) == (PRIMARY, SECOND)
    assert (hand_over.trigger.type, hand_over.trigger.category) == ("refusal", "cyber")
    assert answer.text == "The report describes a patched bug."
    assert reply.stop_reason == "end_turn" and reply.model == SECOND
    declined, served = reply.usage.iterations
    assert (declined.type, served.type, served.model) == ("message", "fallback_message", SECOND)
    assert reply.usage.input_tokens == declined.input_tokens + served.input_tokens
    assert reply.usage.output_tokens == declined.output_tokens + served.output_tokens


def test_a_fallback_reply_is_accepted_back_in_history() -> None:
    model = ScriptedModel([refuse("cyber"), say("Answered."), say("You are welcome.")])
    reply = create(model, [{"model": SECOND}])
    client = fake_client(model)
    later = [*ASK, {"role": "assistant", "content": reply.to_dict()["content"]},
             {"role": "user", "content": "Thanks."}]
    again = client.beta.messages.create(model=PRIMARY, max_tokens=50, messages=later)
    assert again.content[0].text == "You are welcome."


def test_the_chain_is_tried_in_order() -> None:
    model = ScriptedModel([refuse("cyber"), refuse("general_harms"), say("Answered.")])
    reply = create(model, [{"model": SECOND}, {"model": THIRD}])
    assert [block.type for block in reply.content] == ["fallback", "fallback", "text"]
    assert [(b.from_.model, b.to.model) for b in reply.content[:2]] == [
        (PRIMARY, SECOND), (SECOND, THIRD)]
    assert reply.content[1].trigger.category == "general_harms"
    assert [(i.type, getattr(i, "model", None)) for i in reply.usage.iterations] == [
        ("message", None), ("message", None), ("fallback_message", THIRD)]


def test_when_every_model_refuses_the_reply_is_a_refusal() -> None:
    model = ScriptedModel([refuse("cyber"), refuse("cyber")])
    reply = create(model, [{"model": SECOND}])
    assert reply.stop_reason == "refusal"
    assert all(i.type == "message" for i in reply.usage.iterations)


def test_without_a_refusal_no_fallback_runs() -> None:
    model = ScriptedModel([say("Fine."), say("unused")])
    reply = create(model, [{"model": SECOND}])
    assert [block.type for block in reply.content] == ["text"]
    assert reply.usage.iterations is None and model.position == 1


def test_the_fallback_model_sees_its_own_id_and_max_tokens() -> None:
    seen: list[tuple[str, int]] = []

    def play(request: Request) -> Any:
        seen.append((request.model, request.max_tokens))
        return refuse("cyber") if request.model == PRIMARY else say("word " * 200)

    reply = create(FunctionModel(play), [{"model": SECOND, "max_tokens": 20}],
                   betas=["server-side-fallback-2026-07-01"])
    assert seen == [(PRIMARY, 200), (SECOND, 20)]
    assert reply.stop_reason == "max_tokens"


@pytest.mark.parametrize(("fallbacks", "what"), [
    ("default", 'fallbacks: "default"'),
    ([{"model": SECOND, "thinking": {"type": "adaptive"}}], "fallbacks.0.thinking"),
    ([{"model": SECOND, "speed": "fast"}], "fallbacks.0.speed"),
])
def test_what_the_fake_does_not_play_is_refused(fallbacks: Any, what: str) -> None:
    model = ScriptedModel([refuse("cyber"), say("x")])
    with pytest.raises(anthropic.BadRequestError) as caught:
        create(model, fallbacks)
    assert caught.value.body["error"]["message"] == (  # type: ignore[index]
        f"looplab's fake does not simulate {what}; run live (LOOPLAB_LIVE=1) or script its "
        "effect")
    assert model.position == 0


# -- fallback credits: what the SDK's client-side fallback middleware relies on -------------

CREDIT = ["fallback-credit-2026-07-01"]


def refused_with_token(client: anthropic.Anthropic) -> str:
    refused = client.beta.messages.create(model=PRIMARY, max_tokens=50, messages=ASK,
                                          betas=CREDIT)
    assert refused.stop_reason == "refusal" and refused.stop_details is not None
    assert refused.stop_details.fallback_has_prefill_claim is False
    token = refused.stop_details.fallback_credit_token
    assert token is not None
    return token


def test_a_fallback_credit_token_is_redeemed_on_another_model() -> None:
    client = fake_client(ScriptedModel([refuse("cyber"), say("Answered.")]))
    token = refused_with_token(client)
    retry = client.beta.messages.create(model=SECOND, max_tokens=50, messages=ASK,
                                        betas=CREDIT, fallback_credit_token=token)
    assert retry.content[0].text == "Answered."
    assert retry.usage.fallback_credit is not None
    assert retry.usage.fallback_credit.status.type == "redeemed"


def test_tokens_are_minted_only_with_the_beta() -> None:
    client = fake_client(ScriptedModel([refuse("cyber")]))
    plain = client.beta.messages.create(model=PRIMARY, max_tokens=50, messages=ASK)
    assert plain.stop_details.fallback_credit_token is None  # type: ignore[union-attr]


@pytest.mark.parametrize(("model", "messages", "reason"), [
    (SECOND, [{"role": "user", "content": "Something else."}], "body_mismatch"),
    (PRIMARY, ASK, "invalid_target_model"),
])
def test_a_token_that_does_not_redeem(model: str, messages: Any, reason: str) -> None:
    client = fake_client(ScriptedModel([refuse("cyber"), say("Served anyway.")]))
    token = refused_with_token(client)
    with pytest.raises(anthropic.BadRequestError, match=reason):
        client.beta.messages.create(model=model, max_tokens=50, messages=messages,
                                    betas=CREDIT, fallback_credit_token=token)
    served = client.beta.messages.create(
        model=model, max_tokens=50, messages=messages, betas=CREDIT,
        fallback_credit_token={"token": token, "mode": "best_effort"})
    assert served.content[0].text == "Served anyway."
    status = served.usage.fallback_credit.status  # type: ignore[union-attr]
    assert (status.type, status.reason) == ("not_applied", reason)  # type: ignore[union-attr]


def test_a_malformed_token_or_one_with_fallbacks_is_always_a_400() -> None:
    client = fake_client(ScriptedModel([refuse("cyber"), say("x")]))
    token = refused_with_token(client)
    with pytest.raises(anthropic.BadRequestError, match="malformed"):
        client.beta.messages.create(model=SECOND, max_tokens=50, messages=ASK, betas=CREDIT,
                                    fallback_credit_token={"token": "fct_forged",
                                                           "mode": "best_effort"})
    with pytest.raises(anthropic.BadRequestError, match="combined with fallbacks"):
        client.beta.messages.create(model=SECOND, max_tokens=50, messages=ASK, betas=CREDIT,
                                    fallback_credit_token=token,
                                    fallbacks=[{"model": THIRD}])
