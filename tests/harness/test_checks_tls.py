"""The transport-security checks (TLS-VERIFIED, NO-TLS-DOWNGRADE, CLIENT-CERTIFICATE), each proven by a client that
passes and one that misses, over the tls/ scenarios; and unmodified off-the-shelf clients (httpx, node's fetch) that
verify lab certificates with nothing but the handshake's environment.

PASSES and FAILS follow test_checks.py's Proof shape, so its catalogue-wide proof test collects them.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.journal_record import EntryKind, entries_from_json
from a2a_lab.harness.cli.running import own_server_only
from a2a_lab.harness.common.model import Outcome, ScenarioResult

from .proofs import explain, run_each, verify

VALID, UNKNOWN_CA, EXPIRED, WRONG_HOST = "tls/valid-certificate", "tls/unknown-ca", "tls/expired", "tls/wrong-host"
DOWNGRADE, MUTUAL = "tls/downgrade", "tls/mutual-tls"
BAD_CERTIFICATES = (UNKNOWN_CA, EXPIRED, WRONG_HOST)
TLS_SCENARIOS = (VALID, *BAD_CERTIFICATES, DOWNGRADE, MUTUAL)
TLS_CHECKS = ("TLS-VERIFIED", "NO-TLS-DOWNGRADE", "CLIENT-CERTIFICATE")


@dataclass(frozen=True)
class Case:
    """One run of the fake client over a tls/ scenario."""

    scenario: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.scenario} {' '.join(self.args)}".strip()


def case(scenario: str, *defects: str) -> Case:
    return Case(scenario, tuple(a for d in defects for a in ("--defect", d)))


@dataclass(frozen=True)
class Proof:
    check: str
    name: str
    case: Case
    outcome: Outcome
    scenario: Outcome | None = None
    says: str = ""


PASSES = [
    *(
        Proof("TLS-VERIFIED", f"refuses-{s.split('/')[1]}", case(s), Outcome.PASS, Outcome.PASS, "refused the")
        for s in BAD_CERTIFICATES
    ),
    Proof("NO-TLS-DOWNGRADE", "keeps-to-https", case(DOWNGRADE), Outcome.PASS, Outcome.PASS, "kept to https"),
    Proof("CLIENT-CERTIFICATE", "presents-it", case(MUTUAL), Outcome.PASS, Outcome.PASS, "verified client cert"),
]

FAILS = [
    *(
        Proof(
            "TLS-VERIFIED",
            f"accepts-{s.split('/')[1]}",
            case(s, "no-verify"),
            Outcome.FAIL,
            Outcome.FAIL,
            "fails verification",
        )
        for s in BAD_CERTIFICATES
    ),
    Proof(
        "NO-TLS-DOWNGRADE",
        "follows-plain-http",
        case(DOWNGRADE, "follow-downgrade"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "plain-http interface",
    ),
    Proof(
        "CLIENT-CERTIFICATE",
        "first-call-only",
        case(MUTUAL, "client-cert-first-call-only"),
        Outcome.NON_STRICT,
        None,  # the refused GetTask also makes its conclusion wrong (RESULT-EXPECTED)
        "without the client certificate",
    ),
    Proof(
        "CLIENT-CERTIFICATE",
        "never",
        case(MUTUAL, "no-client-cert"),
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "no client certificate",
    ),
]

#: Where each check does not apply, it says SKIPPED: (case, check).
SKIPS = [
    (case(VALID), "TLS-VERIFIED"),
    (case(VALID), "NO-TLS-DOWNGRADE"),
    (case(VALID), "CLIENT-CERTIFICATE"),
    (case(EXPIRED), "NO-TLS-DOWNGRADE"),
]


@pytest.fixture(scope="module")
def outcomes(run_client: Callable[..., list[ScenarioResult]]) -> dict[Case, ScenarioResult]:
    """Every distinct case run once, two at a time (each with its own server and process)."""

    def one(c: Case) -> ScenarioResult:
        return run_client(c.scenario, *c.args, timeout=15)[0]

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
        assert check.expected and check.actual and check.quote, "a miss states expected and actual, quoting"


@pytest.mark.parametrize("pair", SKIPS, ids=lambda p: f"{p[1]}:{p[0]}")
def test_a_tls_check_that_does_not_apply_is_skipped(
    pair: tuple[Case, str], outcomes: dict[Case, ScenarioResult]
) -> None:
    c, check_id = pair
    check = outcomes[c].check(check_id)
    assert check is not None and check.outcome is Outcome.SKIPPED, explain(outcomes[c], check)


def test_the_journal_shows_each_connection_and_what_it_carried(outcomes: dict[Case, ScenarioResult]) -> None:
    """A refused certificate: the handshake began and never completed, no request. Skipped verification: the
    handshake completed and the requests say which certificate their connection had."""
    refused = entries_from_json(outcomes[case(EXPIRED)].journal)
    assert [e.kind for e in refused] and all(e.kind is EntryKind.TLS for e in refused)
    assert all(e.tls is not None and not e.tls.completed and e.tls.certificate == "expired" for e in refused)
    accepted = entries_from_json(outcomes[case(EXPIRED, "no-verify")].journal)
    connections = [e for e in accepted if e.kind is EntryKind.TLS]
    requests = [e for e in accepted if e.kind is not EntryKind.TLS]
    assert connections and all(e.tls is not None and e.tls.completed for e in connections)
    assert requests and all(e.tls is not None and e.tls.certificate == "expired" for e in requests)
    followed = entries_from_json(outcomes[case(DOWNGRADE, "follow-downgrade")].journal)
    assert [e.kind for e in followed if e.tls is None] == [EntryKind.JSONRPC], "only the call came over plain http"


# ------------------------------------------------------------------ unmodified clients, real subprocesses

#: An off-the-shelf httpx client: httpx's defaults (it honours SSL_CERT_FILE), no TLS code at all.
HTTPX_CLIENT = textwrap.dedent(
    """
    import os, sys, uuid, httpx
    card = httpx.get(sys.argv[1]).json()
    url = card["supportedInterfaces"][0]["url"]
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": os.environ["A2A_LAB_MESSAGE"]}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    print(httpx.post(url, json=body, headers={"A2A-Version": "1.0"}).json())
    """
)

#: The same with node's global fetch: node reads NODE_EXTRA_CA_CERTS at start-up.
NODE_CLIENT = textwrap.dedent(
    """
    const card = await (await fetch(process.argv[2])).json();
    const url = card.supportedInterfaces[0].url;
    const message = {messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{text: process.env.A2A_LAB_MESSAGE}]};
    const body = {jsonrpc: "2.0", id: 1, method: "SendMessage", params: {message}};
    const answer = await fetch(url, {method: "POST", body: JSON.stringify(body),
      headers: {"content-type": "application/json", "a2a-version": "1.0"}});
    console.log(await answer.text());
    """
)


def _commands(tmp_path: Path) -> dict[str, str]:
    httpx_client = tmp_path / "httpx_client.py"
    httpx_client.write_text(HTTPX_CLIENT)
    commands = {"httpx": f"{sys.executable} {httpx_client}"}
    node = shutil.which("node")
    if node is not None:
        node_client = tmp_path / "node_client.mjs"
        node_client.write_text(NODE_CLIENT)
        commands["node"] = f"{node} {node_client}"
    return commands


@pytest.mark.parametrize("name", ["httpx", "node"])
def test_unmodified_clients_verify_lab_certificates(
    name: str, tmp_path: Path, run_client: Callable[..., list[ScenarioResult]]
) -> None:
    """Given only the handshake's environment, an unmodified client completes the valid scenario over TLS, and
    refuses every bad certificate (TLS-VERIFIED passes: no request arrived)."""
    commands = _commands(tmp_path)
    if name not in commands:
        pytest.skip(f"{name} is not on PATH")
    results = run_client([VALID, *BAD_CERTIFICATES], client=commands[name], timeout=15, supports=None, jobs=2)
    by_id = {r.id: r for r in results}
    valid = by_id[VALID]
    calls = [e for e in entries_from_json(valid.journal) if e.kind is EntryKind.JSONRPC]
    assert calls and all(e.tls is not None and e.tls.certificate == "valid" for e in calls), explain(valid, None)
    assert valid.client is not None and valid.client.exit_code == 0, explain(valid, None)
    for scenario in BAD_CERTIFICATES:
        result = by_id[scenario]
        check = result.check("TLS-VERIFIED")
        assert check is not None and check.outcome is Outcome.PASS, explain(result, check)
        assert result.client is not None and result.client.exit_code != 0, explain(result, check)


def test_shared_server_runs_leave_the_tls_scenarios_out() -> None:
    """A shared server presents one certificate (or none) for every scenario: `run --server`, `drive` and `score`
    skip the tls/ scenarios instead of scoring a client against a server that does not show their point."""
    scenarios = Catalogue.load().select(["tls/*", "spec/conformant"], [])
    kept = own_server_only(scenarios)
    assert [s.id for s in kept] == ["spec/conformant"] and len(scenarios) == 1 + len(TLS_SCENARIOS)


def test_every_tls_check_has_both_proofs() -> None:
    assert {p.check for p in PASSES} == set(TLS_CHECKS)
    assert {p.check for p in FAILS} == set(TLS_CHECKS)
