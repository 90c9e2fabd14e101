"""`a2a-lab card check`: lint findings, URL policy, derived requests, signatures, exit codes."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import ECKey

from a2a_lab.harness.server_judging.cardcheck import check as cardcheck
from a2a_lab.harness.server_judging.cardcheck.lint import lint
from a2a_lab.protocol import signing


def good_card(**extra: Any) -> dict[str, Any]:
    card = {
        "name": "agent",
        "description": "d",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {
                "url": "https://agent.example.com/a2a/rest",
                "protocolBinding": "HTTP+JSON",
                "protocolVersion": "1.0",
                "tenant": "acme",
            },
        ],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}],
    }
    card.update(extra)
    return card


def levels(card: Any, policy: str = "strict") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in lint(card, policy):
        out.setdefault(f.level.value, []).append(f.path)
    return out


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "card", "check", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_clean_public_card_has_no_findings() -> None:
    assert levels(good_card()) == {}


def test_missing_required_fields_are_errors() -> None:
    card = good_card()
    del card["skills"], card["capabilities"]
    assert set(levels(card)["error"]) == {"skills", "capabilities"}


def test_version_mix_is_a_warning_never_an_error() -> None:
    """Field note S1: top-level 0.3.0, JSON-RPC 1.0 first, the same URL again as 0.3."""
    card = good_card(protocolVersion="0.3.0")
    card["supportedInterfaces"].append(
        {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
    )
    found = levels(card)
    assert "protocolVersion" in found["warning"] and "error" not in found


def test_patch_version_warns_and_nonsense_version_errs() -> None:
    card = good_card()
    card["supportedInterfaces"][0]["protocolVersion"] = "1.0.1"
    card["supportedInterfaces"][1]["protocolVersion"] = "banana"
    found = levels(card)
    assert "supportedInterfaces[0].protocolVersion" in found["warning"]
    assert "supportedInterfaces[1].protocolVersion" in found["error"]


def test_a_member_of_the_wrong_type_is_an_error_naming_its_section() -> None:
    """`"protocolVersion": 1.0` (a number, as YAML reads it unquoted) reads as "1.0" to a lenient client, and makes a
    strict client's card model refuse the card."""
    card = good_card(version=2)
    card["supportedInterfaces"][0]["protocolVersion"] = 1.0
    card["capabilities"]["streaming"] = "yes"
    findings = {f.path: f for f in lint(card)}
    wrong = findings["supportedInterfaces[0].protocolVersion"]
    assert wrong.level.value == "error" and "a number (1.0)" in wrong.message and "§4.4.6" in wrong.message
    assert wrong.hint == 'write it as a JSON string ("1.0")'
    assert findings["version"].level.value == "error" and "§4.4.1" in findings["version"].message
    assert (
        findings["capabilities.streaming"].level.value == "error"
        and "a boolean" in findings["capabilities.streaming"].message
    )
    assert lint(good_card()).errors == []


def test_url_policy_strict_and_lenient() -> None:
    card = good_card()
    card["supportedInterfaces"][0]["url"] = "http://127.0.0.1:8000/a2a"
    card["supportedInterfaces"][1]["url"] = "https://agent.internal/a2a"
    strict = levels(card)["error"]
    assert strict.count("supportedInterfaces[0].url") == 3  # not https, port, IP literal
    assert "supportedInterfaces[1].url" in strict  # a private name
    assert levels(card, "lenient") == {}


def local_draft() -> dict[str, Any]:
    card = good_card()
    card["supportedInterfaces"][0]["url"] = "http://127.0.0.1:8000/a2a"
    card["supportedInterfaces"][1]["url"] = "http://localhost:8000/a2a/rest"
    return card


def test_the_policy_defaults_to_where_the_card_came_from(tmp_path: Path) -> None:
    """A file is a local draft (lenient), a loopback URL a local test (lenient), any other URL a public agent's card
    (strict); the report says which and why, and --policy overrides it."""
    path = tmp_path / "card.json"
    path.write_text(json.dumps(local_draft()))
    draft = run_cli(str(path))
    assert draft.returncode == 0, draft.stdout + draft.stderr
    assert "URL policy lenient (the default for a file" in draft.stdout
    strict = run_cli(str(path), "--policy", "strict", "--json")
    assert strict.returncode == 1 and json.loads(strict.stdout)["policy_why"] == "as given"
    raw = json.dumps(local_draft()).encode()
    public = cardcheck.check(cardcheck.Loaded("https://agent.example.com/.well-known/agent-card.json", raw), None, None)
    assert (public["policy"], public["errors"]) == ("strict", 6)  # each URL: not https, port, local host
    local = cardcheck.check(cardcheck.Loaded("http://127.0.0.1:8000/.well-known/agent-card.json", raw), None, None)
    assert (local["policy"], local["errors"]) == ("lenient", 0)


@pytest.mark.parametrize("spelled, meant", [("JSON-RPC", "JSONRPC"), ("HTTP-JSON", "HTTP+JSON"), ("gprc", "GRPC")])
def test_an_unknown_binding_suggests_the_core_spelling(spelled: str, meant: str) -> None:
    card = good_card()
    card["supportedInterfaces"][0]["protocolBinding"] = spelled
    [finding] = [f for f in lint(card) if f.path == "supportedInterfaces[0].protocolBinding"]
    assert finding.level.value == "error" and f"did you mean {meant!r}?" in finding.hint


def test_an_unknown_binding_far_from_any_suggests_nothing() -> None:
    card = good_card()
    card["supportedInterfaces"][0]["protocolBinding"] = "SOAP"
    [finding] = [f for f in lint(card) if f.path == "supportedInterfaces[0].protocolBinding"]
    assert "did you mean" not in finding.hint and "core bindings are JSONRPC, HTTP+JSON, GRPC" in finding.hint


def test_security_requirements_must_name_defined_schemes() -> None:
    card = good_card(
        securitySchemes={
            "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}},
            "bad": {"apiKeySecurityScheme": {"name": "k"}},
        },
        securityRequirements=[{"schemes": {"bearer": {"list": []}, "missing": {"list": []}}}],
    )
    assert set(levels(card)["error"]) == {
        "securitySchemes.bad.apiKeySecurityScheme.location",
        "securityRequirements[0].schemes.missing",
    }


def test_v03_and_dual_cards() -> None:
    v03 = {
        "protocolVersion": "0.3.0",
        "name": "n",
        "description": "d",
        "url": "https://a.example.com/a2a",
        "version": "1",
        "capabilities": {},
        "defaultInputModes": [],
        "defaultOutputModes": [],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": []}],
    }
    assert "error" not in levels(v03)
    assert levels({**v03, "url": None} | {"url": "ftp://x"})["error"] == ["url"]
    dual = good_card(protocolVersion="0.3", url="https://agent.example.com/a2a", preferredTransport="JSONRPC")
    assert "error" not in levels(dual)


def test_derived_requests_per_interface(tmp_path: Path) -> None:
    card = good_card()
    card["supportedInterfaces"].append(
        {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
    )
    report = cardcheck.check(cardcheck.Loaded("x", json.dumps(card).encode()), "strict", None)
    r0, r1, r2 = report["requests"]
    assert (r0["jsonrpc_method"], r0["headers"]["A2A-Version"], r0["url"]) == (
        "SendMessage",
        "1.0",
        "https://agent.example.com/a2a",
    )
    assert (r1["http_method"], r1["url"], r1["headers"]["Content-Type"]) == (
        "POST",
        "https://agent.example.com/a2a/rest/acme/message:send",
        "application/a2a+json",
    )
    assert r2["jsonrpc_method"] == "message/send" and "A2A-Version" not in r2["headers"]
    assert r2["body"]["params"]["message"]["kind"] == "message"
    assert r0["curl"].startswith("curl -sS -X POST")


def test_signatures_verify_and_tampering_is_an_error(tmp_path: Path) -> None:
    key = ECKey.generate_key("P-256", private=True).as_dict(private=True)
    key["kid"] = "k1"
    signed = signing.sign(good_card(), key)
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(signing.public_jwks([key])))
    card_file = tmp_path / "card.json"
    card_file.write_text(json.dumps(signed))
    ok = run_cli(str(card_file), "--jwks", str(jwks), "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    report = json.loads(ok.stdout)
    assert report["signatures"]["verdicts"][0]["valid"] is True
    assert report["signatures"]["canonical_sha256"] == signing.sha256(signing.canonical(signed))
    signed["description"] = "changed"
    card_file.write_text(json.dumps(signed))
    bad = run_cli(str(card_file), "--jwks", str(jwks))
    assert bad.returncode == 1 and "INVALID" in bad.stdout


@pytest.mark.parametrize("content, expected", [(b"{not json", 2), (b"[1, 2]", 2), (b"x" * 70000, 2)])
def test_unusable_input_exits_2(tmp_path: Path, content: bytes, expected: int) -> None:
    path = tmp_path / "card.json"
    path.write_bytes(content)
    result = run_cli(str(path))
    assert result.returncode == expected and "a2a-lab:" in result.stderr


def test_missing_file_exits_2() -> None:
    assert run_cli("/nonexistent/card.json").returncode == 2


def test_fetches_a_served_card_once_with_size_and_sha(serve) -> None:
    served = serve("quirks/mixed-version-direct-message")
    result = run_cli(served.card_url, "--policy", "lenient", "--json")
    assert result.returncode == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["shape"] == "1.0" and report["size"] > 0 and len(report["sha256"]) == 64
    assert any(f["path"] == "protocolVersion" and f["level"] == "warning" for f in report["findings"])
    assert [e["kind"] for e in served.journal] == ["card"]


# ------------------------------------------------------------------------------------------- gRPC interfaces


def grpc_card(url: str) -> dict[str, Any]:
    return good_card(supportedInterfaces=[{"url": url, "protocolBinding": "GRPC", "protocolVersion": "1.0"}])


def test_a_grpc_host_port_url_is_clean_and_usable() -> None:
    assert levels(grpc_card("agent.example.com:443")) == {}
    assert levels(grpc_card("[2001:db8::1]:50051")) == {}


@pytest.mark.parametrize(
    ("url", "level", "says", "hint"),
    [
        ("grpc://agent.example.com:443", "warning", "it has a scheme)", 'write "agent.example.com:443"'),
        ("https://agent.example.com:443/a2a", "warning", "it has a scheme and a path", 'write "agent.example.com:443"'),
        ("agent.example.com:443/a2a", "warning", "it has a path)", 'write "agent.example.com:443"'),
        ("agent.example.com", "error", "it has no port)", "write host:port"),
        ("https://agent.example.com/a2a", "warning", "v1.0.1's proto example", 'write "agent.example.com:443"'),
        ("grpc://agent.example.com/a2a", "error", "no address a client can dial", "write host:port"),
    ],
)
def test_a_grpc_url_that_is_not_host_port_is_a_finding(url: str, level: str, says: str, hint: str) -> None:
    (finding,) = lint(grpc_card(url), "strict")
    assert (finding.level.value, finding.path) == (level, "supportedInterfaces[0].url")
    assert says in finding.message and "§5.6 AgentInterface.url" in finding.message and hint in finding.hint


def test_the_grpc_request_is_derived_as_a_grpcurl_command() -> None:
    from a2a_lab.protocol import protobuf
    from a2a_lab.protocol.operations import Operation

    card = grpc_card("grpc://127.0.0.1:50051/a2a")
    card["supportedInterfaces"][0]["tenant"] = "acme"
    card["supportedInterfaces"].append(
        {"url": "agent.example.com:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
    )
    card["supportedInterfaces"].append({"url": "h:1", "protocolBinding": "GRPC", "protocolVersion": "0.3"})
    report = cardcheck.check(cardcheck.Loaded("x", json.dumps(card).encode()), "lenient", None)
    local, public, old = report["requests"]
    assert (local["address"], local["grpc_method"], local["metadata"]) == (
        "127.0.0.1:50051",
        "lf.a2a.v1.A2AService/SendMessage",
        {"a2a-version": "1.0"},
    )
    argv = shlex.split(local["grpcurl"])
    assert argv[:6] == ["grpcurl", "-plaintext", "-import-path", ".", "-proto", "a2a.proto"]
    assert argv[6:8] == ["-H", "a2a-version: 1.0"] and argv[-2:] == [
        "127.0.0.1:50051",
        "lf.a2a.v1.A2AService/SendMessage",
    ]
    sent = json.loads(argv[argv.index("-d") + 1])
    assert sent == local["body"] and sent["tenant"] == "acme" and sent["message"]["role"] == "ROLE_USER"
    protobuf.encode_request(Operation.SEND_MESSAGE, sent, strict=True)  # valid ProtoJSON of SendMessageRequest
    assert "-plaintext" not in shlex.split(public["grpcurl"])  # a public agent serves TLS
    assert not old["usable"] and "A2A 1.0" in old["reason"]
    text = cardcheck.render(report)
    assert "gRPC lf.a2a.v1.A2AService/SendMessage at 127.0.0.1:50051" in text and "-proto a2a.proto" in text
    assert "reflection" in text
