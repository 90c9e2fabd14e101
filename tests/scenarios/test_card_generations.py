"""A client is judged on the card its protocol generation can read (protocol/cards.py `interfaces(card, reader)`).

A 0.3 client (the fake client's `--generation 0.3`: it reads only `url`, `preferredTransport`, `additionalInterfaces`
and the top-level `protocolVersion`, and refuses a card without `url`) PASSes where the card offers it nothing
readable, and still FAILs where it picks a wrong interface on a card it can read. A 1.0 client is judged as before.
"""

from __future__ import annotations

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Support
from a2a_lab.protocol.versions import Version

from .catalogue_runs import Miss, Run, assert_misses, assert_passes, defect, explain, run, run_cases

V03: tuple[Support, ...] = ((Binding.JSONRPC, Version.V0_3),)
V03_BOTH: tuple[Support, ...] = ((Binding.JSONRPC, Version.V0_3), (Binding.HTTP_JSON, Version.V0_3))
BOTH_BINDINGS = ("--binding", "jsonrpc", "--binding", "http+json")
GEN03 = ("--generation", "0.3")
#: Cards without a top-level url: a 0.3 client cannot read them, and its refusal is correct.
UNREADABLE_TO_03 = [
    "discovery/interface-without-version",
    "discovery/same-binding-0.3-then-1.0",
    "discovery/same-binding-1.0-then-0.3",
    "errors/version-not-supported-with-fallback",
    "quirks/mixed-version-direct-message",
    "quirks/patch-version-binding-mix",
    "responses/completed-task-every-part-kind",
    "auth/signed-card",
]
#: Cards a 0.3 client reads (a dual card, a plain 0.3 card), and a 0.2.5 card it may use (0.3 has no version rule).
READABLE_TO_03 = [
    "discovery/same-binding-0.3-then-1.0-dual",
    "discovery/dual-card-different-urls",
    "spec/conformant",
    "errors/card-0.3-wire-1.0",
    "discovery/v03-preferred-transport",  # JSON-RPC only: the additional interface, as 0.3 §5.6.3 rule 3 allows
]

CORRECT_03 = [run(sid, *GEN03, supports=V03) for sid in UNREADABLE_TO_03 + READABLE_TO_03] + [
    # Speaking both bindings, it takes the main url of the preferred transport (0.3 §5.6.3 rule 2).
    run("discovery/v03-preferred-transport", *GEN03, *BOTH_BINDINGS, supports=V03_BOTH),
]
MISSES_03 = [
    # It reads the 1.0 list instead of its own url: not the interface its card model declares.
    Miss(
        defect("discovery/dual-card-different-urls", "read-supported-interfaces", *GEN03, supports=V03),
        "INTERFACE-SELECTION",
        says="/a2a/legacy",
    ),
    # The URL it posted to is declared (in supportedInterfaces): URL-FROM-CARD reads the card by the generation of
    # the interface a call went to, so the wrong choice is INTERFACE-SELECTION's alone.
    Miss(
        defect("discovery/dual-card-different-urls", "read-supported-interfaces", *GEN03, supports=V03),
        "URL-FROM-CARD",
        Outcome.PASS,
        "every request went to a URL the card declares",
    ),
    # It gives up on a card it can read.
    Miss(
        defect("discovery/same-binding-0.3-then-1.0-dual", "refuse-card", *GEN03, supports=V03),
        "INTERFACE-SELECTION",
        says="gave up",
    ),
    # It supports the preferred transport but takes an additional interface: a 0.3 SHOULD (§5.6.3 rule 2).
    Miss(
        defect("discovery/v03-preferred-transport", "own-binding-order", *GEN03, *BOTH_BINDINGS, supports=V03_BOTH),
        "INTERFACE-SELECTION",
        Outcome.NON_STRICT,
        says="main url",
    ),
    # It sends a 1.0 method to the 0.3 url it read.
    Miss(
        defect("discovery/dual-card-different-urls", "v1-method-on-v03", *GEN03, supports=V03),
        "METHOD-MATCHES-INTERFACE",
        says="SendMessage",
    ),
]
#: Versions read leniently: a 0.3 client calling a 0.2.5 card, a 1.0 reading of a version-less interface.
LENIENT = [
    defect("discovery/v02-card", "any-version", *GEN03, supports=V03),
    defect("discovery/interface-without-version", "no-version-as-1.0", "--no-result"),
]
#: No declared support: the generation is inferred from the whole run (the 0.3 client uses 0.3 on the dual card).
INFERRED = [run(sid, *GEN03, supports=()) for sid in ("discovery/same-binding-0.3-then-1.0-dual", "auth/signed-card")]
#: A client that makes no call anywhere in its run, on a card only a 1.0 client can read: its generation is unknown.
#: (`--polls 3` only keeps it out of INFERRED's run: alone, it is a whole run without a call.)
SILENT = run("discovery/same-binding-1.0-then-0.3", *GEN03, "--polls", "3", supports=())


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT_03, *(m.run for m in MISSES_03), *LENIENT, *INFERRED, SILENT])


@pytest.mark.parametrize("case", CORRECT_03, ids=str)
def test_a_correct_03_client_passes(case: Run, results: dict[Run, ScenarioResult]) -> None:
    result = results[case]
    assert_passes(result)
    if case.scenario in UNREADABLE_TO_03:
        # It refused, and the check that assumed the card says why that is right.
        assert not [e for e in result.journal if e.get("kind") != "card"], explain(result)
        judged = result.check("SIGNATURE-VERIFIED" if case.scenario == "auth/signed-card" else "INTERFACE-SELECTION")
        assert judged is not None and judged.outcome is Outcome.PASS, explain(result, judged)
        assert "no top-level url: a 0.3 client cannot read it" in judged.message, explain(result, judged)


@pytest.mark.parametrize("miss", MISSES_03, ids=str)
def test_a_03_client_that_picks_wrong_on_a_card_it_reads_fails(miss: Miss, results: dict[Run, ScenarioResult]) -> None:
    assert_misses(miss, results[miss.run])


@pytest.mark.parametrize("case", LENIENT, ids=str)
def test_a_lenient_version_reading_breaks_no_must(case: Run, results: dict[Run, ScenarioResult]) -> None:
    result = results[case]
    assert result.outcome is Outcome.PASS, explain(result)
    for check_id in ("INTERFACE-SELECTION", "METHOD-MATCHES-INTERFACE"):
        check = result.check(check_id)
        assert check is not None and check.outcome in (Outcome.PASS, Outcome.SKIPPED), explain(result, check)
    assert [e for e in result.journal if e.get("kind") != "card"], "the client did call the agent"


def test_the_generation_is_inferred_from_the_whole_run(results: dict[Run, ScenarioResult]) -> None:
    for case in INFERRED:
        assert_passes(results[case])
    signed = results[run("auth/signed-card", *GEN03, supports=())].check("SIGNATURE-VERIFIED")
    assert signed is not None and "0.3 client cannot read it" in signed.message


def test_a_client_that_never_calls_on_a_card_one_generation_cannot_read_is_not_failed(
    results: dict[Run, ScenarioResult],
) -> None:
    result = results[SILENT]
    check = result.check("INTERFACE-SELECTION")
    assert check is not None and check.outcome is Outcome.SKIPPED, explain(result, check)
    assert "--client-supports" in check.message and "no top-level url" in check.message
