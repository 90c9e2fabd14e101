"""`probe(target)`: fetch and lint the card, then probe every declared interface a2a-lab speaks, each as one result
(`probe/card`, then `probe/<index>-<binding>-<version>`) in the harness's result model."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.contract.journal import Journal
from a2a_lab.contract.journal_record import Entry, EntryKind, Response, RpcRef, SentEvent, SentKind
from a2a_lab.contract.redaction import Redaction
from a2a_lab.harness.clients.refclient.credentials import CardAuth, card_auth
from a2a_lab.harness.clients.refclient.discovery import discover
from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.http import make_client
from a2a_lab.harness.clients.refclient.options import CONNECT_TIMEOUT_S, POLL_START_S, READ_TIMEOUT_S, ClientOptions
from a2a_lab.harness.clients.refclient.recording import IDENTITY, Exchange, Recorder
from a2a_lab.harness.clients.refclient.selection import GRPC_SUPPORT, SUPPORTED
from a2a_lab.harness.common.model import CheckResult, Outcome, ScenarioResult
from a2a_lab.harness.common.outcome import scenario_outcome
from a2a_lab.harness.server_judging.cardcheck import urlpolicy
from a2a_lab.harness.server_judging.cardcheck.lint import lint
from a2a_lab.harness.server_judging.probe.authcheck import auth_enforced
from a2a_lab.harness.server_judging.probe.checks import card_valid, response_shape, send_message, task_follow_up
from a2a_lab.harness.server_judging.probe.context import InterfaceProbe, Seen
from a2a_lab.harness.server_judging.probe.definitions import (
    AUTH_ENFORCED,
    ERROR_ENVELOPE,
    INTERFACE_CHECKS,
    RESPONSE_SHAPE,
    SEND_MESSAGE,
    STREAMING,
    TASK_FOLLOW_UP,
    UNKNOWN_TASK,
    VERSION_NEGOTIATION,
    ProbeCheck,
)
from a2a_lab.harness.server_judging.probe.errorchecks import error_envelope, unknown_task, version_negotiation
from a2a_lab.harness.server_judging.probe.streamcheck import streaming
from a2a_lab.protocol import cards, grpcwire, jsonrpc, jsontext
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface, Support
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.versions import Version

GROUP = "probe"
CARD_ID = f"{GROUP}/card"
DEFAULT_TEXT = "Hello from a2a-lab probe"
#: GetTask calls TASK-FOLLOW-UP makes at most for a task that is still moving.
POLLS = 5
#: The answers a finding quotes at most (the last ones its check got).
QUOTED = 3

#: The order the checks run in (SEND-MESSAGE and TASK-FOLLOW-UP feed RESPONSE-SHAPE; ERROR-ENVELOPE judges all).
_RUN_ORDER: tuple[tuple[ProbeCheck, Callable[[InterfaceProbe], CheckResult]], ...] = (
    (SEND_MESSAGE, send_message),
    (TASK_FOLLOW_UP, task_follow_up),
    (RESPONSE_SHAPE, response_shape),
    (UNKNOWN_TASK, unknown_task),
    (STREAMING, streaming),
    (VERSION_NEGOTIATION, version_negotiation),
    (AUTH_ENFORCED, auth_enforced),
    (ERROR_ENVELOPE, error_envelope),
)


class NothingToProbe(LabError):
    """No card to probe (exit 2)."""


@dataclass(frozen=True)
class ProbeOptions:
    binding: Binding | None = None
    #: The card's URL policy; None: lenient for a loopback target, strict otherwise.
    policy: str | None = None
    timeout: float = READ_TIMEOUT_S
    #: A bearer or access token: presented as the card's scheme says (`Authorization: Bearer <token>`).
    token: str | None = None
    #: Credentials for the card's other schemes (apiKey, username, password, client_id, client_secret): the card
    #: decides which scheme is used and where each goes, as the reference client does.
    credentials: Mapping[str, str] | None = None
    text: str = DEFAULT_TEXT
    polls: int = POLLS
    poll_start: float = POLL_START_S
    sleep: Callable[[float], None] = time.sleep


@dataclass
class ProbeRun:
    target: str
    card_url: str
    policy: str
    results: list[ScenarioResult] = field(default_factory=list)
    #: The (binding, version) pairs a2a-lab spoke to the server.
    probed: set[Support] = field(default_factory=set)


def default_policy(target: str) -> str:
    """The URL policy for a probe target: lenient for a loopback target, strict otherwise."""
    return urlpolicy.default_for(target)[0]


def probe(target: str, options: ProbeOptions | None = None) -> ProbeRun:
    """Probe the server behind `target` (its origin, or its card URL). Raises NothingToProbe without a usable card."""
    options = options or ProbeOptions()
    client_options = ClientOptions(
        follow=options.polls,
        read_timeout=options.timeout,
        connect_timeout=min(options.timeout, CONNECT_TIMEOUT_S),
        poll_start=options.poll_start,
        sleep=options.sleep,
        binding=options.binding,
        token=options.token,
    )
    recorder = Recorder()
    with make_client(client_options, recorder) as http:
        http.headers.update(IDENTITY)
        began = time.monotonic()
        try:
            found = discover(http, target, client_options)
        except ClientFailure as failure:
            raise NothingToProbe(failure.message) from None
        auth, _ = card_auth(found.card, options.credentials or {}, options.token)
        if auth is not None:
            client_options = dataclasses.replace(client_options, auth=auth)
        policy = options.policy or default_policy(found.url)
        run = ProbeRun(target, found.url, policy)
        card_exchanges = list(recorder.exchanges)
        check = card_valid(
            [f.to_json() for f in lint(found.card, policy)], found.warnings, [e.seq for e in card_exchanges]
        )
        run.results.append(
            _result(
                CARD_ID,
                f"agent card {found.url}",
                [check],
                time.monotonic() - began,
                journal(card_exchanges, [], found.card),
            )
        )
        for iface in cards.interfaces(found.card):
            if options.binding is not None and iface.core_binding is not options.binding:
                continue
            presenting = _presenting(iface, auth, options.token)
            run.results.append(_interface(http, recorder, iface, found.card, client_options, options.text, presenting))
            if iface.support is not None and _unspoken(iface) is None:
                run.probed.add(iface.support)
    return run


def scenario_id(iface: Interface) -> str:
    def slug(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9.+-]+", "_", text) or "_"

    return f"{GROUP}/{iface.index}-{slug(iface.binding)}-{slug(iface.version)}"


def _presenting(iface: Interface, auth: CardAuth | None, token: str | None) -> str:
    """The card's requirement the probe presents on an interface, as a sentence ("" when none: no credentials,
    none that meet a requirement, or, over gRPC, an access token still to be obtained or a key in the query)."""
    if auth is None:
        return ""
    if iface.core_binding is Binding.GRPC and auth.headers() is None:
        return ""
    return ", ".join(s.describe() for s in auth.security.usable(auth.requirement))


def _interface(
    http: Any,
    recorder: Recorder,
    iface: Interface,
    card: dict[str, Any],
    options: ClientOptions,
    text: str,
    presenting: str = "",
) -> ScenarioResult:
    began, mark = time.monotonic(), len(recorder.exchanges)
    why = _unspoken(iface)
    if why is not None:
        checks = [check.skipped(why) for check in INTERFACE_CHECKS]
        skipped = _result(scenario_id(iface), iface.label, checks, 0.0, [])
        skipped.outcome = Outcome.SKIPPED
        return skipped
    ctx = InterfaceProbe(http, recorder, iface, card, options, text, presenting=presenting)
    done: dict[str, CheckResult] = {}
    try:
        for check, run in _RUN_ORDER:
            try:
                done[check.id] = run(ctx)
            except Exception as exc:
                done[check.id] = check.result(Outcome.ERROR, f"probe error in {check.id}: {type(exc).__name__}: {exc}")
    finally:
        ctx.transport.close()
    checks = [done[check.id] for check in INTERFACE_CHECKS]
    for result in checks:
        _quote_answers(result, ctx)
    return _result(
        scenario_id(iface), iface.label, checks, time.monotonic() - began, journal(recorder.since(mark), ctx.seen, card)
    )


def _quote_answers(result: CheckResult, ctx: InterfaceProbe) -> None:
    """A finding that quotes nothing yet quotes the answers its check got (the last few), as the server sent them."""
    if result.outcome not in (Outcome.FAIL, Outcome.NON_STRICT) or result.quote:
        return
    result.quote = "\n".join(a.quote() for a in ctx.answered(result.id)[-QUOTED:])


def _unspoken(iface: Interface) -> str | None:
    if iface.support not in SUPPORTED:
        return (
            f"a2a-lab does not speak {iface.binding} {iface.version} "
            "(it speaks JSONRPC and HTTP+JSON, A2A 1.0 and 0.3, and GRPC in A2A 1.0)"
        )
    if iface.support == GRPC_SUPPORT:
        missing = grpcwire.missing()
        if missing is not None:
            return f"not probed: {missing}"
        if grpcwire.address_of(iface.url) is None:
            return f"the interface URL {iface.url!r} names no host:port to dial"
        return None  # a url that is not host:port is CARD-VALID's finding; the probe dials what it can read
    parts = urlsplit(iface.url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"the interface URL {iface.url!r} is not an absolute http(s) URL"
    return None


def _result(
    sid: str, title: str, checks: list[CheckResult], duration: float, entries: list[dict[str, Any]]
) -> ScenarioResult:
    errored = next((c.message for c in checks if c.outcome is Outcome.ERROR), None)
    outcome = scenario_outcome(checks, timed_out=False, contacted=True, error=errored)
    return ScenarioResult(sid, title, GROUP, outcome, checks, None, 0, duration, journal=entries)


def journal(exchanges: list[Exchange], seen: list[Seen], card: Any = None) -> list[dict[str, Any]]:
    """The exchanges in the server journal's format (credentials redacted, the card's declared ones included;
    bodies bounded). So every report shows them.
    """
    book = Journal(cap=len(exchanges) + 1, redaction=Redaction.for_cards(card))
    checks = {e.seq: s.check for s in seen for e in s.exchanges}
    for ex in exchanges:
        if ex.grpc is not None:
            _grpc_entry(book, ex, checks.get(ex.seq))
            continue
        parts = urlsplit(ex.url)
        rpc = _rpc(ex)
        kind = EntryKind.CARD if ex.seq not in checks else EntryKind.JSONRPC if rpc else EntryKind.REST
        entry = book.open(
            ex.method,
            parts.path,
            parts.query,
            [(k.encode("latin-1"), v.encode("latin-1")) for k, v in ex.request_headers],
            ex.request_body,
            kind,
        )
        entry.seq, entry.t, entry.url = ex.seq, ex.t, ex.url
        entry.probe = checks.get(ex.seq)
        entry.rpc = rpc
        if ex.status is None:
            entry.response = Response(fault=ex.error or "no answer")
        else:
            entry.response = Response.sent(
                ex.status, ex.header("content-type") or "", bytes(ex.response_body), book.redaction
            )
    entries: list[dict[str, Any]] = book.snapshot()["entries"]
    return entries


def _grpc_entry(book: Journal, ex: Exchange, check: str | None) -> Entry:
    """A gRPC call as the server journals one: the method path, metadata as headers, ProtoJSON bodies, the address
    as `url`, the status the call ended with; a stream's messages as its events."""
    call = ex.grpc
    assert call is not None
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in ex.request_headers]
    entry = book.open(ex.method, call.path, "", headers, ex.request_body, EntryKind.GRPC)
    entry.seq, entry.t, entry.url, entry.probe = ex.seq, ex.t, ex.url, check
    entry.operation = grpcwire.operation_of(call.path)
    entry.version = Version.V1_0
    if ex.status is None:
        entry.response = Response(fault=ex.error or "no answer")
        return entry
    entry.response = Response.sent(ex.status, grpcwire.CONTENT_TYPE, bytes(ex.response_body), book.redaction)
    entry.response.grpc_status = call.status
    if call.stream:
        entry.response.stream = True
        events = [SentEvent(ex.t, SentKind.DATA, jsontext.dumps(m).decode()) for m in call.messages]
        if call.status not in (None, grpcwire.Code.OK.value):
            status = call.details or {"code": grpcwire.Code(call.status).number, "message": call.message}
            events.append(SentEvent(ex.t, SentKind.ERROR, value=status))
        entry.events = events
    return entry


def _rpc(ex: Exchange) -> RpcRef | None:
    try:
        body = json.loads(ex.request_body) if ex.request_body else None
    except ValueError:
        return None
    if isinstance(body, dict) and body.get("jsonrpc") == jsonrpc.VERSION and "method" in body:
        return RpcRef(body["method"], body.get("id"))
    return None
