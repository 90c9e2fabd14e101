"""The official a2a-sdk client, scored through the `a2a-sdk` preset: its real behaviour becomes named check results."""

from __future__ import annotations

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.cli import presets
from a2a_lab.harness.client_judging import runner
from a2a_lab.harness.common.model import Outcome

pytest.importorskip("a2a.client")

SCENARIOS = [
    "spec/conformant",
    "spec/task/submitted-needs-get-task",
    "quirks/mixed-version-direct-message",
    "quirks/advertised-method-not-found",
    "quirks/v03-completed-task-artifacts",
]


@pytest.fixture(scope="module")
def scored() -> dict[str, object]:
    cat = Catalogue.load()
    results, supports = runner.run_all(
        [cat.get(s) for s in SCENARIOS], runner.RunOptions(presets.resolve("a2a-sdk"), jobs=2, timeout=30)
    )
    return {"results": {r.id: r for r in results}, "supports": supports}


def test_sdk_runs_through_the_preset_without_harness_errors(scored: dict) -> None:
    for result in scored["results"].values():
        assert result.outcome not in (Outcome.ERROR, Outcome.NO_CONTACT, Outcome.TIMEOUT), (
            result.id,
            result.error,
            result.client,
        )
        assert all(c.outcome is not Outcome.ERROR for c in result.checks), result.id


def test_sdk_streams_on_the_conformant_card_and_understands_the_task(scored: dict) -> None:
    conformant = scored["results"]["spec/conformant"]
    ops = [e.get("operation") for e in conformant.journal if e.get("operation")]
    assert ops[0] == "SendStreamingMessage"  # ClientConfig.streaming defaults to True
    assert conformant.check("RESULT-MATCHES").outcome is Outcome.PASS
    assert conformant.check("VERSION-HEADER").outcome is Outcome.PASS
    assert conformant.client.result["state"] == "TASK_STATE_COMPLETED"


def test_sdk_reads_a_direct_message_without_polling(scored: dict) -> None:
    mixed = scored["results"]["quirks/mixed-version-direct-message"]
    assert mixed.check("NO-POLL-AFTER-MESSAGE").outcome is Outcome.PASS
    assert mixed.client.result["kind"] == "message"


def test_sdk_method_not_found_is_an_error_result_not_a_loop(scored: dict) -> None:
    mnf = scored["results"]["quirks/advertised-method-not-found"]
    assert mnf.client.exit_code == 1 and mnf.client.result["kind"] == "error"
    assert mnf.check("NO-RETRY-LOOP").outcome is Outcome.PASS
    assert mnf.check("FALLBACK").outcome is Outcome.SKIPPED  # no other interface declared


def test_sdk_talks_0_3_to_a_0_3_card(scored: dict) -> None:
    v03 = scored["results"]["quirks/v03-completed-task-artifacts"]
    assert [e["rpc"]["method"] for e in v03.journal if e.get("rpc")] == ["message/send"]
    assert v03.check("METHOD-MATCHES-INTERFACE").outcome is Outcome.PASS
    assert "score 100/100" in v03.client.result["text"]


def test_sdk_supports_are_inferred_from_its_traffic(scored: dict) -> None:
    assert {(b.value, v.value) for b, v in scored["supports"]} == {("JSONRPC", "1.0"), ("JSONRPC", "0.3")}
