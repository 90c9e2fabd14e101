"""The action checks (what A2A_LAB_ACTION asks of a client), each proven by a client that passes it and one that misses.

The client is tests/harness/clients/action_client.py (acts on A2A_LAB_ACTION by default; one flag per mistake), run
through the real runner against catalogue scenarios (streaming/, push/, auth/). PASSES and FAILS follow
test_checks.py's Proof shape (check, name, case, outcome, scenario, says) so the catalogue-wide proof test can collect
them. A check is proven by a miss at its own level: FAIL for MUST, NON_STRICT for SHOULD; STREAMING-USED is a MAY,
which by design cannot fail (not streaming is UNIMPLEMENTED), so its miss is UNIMPLEMENTED.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from a2a_lab.harness.client_judging.checks import REGISTRY
from a2a_lab.harness.common.model import Level, Outcome, ScenarioResult
from tests.harness.client_launch import action_command

from .proofs import explain, run_each, verify

STREAM, DROP, NO_STREAM = "streaming/v1-stream", "streaming/resubscribe-after-drop", "streaming/not-advertised"
PUSH, NO_PUSH = "push/webhook-with-credentials", "push/not-advertised"
CRUD = "push/config-crud"
BEARER, EXTENDED = "auth/bearer-required", "auth/extended-card"
SIGNED, TAMPERED, UNKNOWN_KEY = "auth/signed-card", "auth/signed-card-tampered", "auth/signed-card-unknown-key"
ACTION_CHECKS = (
    "STREAMING-USED",
    "PUSH-RECEIVER",
    "PUSH-CONFIG-MANAGED",
    "AUTH-PRESENTED",
    "EXTENDED-CARD",
    "RESUBSCRIBE",
    "SIGNATURE-VERIFIED",
)


@dataclass(frozen=True)
class Case:
    """One run of the action client: a catalogue scenario and the client's arguments."""

    scenario: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.scenario} {' '.join(self.args)}".strip()

    @property
    def command(self) -> str:
        return action_command(*self.args)


def case(scenario: str, *args: str) -> Case:
    return Case(scenario, args)


@dataclass(frozen=True)
class Proof:
    check: str
    name: str
    case: Case
    #: The check's outcome.
    outcome: Outcome
    #: The scenario's outcome (a MUST miss fails the scenario, a SHOULD miss makes it at least NON_STRICT).
    scenario: Outcome | None = None
    #: Text the check's message, expected or actual value must contain.
    says: str = ""


PASSES = [
    Proof("STREAMING-USED", "streams-when-asked-and-allowed", case(STREAM), Outcome.PASS, Outcome.PASS, "streamed"),
    Proof(
        "PUSH-RECEIVER",
        "acknowledges-genuine-refuses-forged",
        case(PUSH),
        Outcome.PASS,
        Outcome.PASS,
        "forged one(s) refused",
    ),
    Proof(
        "PUSH-CONFIG-MANAGED",
        "creates-lists-gets-deletes",
        case(CRUD),
        Outcome.PASS,
        Outcome.PASS,
        "created, listed, got and deleted",
    ),
    Proof("AUTH-PRESENTED", "token-on-every-call", case(BEARER), Outcome.PASS, Outcome.PASS, "authenticated"),
    Proof("AUTH-PRESENTED", "token-on-the-extended-card", case(EXTENDED), Outcome.PASS, Outcome.PASS),
    Proof("EXTENDED-CARD", "fetched-authenticated", case(EXTENDED), Outcome.PASS, Outcome.PASS, "fetched"),
    Proof("RESUBSCRIBE", "subscribes-again", case(DROP), Outcome.PASS, Outcome.PASS, "SubscribeToTask"),
    Proof(
        "RESUBSCRIBE", "polls-the-task-instead", case(DROP, "--poll-to-resume"), Outcome.PASS, Outcome.PASS, "GetTask"
    ),
    Proof(
        "SIGNATURE-VERIFIED",
        "uses-a-card-that-verifies",
        case(SIGNED),
        Outcome.PASS,
        Outcome.PASS,
        "verifies and the client used it",
    ),
    Proof(
        "SIGNATURE-VERIFIED", "refuses-a-tampered-card", case(TAMPERED), Outcome.PASS, Outcome.PASS, "did not use it"
    ),
    Proof(
        "SIGNATURE-VERIFIED", "refuses-an-unknown-key", case(UNKNOWN_KEY), Outcome.PASS, Outcome.PASS, "did not use it"
    ),
]

FAILS = [
    # A MAY: not streaming when asked is UNIMPLEMENTED (the scenario still passes); streaming where the card does not
    # allow it is CAPABILITIES-RESPECTED's failure, and this check stays out of it.
    Proof(
        "STREAMING-USED",
        "does-not-stream",
        case(STREAM, "--ignore-action"),
        Outcome.UNIMPLEMENTED,
        Outcome.PASS,
        "did not stream",
    ),
    Proof(
        "STREAMING-USED",
        "streams-against-the-card",
        case(NO_STREAM, "--stream-anyway"),
        Outcome.SKIPPED,
        Outcome.FAIL,
        "CAPABILITIES-RESPECTED",
    ),
    Proof(
        "PUSH-RECEIVER",
        "accepts-forged-credentials",
        case(PUSH, "--accept-any-credentials"),
        Outcome.FAIL,
        Outcome.FAIL,
        "wrong credentials",
    ),
    Proof(
        "PUSH-RECEIVER",
        "answers-500",
        case(PUSH, "--webhook-500", "--push-wait", "1"),
        Outcome.FAIL,
        Outcome.FAIL,
        "500",
    ),
    Proof(
        "PUSH-RECEIVER",
        "registers-no-webhook",
        case(PUSH, "--ignore-action"),
        Outcome.UNIMPLEMENTED,
        Outcome.PASS,
        "registered no webhook",
    ),
    Proof(
        "PUSH-CONFIG-MANAGED",
        "names-configs-in-the-other-versions-spelling",
        case(CRUD, "--wrong-config-params", "--push-wait", "1"),
        Outcome.FAIL,
        Outcome.FAIL,
        "refused a push config call",
    ),
    Proof(
        "PUSH-CONFIG-MANAGED",
        "manages-no-config",
        case(CRUD, "--ignore-action"),
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "none of the push config methods",
    ),
    Proof(
        "AUTH-PRESENTED",
        "wrong-token",
        case(BEARER, "--wrong-token"),
        Outcome.NON_STRICT,  # §7.3: every request, no keyword (the extended card's MUST is the next proof)
        None,
        "credentials invalid",
    ),
    Proof(
        "AUTH-PRESENTED",
        "wrong-token-on-the-extended-card",
        case(EXTENDED, "--wrong-token"),
        Outcome.FAIL,
        Outcome.FAIL,
        "credentials invalid",
    ),
    Proof(
        "AUTH-PRESENTED",
        "no-token",
        case(BEARER, "--ignore-action"),
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,  # the scenario exists for the credentials the client did not present
        "no credentials",
    ),
    Proof(
        "EXTENDED-CARD",
        "refused-for-a-wrong-token",
        case(EXTENDED, "--wrong-token"),
        Outcome.NON_STRICT,
        Outcome.FAIL,
        "never obtained",
    ),
    Proof(
        "EXTENDED-CARD",
        "not-fetched",
        case(EXTENDED, "--ignore-action", "--token", "a2a-lab-test-token-extended"),
        Outcome.UNIMPLEMENTED,
        Outcome.PASS,
        "did not call",
    ),
    # Not acting on A2A_LAB_ACTION resubscribe is UNIMPLEMENTED (docs/reference/handshake.md), and FOLLOW-UP-TO-END
    # does not count the dropped stream's task again: the scenario is UNIMPLEMENTED, its subject (the recovery) shown
    # by no MUST or SHOULD check, and the stream it used (STREAMING-USED, a MAY) does not stand for it.
    Proof(
        "RESUBSCRIBE",
        "gives-up-after-the-drop",
        case(DROP, "--no-resume"),
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "did not resume",
    ),
    Proof(
        "SIGNATURE-VERIFIED",
        "refuses-a-good-card-by-a-wrong-canonical-form",
        case(SIGNED, "--no-strip-defaults"),
        Outcome.FAIL,
        Outcome.FAIL,
        "refused a card whose signature verifies",
    ),
    Proof(
        "SIGNATURE-VERIFIED",
        "uses-a-tampered-card",
        case(TAMPERED, "--skip-verification"),
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,  # the scenario exists for the verification the client declined: nothing judged
        "does not verify",
    ),
]

#: Where each check does not apply, it says SKIPPED: (case, check).
SKIPS = [
    (case(NO_STREAM), "STREAMING-USED"),
    (case(NO_PUSH), "PUSH-RECEIVER"),
    (case(STREAM), "PUSH-RECEIVER"),
    (case(STREAM), "AUTH-PRESENTED"),
    (case(STREAM), "EXTENDED-CARD"),
    (case(STREAM), "RESUBSCRIBE"),
    (case(STREAM), "SIGNATURE-VERIFIED"),
    (case(PUSH), "STREAMING-USED"),
    (case(PUSH), "PUSH-CONFIG-MANAGED"),
    (case(NO_PUSH), "PUSH-CONFIG-MANAGED"),
]


@pytest.fixture(scope="module")
def outcomes(run_client: Callable[..., list[ScenarioResult]]) -> dict[Case, ScenarioResult]:
    """Every distinct case run once, two at a time (each with its own server and process)."""

    def one(c: Case) -> ScenarioResult:
        return run_client(c.scenario, client=c.command, timeout=15)[0]

    return run_each([*(p.case for p in PASSES + FAILS), *(c for c, _ in SKIPS)], one)


@pytest.mark.parametrize("proof", PASSES, ids=lambda p: f"{p.check}:{p.name}")
def test_a_correct_client_passes(proof: Proof, outcomes: dict[Case, ScenarioResult]) -> None:
    verify(proof, outcomes)


@pytest.mark.parametrize("proof", FAILS, ids=lambda p: f"{p.check}:{p.name}")
def test_a_defective_client_misses(proof: Proof, outcomes: dict[Case, ScenarioResult]) -> None:
    verify(proof, outcomes)
    check = outcomes[proof.case].check(proof.check)
    assert check is not None
    if check.outcome in (Outcome.FAIL, Outcome.NON_STRICT):
        assert check.expected and check.actual, "a miss states what was expected and what was seen"


@pytest.mark.parametrize("pair", SKIPS, ids=lambda p: f"{p[1]}:{p[0]}")
def test_an_action_check_that_does_not_apply_is_skipped(
    pair: tuple[Case, str], outcomes: dict[Case, ScenarioResult]
) -> None:
    c, check_id = pair
    check = outcomes[c].check(check_id)
    assert check is not None and check.outcome is Outcome.SKIPPED, explain(outcomes[c], check)


def test_every_action_check_has_both_proofs() -> None:
    assert {p.check for p in PASSES} == set(ACTION_CHECKS)
    assert {p.check for p in FAILS} == set(ACTION_CHECKS)
    for check_id in ACTION_CHECKS:
        level = REGISTRY[check_id].level
        # A judged check is proven by a miss at its own level; a MAY check, which never fails, by UNIMPLEMENTED.
        wanted = {Level.MUST: Outcome.FAIL, Level.SHOULD: Outcome.NON_STRICT, Level.MAY: Outcome.UNIMPLEMENTED}[level]
        assert any(p.check == check_id and p.outcome is wanted for p in FAILS), check_id
