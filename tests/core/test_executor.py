"""The six stages, driven directly (the HTTP tests drive the same executor over a real server)."""

import asyncio
import time

import msgspec
import pytest
from principals import ALICE, BOB

import steward
from steward import Surface, Turn
from steward._confirmation import token_digest
from steward.testing import make_host

pytestmark = pytest.mark.anyio

INVOKE = Surface.INVOKE


async def run(host, name, arguments=None, caller=ALICE, surface=INVOKE, **options):
    return await host.executor.invoke(name, arguments, caller=caller, surface=surface, **options)


async def test_automatic_capability_runs_and_reports_every_field(host, sample):
    outcome = await run(host, "sample.echo", {"text": "hi", "shout": True})
    assert (outcome.status, outcome.stage, outcome.code) == ("ok", "result", None)
    assert outcome.result.text == "HI"
    assert outcome.classification.confirmation == "automatic"
    assert outcome.duration_ms > 0
    assert sample.runs == {"echo": 1}


@pytest.mark.parametrize("arguments", [b'{"text": "hi"}', '{"text": "hi"}', {"text": "hi"}])
async def test_arguments_arrive_as_bytes_text_or_mapping(host, arguments):
    assert (await run(host, "sample.echo", arguments)).result.text == "hi"


async def test_stage_1_unknown_capability(host):
    outcome = await run(host, "sample.nothing", {})
    assert (outcome.stage, outcome.status, outcome.code) == ("resolve", "rejected", "CAPABILITY_NOT_FOUND")
    assert outcome.classification is None


async def test_stage_1_other_version(host):
    outcome = await run(host, "sample.echo", {"text": "hi"}, version=2)
    assert (outcome.stage, outcome.code) == ("resolve", "CAPABILITY_NOT_FOUND")
    assert "version 1, not 2" in outcome.message


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"text": 5}, "$.text"),
        ({"text": ""}, "$.text"),
        ({"text": "x" * 101}, "$.text"),
        ({"text": "hi", "extra": 1}, "extra"),
        ({}, "text"),
        (b"[1, 2]", "object"),
        (b"{not json", "malformed"),
    ],
)
async def test_stage_2_refuses_bad_arguments_naming_the_field(host, sample, arguments, named):
    outcome = await run(host, "sample.echo", arguments)
    assert (outcome.stage, outcome.status, outcome.code) == ("validate", "rejected", "INVALID_ARGUMENTS")
    assert named in outcome.message
    assert sample.runs == {}


async def test_stage_3_policy_flag_off_by_default(host, sample):
    outcome = await run(host, "sample.send", {"text": "hi"})
    assert (outcome.stage, outcome.code) == ("policy", "CAPABILITY_DISABLED")
    assert outcome.pending_confirmation is None
    assert len(host.confirmations) == 0


async def test_stage_3_flags_are_independent(host):
    host.policy.set("other_enabled", True)
    assert (await run(host, "sample.send", {"text": "hi"})).code == "CAPABILITY_DISABLED"
    assert (await run(host, "sample.other")).status == "ok"


async def test_stage_3_policy_check_refuses_before_confirmation(host, sample):
    outcome = await run(host, "sample.room", {"text": "attic"})
    assert (outcome.stage, outcome.code) == ("policy", "ENTITY_NOT_ALLOWLISTED")
    assert len(host.confirmations) == 0
    assert (await run(host, "sample.room", {"text": "hall"})).status == "pending"


async def test_stage_3_budget_per_turn(host, sample):
    turn = Turn()
    codes = [(await run(host, "sample.tick", turn=turn)).code for _ in range(3)]
    assert codes == [None, None, "INVOCATION_LIMIT_EXCEEDED"]
    assert sample.runs == {"tick": 2}
    assert (await run(host, "sample.tick", turn=Turn())).status == "ok"


async def test_stage_5_timeout_cancels_the_handler(host, sample):
    outcome = await run(host, "sample.slow")
    assert (outcome.stage, outcome.status, outcome.code) == ("execute", "failed", "TIMEOUT")
    assert sample.cancelled.is_set()
    assert outcome.duration_ms < 5000


async def test_stage_5_handler_crash_is_reported_without_its_text(host):
    outcome = await run(host, "sample.boom")
    assert (outcome.stage, outcome.code) == ("execute", "EXECUTION_FAILED")
    assert "RuntimeError" in outcome.message
    assert "hunter2" not in outcome.message


async def test_stage_5_plugin_codes_pass_through(host):
    outcome = await run(host, "sample.upstream")
    assert (outcome.status, outcome.code, outcome.message) == (
        "failed",
        "UPSTREAM_UNAVAILABLE",
        "the sample upstream is down",
    )


async def test_stage_6_result_is_validated(host):
    outcome = await run(host, "sample.wrong")
    assert (outcome.stage, outcome.status, outcome.code) == ("result", "failed", "INVALID_RESULT")
    assert outcome.result is None


async def test_stage_6_result_cap_on_encoded_bytes(host):
    assert (await run(host, "sample.big", {"size": 900})).status == "ok"
    outcome = await run(host, "sample.big", {"size": 2000})
    assert (outcome.stage, outcome.code) == ("result", "RESULT_TOO_LARGE")
    assert outcome.result is None


# stage 4: confirmation


async def pending(host, text="hello", caller=ALICE, surface=INVOKE):
    host.policy.set("sample_enabled", True)
    outcome = await run(host, "sample.send", {"text": text}, caller=caller, surface=surface)
    assert (outcome.status, outcome.stage) == ("pending", "confirm")
    return outcome.pending_confirmation


async def test_pending_carries_the_literal_arguments(host, sample):
    confirmation = await pending(host, "the exact query")
    assert confirmation.capability == "sample.send"
    assert confirmation.version == 1
    assert confirmation.arguments == {"text": "the exact query", "shout": False}
    assert confirmation.expires_in_seconds == 120
    assert len(confirmation.token) >= 43  # 32 random bytes, base64url
    assert sample.runs == {}


async def test_tokens_are_unique_and_random(host):
    tokens = {(await pending(host)).token for _ in range(20)}
    assert len(tokens) == 20


async def test_approval_runs_exactly_once(host, sample):
    confirmation = await pending(host)
    outcome = await host.executor.answer(token_digest(confirmation.token), True, caller=ALICE, surface=INVOKE)
    assert (outcome.status, outcome.result.text) == ("ok", "sent hello")
    again = await host.executor.answer(token_digest(confirmation.token), True, caller=ALICE, surface=INVOKE)
    assert (again.status, again.code) == ("rejected", "INVALID_CONFIRMATION")
    assert sample.runs == {"send": 1}


async def test_fifty_concurrent_approvals_execute_once(host, sample):
    confirmation = await pending(host)
    outcomes = await asyncio.gather(
        *(host.executor.answer(token_digest(confirmation.token), True, caller=ALICE, surface=INVOKE) for _ in range(50))
    )
    assert sorted(outcome.code or "ok" for outcome in outcomes) == ["INVALID_CONFIRMATION"] * 49 + ["ok"]
    assert sample.runs == {"send": 1}


async def test_denial_is_a_normal_outcome_and_nothing_runs(host, sample):
    confirmation = await pending(host)
    outcome = await host.executor.answer(token_digest(confirmation.token), False, caller=ALICE, surface=INVOKE)
    assert (outcome.stage, outcome.status, outcome.code) == ("confirm", "denied", "CONFIRMATION_DENIED")
    assert sample.runs == {}


async def test_expired_token_is_told_truthfully_then_forgotten(host, sample, clock):
    confirmation = await pending(host)
    clock.advance(121)
    outcome = await host.executor.answer(token_digest(confirmation.token), True, caller=ALICE, surface=INVOKE)
    assert (outcome.status, outcome.code) == ("denied", "CONFIRMATION_EXPIRED")
    assert sample.runs == {}
    late = await pending(host)
    clock.advance(120 + 601)
    await pending(host)  # issuing sweeps tokens past their grace period
    outcome = await host.executor.answer(token_digest(late.token), True, caller=ALICE, surface=INVOKE)
    assert outcome.code == "INVALID_CONFIRMATION"


async def test_token_still_valid_just_before_expiry(host, sample, clock):
    confirmation = await pending(host)
    clock.advance(119)
    outcome = await host.executor.answer(token_digest(confirmation.token), True, caller=ALICE, surface=INVOKE)
    assert outcome.status == "ok"


@pytest.mark.parametrize(
    ("caller", "surface", "capability"),
    [(BOB, INVOKE, None), (ALICE, Surface.CONVERSATION, None), (ALICE, INVOKE, "sample.echo")],
)
async def test_foreign_tokens_are_invalid(host, sample, caller, surface, capability):
    confirmation = await pending(host)
    outcome = await host.executor.answer(
        token_digest(confirmation.token), True, caller=caller, surface=surface, capability=capability
    )
    assert (outcome.stage, outcome.code) == ("confirm", "INVALID_CONFIRMATION")
    assert sample.runs == {}


async def test_unknown_token(host):
    outcome = await host.executor.answer("made-up", True, caller=ALICE, surface=INVOKE)
    assert outcome.code == "INVALID_CONFIRMATION"


async def test_approval_reruns_policy(host, sample):
    confirmation = await pending(host)
    host.policy.set("sample_enabled", False)
    outcome = await host.executor.answer(token_digest(confirmation.token), True, caller=ALICE, surface=INVOKE)
    assert (outcome.stage, outcome.code) == ("policy", "CAPABILITY_DISABLED")
    assert sample.runs == {}


async def test_approval_reruns_policy_check(host, sample):
    confirmation = (await run(host, "sample.room", {"text": "hall"})).pending_confirmation
    sample.allowed.discard("hall")
    outcome = await host.executor.answer(token_digest(confirmation.token), True, caller=ALICE, surface=INVOKE)
    assert outcome.code == "ENTITY_NOT_ALLOWLISTED"
    assert sample.runs == {}


async def test_preapproval_applies_to_invoke_and_service_only(host, sample):
    host.policy.set("sample_enabled", True)
    fleet = ALICE.__class__("fleet", frozenset({"invoke", "service"}), frozenset({"sample.send"}))
    for surface in (Surface.INVOKE, Surface.SERVICE):
        outcome = await run(host, "sample.send", {"text": "x"}, caller=fleet, surface=surface)
        assert (outcome.status, outcome.classification.confirmation) == ("ok", "preapproved")
    outcome = await run(host, "sample.send", {"text": "x"}, caller=fleet, surface=Surface.CONVERSATION)
    assert outcome.status == "pending"
    assert sample.runs == {"send": 2}


async def test_preapproval_does_not_skip_policy(host, sample):
    fleet = ALICE.__class__("fleet", frozenset({"invoke"}), frozenset({"sample.send"}))
    outcome = await run(host, "sample.send", {"text": "x"}, caller=fleet)
    assert outcome.code == "CAPABILITY_DISABLED"


class _Steps(msgspec.Struct):
    before_await_seconds: float


class _Done(msgspec.Struct):
    done: bool


class _FirstStep:
    """A handler that works before its first await (sleeping in the loop, as a careless one does)."""

    @steward.hookimpl
    def register_capabilities(self):
        async def work(arguments: _Steps, context) -> _Done:
            time.sleep(arguments.before_await_seconds)
            if arguments.before_await_seconds:
                await asyncio.sleep(5)
            return _Done(True)

        return [
            steward.Capability(
                "steps.work",
                1,
                "Works.",
                _Steps,
                _Done,
                "read_only",
                "local",
                work,
                bounds=steward.Bounds(timeout_seconds=0.2),
            )
        ]


async def test_a_handler_done_without_awaiting_answers_at_once_and_one_that_overran_first_is_stopped(tmp_path):
    """The first step runs before any deadline is set up; a deadline then counts it all the same."""
    host = make_host([steward.Plugin("steps", _FirstStep())], data_dir=tmp_path)
    try:
        quick = await host.executor.invoke("steps.work", {"before_await_seconds": 0}, caller=ALICE, surface=INVOKE)
        assert (quick.status, quick.result) == ("ok", _Done(True))
        started = time.perf_counter()
        late = await host.executor.invoke("steps.work", {"before_await_seconds": 0.3}, caller=ALICE, surface=INVOKE)
        assert (late.status, late.code) == ("failed", "TIMEOUT")
        assert time.perf_counter() - started < 1.0, "stopped at its first await, not after its 5 s sleep"
    finally:
        host.close()
