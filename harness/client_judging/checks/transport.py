"""Transport security (A2A 1.0 §7.1-§7.2, §7.4; RFC 9110 §4.3.4): the evidence is what a scenario served over TLS
journaled of each connection (`tls` entries: the certificate the server presented, whether the handshake completed,
whether the client presented a certificate) and of each request (the connection kind that carried it)."""

from __future__ import annotations

from urllib.parse import urlsplit

from a2a_lab.contract.journal_record import Entry, EntryKind
from a2a_lab.contract.scenario import ServerCertificate
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.protocol import cards
from a2a_lab.protocol.versions import Version

TLS_VERIFIED = "TLS-VERIFIED"
NO_TLS_DOWNGRADE = "NO-TLS-DOWNGRADE"
CLIENT_CERTIFICATE = "CLIENT-CERTIFICATE"
#: What a mutual-TLS connection journals when the client presented a certificate the server verified.
VERIFIED = "verified"


def _handshakes(view: RunView) -> list[Entry]:
    return [e for e in view.entries if e.kind is EntryKind.TLS and e.tls is not None]


def _requests(view: RunView) -> list[Entry]:
    """Every request the client sent (card fetches and calls), not the connections or the server's own pushes."""
    return [e for e in view.entries if e.kind is EntryKind.CARD or e.kind.is_call]


@check(
    TLS_VERIFIED,
    Level.MUST,
    "A2A 1.0 §7.2 (C18); RFC 9110 §4.3.4; RFC 6125 §6",
    "No A2A over a certificate that fails verification",
    "A client verifies the server's TLS certificate (a chain to a CA it trusts, within its validity, naming the host "
    "it dialled) and never sends a request over a connection whose certificate fails: it aborts the handshake. The "
    "evidence: a request that arrived on a connection that presented an expired, wrong-host or unknown-CA "
    "certificate. Clients are handed the lab CA (A2A_LAB_CA_FILE, SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, "
    "NODE_EXTRA_CA_CERTS).",
    "A2A's own keyword is SHOULD (§7.2); RFC 9110 §4.3.4, which every https client follows, says a client MUST "
    "verify that the service's identity is an acceptable match for the URI's origin (an automated client MUST log a "
    "failure and SHOULD terminate the connection): a request over a failing certificate shows the client did not "
    "verify, graded MUST. The one client this over-grades verifies, logs and goes on by choice: baseline it",
    rule=(
        "A client verifies the server's TLS certificate (a trusted chain, in its validity, naming the "
        "host) and sends nothing over a connection that fails it."
    ),
    fix=(
        "Keep certificate verification on (no `verify=False`) and trust the CA you are given "
        "(`SSL_CERT_FILE`, A2A_LAB_CA_FILE), so that a bad certificate aborts the handshake."
    ),
)
def tls_verified(view: RunView, c: Check) -> CheckResult:
    bad = [e for e in _requests(view) if e.tls is not None and e.tls.certificate != ServerCertificate.VALID]
    if bad:
        kind = bad[0].tls.certificate if bad[0].tls is not None else "?"
        return c.broken(
            f"the client sent {len(bad)} request(s) over a connection whose certificate ({kind}) fails verification",
            "the handshake aborted: no request on that connection",
            f"{bad[0].method} {bad[0].path} over TLS with the {kind} certificate",
            [Call(bad[0])],
        )
    handshakes = _handshakes(view)
    if not handshakes:
        return c.skipped("the scenario is not served over TLS (or the client never connected)")
    refused = [h for h in handshakes if h.tls is not None and h.tls.certificate != ServerCertificate.VALID]
    if refused:
        kind = refused[0].tls.certificate if refused[0].tls is not None else "?"
        if any(h.tls is not None and h.tls.completed for h in refused):
            return c.passed(f"the client completed a handshake with the {kind} certificate, but sent no request")
        return c.passed(f"the client refused the {kind} certificate: {len(refused)} handshake(s) aborted, no request")
    if not any(h.tls is not None and h.tls.completed for h in handshakes):
        return c.result(
            Outcome.INFORMATIONAL,
            "the client refused the lab's valid certificate: does it trust the CA in A2A_LAB_CA_FILE / SSL_CERT_FILE?",
        )
    return c.skipped("the server's certificate was valid: nothing to refuse")


def _plain_interfaces(card: object) -> list[str]:
    """The http (not https) interface URLs of a card, as either generation reads it."""
    urls = {i.url for reader in Version for i in cards.interfaces(card, reader)}
    return sorted(u for u in urls if urlsplit(u).scheme == "http")


@check(
    NO_TLS_DOWNGRADE,
    Level.SHOULD,
    "A2A 1.0 §7.1 (production deployments MUST use HTTPS), §7.2; RFC 9110 §4.2.2",
    "No plain-http interface from an https card",
    "A client that read the card over https does not follow it to an interface that is plain http: the message "
    "(and any credential) would travel unencrypted, a downgrade the card cannot authorise.",
    "the spec puts HTTPS on deployments (§7.1 MUST) and says nothing of a client that meets a plain-http interface: "
    "following one is NON_STRICT",
    rule="A client that read the card over https does not follow it to a plain-http interface.",
    fix=("Refuse an `http://` interface URL from a card fetched over https, and use another interface or stop."),
)
def no_tls_downgrade(view: RunView, c: Check) -> CheckResult:
    if not any(e.tls is not None for e in view.card_fetches):
        return c.skipped("the card was not read over https")
    plain = _plain_interfaces(view.card)
    if not plain:
        return c.skipped("the https card names no plain-http interface")
    downgraded = [call for call in view.calls if call.entry.tls is None]
    if downgraded:
        return c.broken(
            "the client followed the https card to a plain-http interface",
            "no call over plain http (refuse the interface, or use an https one)",
            f"{downgraded[0].label()} over plain http",
            downgraded[:1],
        )
    return c.passed(f"the client kept to https (the card names {', '.join(plain[:2])})")


@check(
    CLIENT_CERTIFICATE,
    Level.SHOULD,
    "A2A 1.0 §4.5 (MutualTlsSecurityScheme), §8.5, §7.4; RFC 8446 §4.4.2",
    "Client certificate presented where the card requires mutual TLS",
    "Asked to (A2A_LAB_ACTION client_certificate) by an agent whose card requires an mtlsSecurityScheme, the client "
    "presents the certificate it was given (A2A_LAB_CLIENT_CERT_FILE, A2A_LAB_CLIENT_KEY_FILE) on every connection "
    "that carries an A2A call.",
    "§7.4 states the duty to satisfy the card's security requirements without a keyword (as AUTH-PRESENTED): a call "
    "without the certificate is NON_STRICT; none presented at all is UNIMPLEMENTED",
    rule=(
        "A client presents the certificate it was given on every connection that carries an A2A call to "
        "an agent whose card requires mutual TLS."
    ),
    fix=(
        "When the card declares an mtlsSecurityScheme, load the client certificate and key "
        "(A2A_LAB_CLIENT_CERT_FILE, A2A_LAB_CLIENT_KEY_FILE) into the TLS context of every A2A "
        "connection."
    ),
)
def client_certificate(view: RunView, c: Check) -> CheckResult:
    if not view.action.get("client_certificate"):
        return c.skipped("the scenario does not ask the client to present a certificate")
    calls = [call for call in view.calls if call.entry.tls is not None and call.entry.tls.client_certificate]
    if not calls:
        return c.skipped("no call reached the server over mutual TLS")
    without = [call for call in calls if call.entry.tls is not None and call.entry.tls.client_certificate != VERIFIED]
    if len(without) == len(calls):
        return c.result(Outcome.UNIMPLEMENTED, "the client presented no client certificate")
    if without:
        return c.broken(
            f"{len(without)} of {len(calls)} call(s) came on a connection without the client certificate",
            "the certificate on every connection",
            f"{without[0].label()} without a client certificate",
            without[:1],
        )
    return c.passed(f"every call ({len(calls)}) came with the verified client certificate", calls[:1])
