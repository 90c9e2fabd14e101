"""The card check as a function: read a card (a file, or a URL fetched once, its origin's well-known path found as
the reference client finds it), then lint it, derive the requests it implies, and verify its signatures (`check`),
and say it as text (`render`). `a2a-lab card check` (cli/cardcheck.py) and the UI's card page call it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from a2a_lab.contract import userfile
from a2a_lab.harness.clients.refclient.discovery import card_urls
from a2a_lab.harness.clients.refclient.failures import UsageFailure
from a2a_lab.harness.server_judging.cardcheck import urlpolicy
from a2a_lab.harness.server_judging.cardcheck.derive import derive
from a2a_lab.harness.server_judging.cardcheck.lint import lint
from a2a_lab.protocol import cards, signing
from a2a_lab.protocol.bindings import JSON
from a2a_lab.protocol.exceptions import LabError


class UnusableInput(LabError):
    """The card or key set cannot be read or is not JSON (exit 2)."""


@dataclass
class Loaded:
    source: str
    raw: bytes
    content_type: str | None = None
    #: How the card was found, when not where it was asked for (reported as warnings).
    notes: list[str] = field(default_factory=list)


def _get(http: httpx.Client, url: str, limit: int) -> tuple[int, Loaded]:
    """GET `url`: its status, and (on 200) its body, at most `limit` bytes."""
    with http.stream("GET", url, headers={"Accept": JSON}) as r:
        if r.status_code != 200:
            return r.status_code, Loaded(url, b"")
        chunks, size = [], 0
        for chunk in r.iter_bytes():
            size += len(chunk)
            if size > limit:
                raise UnusableInput(
                    f"{url}: the card is larger than {limit} bytes (a careful client stops reading); "
                    "raise --max-bytes to check it anyway"
                )
            chunks.append(chunk)
        return 200, Loaded(url, b"".join(chunks), r.headers.get("content-type"))


def _read_url(target: str, limit: int, card: bool) -> Loaded:
    """What `target` serves. A `card` is found as the reference client and `probe` find it
    (refclient.discovery.card_urls): an origin or base URL gets the well-known path, the legacy path is tried on 404."""
    try:
        primary, legacy = card_urls(target) if card else (target, None)
    except UsageFailure as failure:
        raise UnusableInput(failure.message) from None
    try:
        with httpx.Client(timeout=10, trust_env=False, follow_redirects=False) as http:
            status, loaded = _get(http, primary, limit)
            if status == 404 and legacy is not None:
                legacy_status, loaded = _get(http, legacy, limit)
                if legacy_status != 200:
                    raise UnusableInput(f"no agent card: {primary} answered 404 and {legacy} {legacy_status}")
                loaded.notes.append(f"{primary} answered 404; checked the legacy pre-0.3 card path {legacy}")
            elif status != 200:
                raise UnusableInput(f"{primary}: HTTP {status}")
            return loaded
    except httpx.HTTPError as exc:
        raise UnusableInput(f"{target}: cannot fetch the card: {type(exc).__name__}: {exc}") from None


def load(source: str, limit: int, kind: userfile.Kind = userfile.CARD) -> Loaded:
    """A card (or a file of another kind) from a file, read by the bounded reader of user files, or from an http(s)
    URL (a card's: its card URL, or an origin or base URL whose well-known card is fetched); at most `limit` bytes
    either way."""
    if source.startswith(("http://", "https://")):
        return _read_url(source, limit, card=kind is userfile.CARD)
    try:
        return Loaded(source, userfile.read_bytes(Path(source), kind.at_most(limit)))
    except userfile.Refused as exc:
        raise UnusableInput(str(exc)) from None


def parsed(loaded: Loaded, kind: userfile.Kind) -> Any:
    """The JSON of a loaded file, within the kind's nesting and values."""
    try:
        return userfile.loads_json(loaded.raw, loaded.source, kind)
    except userfile.Refused as exc:
        raise UnusableInput(str(exc)) from None


def _jwks(source: str) -> dict[str, Any]:
    data = parsed(load(source, userfile.KEYS.max_bytes, userfile.KEYS), userfile.KEYS)
    if isinstance(data, dict) and "keys" not in data and "kty" in data:
        data = {"keys": [data]}
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise UnusableInput(f'{source}: expected a JWKS ({{"keys": [...]}}) or a single JWK')
    return data


def check(loaded: Loaded, policy: str | None, jwks_source: str | None) -> dict[str, Any]:
    """The card check's report. `policy` None: the default for where the card came from (urlpolicy.default_for),
    and the report says why."""
    why = "as given"
    if policy is None:
        policy, why = urlpolicy.default_for(loaded.source)
    card = parsed(loaded, userfile.CARD)
    if not isinstance(card, dict):
        raise UnusableInput(f"{loaded.source}: the card is JSON but not an object")
    findings = lint(card, policy)
    for note in loaded.notes:
        findings.warning("(discovery)", note, "serve the card at the well-known path /.well-known/agent-card.json")
    if loaded.content_type and "json" not in loaded.content_type.lower():
        findings.warning("(content-type)", f"served as {loaded.content_type!r}", "serve the card as application/json")
    report: dict[str, Any] = {
        "source": loaded.source,
        "size": len(loaded.raw),
        "sha256": hashlib.sha256(loaded.raw).hexdigest(),
        "shape": cards.shape(card),
        "policy": policy,
        "policy_why": why,
        "findings": [f.to_json() for f in findings],
        "requests": [derive(i).to_json() for i in cards.interfaces(card)],
    }
    if card.get(signing.SIGNATURES) or jwks_source:
        canonical = signing.canonical(card)
        sig: dict[str, Any] = {
            "count": len(card.get(signing.SIGNATURES) or []),
            "canonical": canonical.decode("utf-8"),
            "canonical_sha256": signing.sha256(canonical),
        }
        if jwks_source:
            verdicts = signing.verify(card, _jwks(jwks_source))
            sig["verdicts"] = [v.to_json() for v in verdicts]
            if not any(v.valid for v in verdicts):
                findings.error(
                    "signatures",
                    "no signature verifies with the given key set" if verdicts else "the card is not signed",
                    "sign the canonical form (§8.4.1) with a key in the set",
                )
        else:
            findings.info("signatures", "signed; give --jwks FILE|URL to verify")
        report["signatures"] = sig
        report["findings"] = [f.to_json() for f in findings]
    report["errors"] = len(findings.errors)
    report["warnings"] = sum(1 for f in findings if f.level.value == "warning")
    return report


def render(report: dict[str, Any]) -> str:
    lines = [
        f"card: {report['source']}",
        f"  {report['size']} bytes, sha256 {report['sha256']}, shape {report['shape']}",
        f"  URL policy {report['policy']} ({report['policy_why']}; --policy strict|lenient to choose)",
        "",
    ]
    if report["findings"]:
        for f in report["findings"]:
            lines.append(
                f"{f['level'].upper():7} {f['path'] or '(card)'}: {f['message']}"
                + (f"\n        fix: {f['hint']}" if f["hint"] else "")
            )
    else:
        lines.append("no findings")
    lines.append("\nrequests a narrow client derives (SendMessage):")
    for r in report["requests"]:
        i = r["interface"]
        lines.append(f"  #{i['index']} {i['binding']} {i['protocolVersion'] or '(no version: 0.3)'} {i['url']}")
        if not r["usable"]:
            lines.append(f"     skipped: {r['reason']}")
            continue
        if "grpcurl" in r:
            lines.append(f"     gRPC {r['grpc_method']} at {r['address']}")
            lines.append(f"     {r['grpcurl']}")
            lines.append(f"     ({r['note']})")
            continue
        lines.append(
            f"     {r['http_method']} {r['url']}"
            + (f"  (JSON-RPC method {r['jsonrpc_method']})" if r["jsonrpc_method"] else "")
        )
        lines.append(f"     {r['curl']}")
    if "signatures" in report:
        s = report["signatures"]
        lines.append(f"\nsignatures: {s['count']}; canonical form sha256 {s['canonical_sha256']}")
        for v in s.get("verdicts", []):
            lines.append(
                f"  #{v['index']} kid={v['kid']} alg={v['alg']}: {'valid' if v['valid'] else 'INVALID'} ({v['reason']})"
            )
    lines.append(f"\n{report['errors']} error(s), {report['warnings']} warning(s)")
    return "\n".join(lines)
