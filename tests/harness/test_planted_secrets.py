"""Planted secrets: a client plants credentials everywhere a journal could show them (tests/harness/clients/
leaky_client.py), in real scenarios run by `a2a-lab run`; no report (JSON, JUnit, HTML, journal JSONL), console line,
or journal as `/_lab/journal` and `/_lab/journal.jsonl` serve it holds one, in any encoding. And scoring still reads
what it needs: the credentials were checked before they were hidden."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.journal_record import BODY_KEEP_BYTES
from a2a_lab.harness import cli
from a2a_lab.harness.client_judging import runner
from a2a_lab.scenarios import __file__ as scenarios_init
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.guard import AdminGuard, new_token

LEAKY = Path(__file__).parent / "clients" / "leaky_client.py"
CATALOGUE = Path(scenarios_init).parent
#: Every place the leaky client plants a secret (the names of its A2A_LAB_PLANTED).
PLACES = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-auth-token",
    "cookie",
    "referer-userinfo",
    "referer-token",
    "scheme-header",
    "scheme-query",
    "scheme-cookie",
    "query-token",
    "query-api-key",
    "query-escaped",
    "big-json-head",
    "big-json-tail",
    "big-text-escaped",
    "big-text-pair",
    "escaped-credentials",
    "escaped-token",
    "escaped-api-key",
    "latin-1",
    "utf-16",
    "webhook-userinfo",
    "webhook-query",
    "webhook-fragment",
    "push-token",
    "push-credentials",
    "message-metadata",
    "stream-metadata",
)
SCHEMES_1_0 = {
    "ident-header": {"apiKeySecurityScheme": {"location": "header", "name": "X-Lab-Ident"}},
    "ident-query": {"apiKeySecurityScheme": {"location": "query", "name": "lab_ident"}},
    "ident-cookie": {"apiKeySecurityScheme": {"location": "cookie", "name": "lab_ident_c"}},
}
SCHEMES_0_3 = {
    "ident-header": {"type": "apiKey", "in": "header", "name": "X-Old-Ident"},
    "ident-query": {"type": "apiKey", "in": "query", "name": "old_ident"},
    "ident-cookie": {"type": "apiKey", "in": "cookie", "name": "old_ident_c"},
}
COMMON = {
    "description": "Its card declares an apiKey in a header, a query parameter and a cookie, of names no "
    "generic rule knows.",
    "spec": "A2A 1.0 §4.5 (APIKeySecurityScheme location, name); A2A 0.3 §5.5 (apiKey in, name)",
    "seed": 13,
    "task": {"steps": ["SUBMITTED", "WORKING", "COMPLETED"]},
    "behaviour": {"SendStreamingMessage": [{"reply": {"stream": {"interval_ms": 10}}}]},
    "checks": ["RESULT-EXPECTED"],
    "expect": {"result": "task", "state": "COMPLETED"},
}
CARD = {
    "name": "apiKey agent",
    "description": "An agent whose card names its API key.",
    "version": "1.0.0",
    "capabilities": {"streaming": True, "pushNotifications": True},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "k", "name": "k", "description": "k", "tags": ["k"]}],
}
OWN_SCENARIOS: dict[str, dict[str, Any]] = {
    "redaction/apikey-1.0": {
        "title": "A 1.0 card declaring apiKey schemes",
        **COMMON,
        "card": {
            "object": {
                **CARD,
                "supportedInterfaces": [
                    {"url": "{base_url}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
                ],
                "securitySchemes": SCHEMES_1_0,
                "securityRequirements": [{"schemes": {"ident-header": {"list": []}}}],
            }
        },
    },
    "redaction/apikey-0.3": {
        "title": "A 0.3 card declaring apiKey schemes",
        **COMMON,
        "card": {
            "object": {
                **CARD,
                "protocolVersion": "0.3.0",
                "url": "{base_url}/a2a",
                "preferredTransport": "JSONRPC",
                "securitySchemes": SCHEMES_0_3,
                "security": [{"ident-header": []}],
            }
        },
    },
}
CATALOGUE_SCENARIOS = ("auth/bearer-required", "push/webhook-with-credentials")


def forms(secret: str) -> list[bytes]:
    """The ways a secret could show: as text, percent-encoded, JSON-escaped, UTF-16, and base64 at each of the three
    alignments (its inner characters, whatever came before it)."""
    out = {secret.encode(), quote(secret).encode(), json.dumps(secret)[1:-1].encode(), secret.encode("utf-16-le")}
    for pad in range(3):
        encoded = base64.b64encode(b"x" * pad + secret.encode())[4:-4]
        out.add(encoded)
    return sorted(out)


@pytest.fixture
def catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two catalogue scenarios and two of our own (apiKey schemes in a 1.0 and a 0.3 card): `a2a-lab run` sees these."""
    root = tmp_path / "catalogue"
    for sid in CATALOGUE_SCENARIOS:
        (root / sid).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CATALOGUE / f"{sid}.yaml", root / f"{sid}.yaml")
    for sid, data in OWN_SCENARIOS.items():
        (root / sid).parent.mkdir(parents=True, exist_ok=True)
        (root / f"{sid}.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    load = Catalogue.load.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(Catalogue, "load", classmethod(lambda cls, _root=None: load(cls, root)))
    return root


def test_no_planted_secret_reaches_a_report_a_console_or_a_journal(
    tmp_path: Path, catalogue: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    planted = {place: f"planted-{place}-{hashlib.sha256(place.encode()).hexdigest()[:16]}" for place in PLACES}
    dump = tmp_path / "dump"
    dump.mkdir()
    monkeypatch.setenv("A2A_LAB_PLANTED", json.dumps(planted))
    monkeypatch.setenv("A2A_LAB_PLANTED_DUMP", str(dump))
    apps: dict[str, ScenarioApp] = {}

    # The client reads the journal as /_lab serves it: these servers' admin token is the test's, handed to it.
    admin_token = new_token()
    monkeypatch.setenv("A2A_LAB_PLANTED_ADMIN_TOKEN", admin_token)

    class Recording(ScenarioApp):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["guard"] = AdminGuard.of(admin_token)
            super().__init__(*args, **kwargs)
            apps[self.scenario.id] = self

    monkeypatch.setattr(runner, "ScenarioApp", Recording)
    reports, html = tmp_path / "reports", tmp_path / "html"
    code = cli.main(
        [
            "run",
            "--client",
            f"{sys.executable} {LEAKY}",
            # The client gets only what it is given explicitly beyond the allow-list and the handshake.
            "--client-env",
            "A2A_LAB_PLANTED",
            "--client-env",
            "A2A_LAB_PLANTED_DUMP",
            "--client-env",
            "A2A_LAB_PLANTED_ADMIN_TOKEN",
            "--report-dir",
            str(reports),
            "--json",
            str(tmp_path / "run.json"),
            "--junit",
            str(tmp_path / "junit.xml"),
            "--html",
            str(html),
            "-v",
        ]
    )
    console = capsys.readouterr()
    ids = {*CATALOGUE_SCENARIOS, *OWN_SCENARIOS}
    assert set(apps) == ids and code in (0, 1), console.err

    # The attack happened: every request was sent and answered, and the server journaled what the client planted.
    for sid in ids:
        sent = json.loads((dump / f"{sid.replace('/', '__')}.sent.json").read_text(encoding="utf-8"))
        streams = apps[sid].state.capability("streaming")
        assert set(sent) == {
            "card",
            "big-json",
            "big-text",
            "escaped",
            "latin-1",
            "utf-16",
            "webhook-userinfo",
            "webhook",
            "message",
        } | ({"stream"} if streams else set()), sid
        assert all(isinstance(status, int) for status in sent.values())
        raw = (
            b"".join(
                name + b":" + value for entry in apps[sid].state.journal.entries for name, value in entry.raw_headers
            )
            + "".join(entry.query for entry in apps[sid].state.journal.entries).encode()
        )
        for place in ("x-api-key", "x-auth-token", "cookie", "query-token", "query-escaped", "referer-token"):
            assert planted[place].encode() in raw, (sid, place)
        exported = apps[sid].state.journal.snapshot()["entries"]
        bodies = [e["body"] for e in exported]
        assert any(b.get("truncated") and b["size"] > BODY_KEEP_BYTES and b.get("redacted") for b in bodies)
        assert sum(1 for b in bodies if b.get("withheld") == "not UTF-8" and len(b["sha256"]) == 64) == 2
    for sid in ("redaction/apikey-1.0", "redaction/apikey-0.3", "push/webhook-with-credentials"):
        entries = apps[sid].state.journal.snapshot()["entries"]
        pushes = [e for e in entries if e["kind"] == "push"]
        # The webhook with userinfo was refused (invalid params naming the url), so only the other was delivered to.
        refusals = [e["answer"] for e in entries if "webhook url refused: it carries userinfo" in json.dumps(e)]
        assert refusals and all(a.get("code") == -32602 for a in refusals), (sid, refusals)
        assert pushes and all(e["path"].startswith("http://127.0.0.1:") for e in pushes), sid
        assert all("token=<redacted>" in e["path"] for e in pushes)
        assert all(e["headers"]["authorization"] == "Bearer <redacted>" for e in pushes)
        delivered = [e for e in entries if e["kind"] == "unmatched" and e["path"] == "/hook"]
        assert delivered and all(e["query"] == "token=<redacted>&x=1" for e in delivered), "deliveries reached the lab"
    # The card's own names (learnt from the card, so on the calls after it) are hidden, in either card shape.
    for sid, header, param in (
        ("redaction/apikey-1.0", "x-lab-ident", "lab_ident"),
        ("redaction/apikey-0.3", "x-old-ident", "old_ident"),
    ):
        call = next(e for e in apps[sid].state.journal.snapshot()["entries"] if e["kind"] == "jsonrpc")
        assert call["headers"][header] == "<redacted>" and f"{param}=<redacted>" in call["query"], sid

    # Scoring still reads what it needs: the bearer token was presented (and checked before it was hidden).
    report = json.loads((reports / "report.json").read_text(encoding="utf-8"))
    checks = {r["id"]: {c["id"]: c["outcome"] for c in r["checks"]} for r in report["scenarios"]}
    assert checks["auth/bearer-required"]["AUTH-PRESENTED"] == "PASS"

    # No secret anywhere, in any form.
    outputs: dict[str, bytes] = {str(p): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    outputs["console stdout"] = console.out.encode()
    outputs["console stderr"] = console.err.encode()
    for sid, app in apps.items():
        outputs[f"{sid}: journal.jsonl()"] = app.state.journal.jsonl().encode()
        outputs[f"{sid}: snapshot()"] = json.dumps(app.state.journal.snapshot()).encode()
    names = {p.name for p in tmp_path.rglob("*") if p.is_file()}
    assert {"report.json", "junit.xml", "index.html", "run.json", "bearer-required.jsonl", "apikey-0.3.jsonl"} <= names
    assert sum(1 for n in names if n.endswith((".journal.json", ".journal.jsonl"))) == 2 * len(ids)
    assert all(outputs[k] for k in outputs if k.endswith(".journal.jsonl")), "the served journals are not empty"
    leaks = [
        f"{place} in {where}"
        for where, data in outputs.items()
        for place, secret in planted.items()
        if any(form in data for form in forms(secret))
    ]
    assert not leaks, leaks
