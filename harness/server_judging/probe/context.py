"""What one interface's probe works with: the reference client's transport (with the A2A-Version header, or the
`a2a-version` metadata over gRPC, under the probe's control), the recorder, and a log of which check sent what."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from a2a_lab.harness.clients.refclient.client import user_message
from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.options import ClientOptions
from a2a_lab.harness.clients.refclient.reading import Answer
from a2a_lab.harness.clients.refclient.recording import Exchange, Recorder
from a2a_lab.harness.clients.refclient.transport import A2ATransport
from a2a_lab.harness.common.model import CheckResult
from a2a_lab.harness.server_judging.probe.definitions import ProbeCheck
from a2a_lab.harness.server_judging.probe.judging import Answered, from_exchange
from a2a_lab.harness.server_judging.probe.transports import ProbeTransport
from a2a_lab.protocol import grpcwire, requests
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.errors import AUTH_HTTP_STATUSES
from a2a_lab.protocol.operations import SPECS, Operation
from a2a_lab.protocol.versions import Version

if TYPE_CHECKING:  # the gRPC transport needs the grpc extra: imported only where an interface is gRPC
    from a2a_lab.harness.server_judging.probe.grpcprobe import ProbeGrpcTransport

#: The probe's own marker for ids no server issued (UNKNOWN-TASK, VERSION-NEGOTIATION).
UNKNOWN_ID_PREFIX = "a2a-lab-probe-unknown-"
DIAGNOSIS = "DIAGNOSIS"


@dataclass
class Seen:
    """The exchanges one call produced, with the check that made it and the transport (version, binding) it used."""

    check: str
    op: Operation
    transport: ProbeTransport | ProbeGrpcTransport
    exchanges: list[Exchange]


@dataclass
class InterfaceProbe:
    http: httpx.Client
    recorder: Recorder
    iface: Interface
    card: dict[str, Any]
    options: ClientOptions
    text: str
    transport: ProbeTransport | ProbeGrpcTransport = field(init=False)
    seen: list[Seen] = field(default_factory=list)
    #: What SendMessage answered: the decoded result (None when it failed) and how it reads.
    send_body: Any = None
    answer: Answer | None = None
    #: Decoded GetTask answers of the follow-up, for RESPONSE-SHAPE.
    get_bodies: list[Any] = field(default_factory=list)
    #: The card's requirement the probe presents on this interface, as a sentence; "" when it presents none.
    presenting: str = ""

    def __post_init__(self) -> None:
        if self.iface.core_binding is Binding.GRPC:
            from a2a_lab.harness.server_judging.probe.grpcprobe import ProbeGrpcTransport

            self.transport = ProbeGrpcTransport(self.iface, self.options, self.recorder)
        else:
            self.transport = ProbeTransport(self.http, self.iface, self.options)

    @property
    def grpc(self) -> bool:
        return self.transport.binding is Binding.GRPC

    @property
    def version(self) -> Version:
        return self.transport.version

    def other(self, version: Version) -> ProbeTransport:
        """A transport to the same URL and binding in another version (for a diagnosis only)."""
        return ProbeTransport(self.http, dataclasses.replace(self.iface, declared_version=version.value), self.options)

    def anonymous(self) -> ProbeTransport | ProbeGrpcTransport:
        """A transport to the same interface that presents no credentials at all (close it after use)."""
        options = dataclasses.replace(self.options, auth=None, token=None)
        if self.grpc:
            from a2a_lab.harness.server_judging.probe.grpcprobe import ProbeGrpcTransport

            return ProbeGrpcTransport(self.iface, options, self.recorder)
        return ProbeTransport(self.http, self.iface, options)

    def send_params(self) -> dict[str, Any]:
        return {"message": user_message(self.text), "configuration": requests.send_configuration()}

    def call(
        self,
        check: str,
        op: Operation,
        params: dict[str, Any],
        warnings: list[str],
        transport: ProbeTransport | ProbeGrpcTransport | None = None,
    ) -> Any:
        t = transport or self.transport
        mark = len(self.recorder.exchanges)
        try:
            return t.call(op, params, warnings)
        finally:
            self.seen.append(Seen(check, op, t, self.recorder.since(mark)))

    def stream(
        self, check: str, op: Operation, params: dict[str, Any], warnings: list[str]
    ) -> Generator[Any, None, None]:
        mark = len(self.recorder.exchanges)
        try:
            yield from self.transport.stream(op, params, warnings)
        finally:
            self.seen.append(Seen(check, op, self.transport, self.recorder.since(mark)))

    def answered(self, check: str | None = None) -> list[Answered]:
        """The answers to the calls `check` made on this interface (None: every check's, the diagnosis's, in another
        version than the card declares, left out; a token endpoint's, for OAuth, always), as the judges read them
        (harness/server_judging/probe/judging.py)."""
        return [
            from_exchange(e, s.op, s.transport.form)
            for s in self.seen
            if s.check == check or (check is None and s.check != DIAGNOSIS)
            for e in s.exchanges
            if e.grpc is not None or e.url.startswith(self.iface.url)
        ]

    def evidence(self, check: str) -> list[int]:
        return [e.seq for s in self.seen if s.check == check for e in s.exchanges]


#: gRPC's statuses for the generic authentication and authorization errors (§3.3.2).
AUTH_GRPC_STATUSES = frozenset({grpcwire.Code.UNAUTHENTICATED.value, grpcwire.Code.PERMISSION_DENIED.value})


def needs_credentials(failure: ClientFailure) -> bool:
    """The server refused the call for want of credentials (HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED):
    nothing about the check can be judged."""
    d = failure.details
    return d.get("http_status") in AUTH_HTTP_STATUSES or d.get("grpc_status") in AUTH_GRPC_STATUSES


def unknown_id() -> str:
    return UNKNOWN_ID_PREFIX + str(uuid.uuid4())


def describe(op: Operation, version: Version, transport: A2ATransport) -> str:
    """How the interface spells an operation: the JSON-RPC method, the HTTP+JSON verb and route, or the gRPC method
    (`lf.a2a.v1.A2AService/SendMessage`, as grpcurl names it)."""
    if transport.binding is Binding.GRPC:
        return grpcwire.method_path(op).lstrip("/")
    if transport.form.rest:
        route = SPECS[op].rest.get(version, ())
        return f"{route[0].verb} {route[0].template}" if route else op.value
    return str(SPECS[op].jsonrpc.get(version, op.value))


def not_judged(check: ProbeCheck, failure: ClientFailure) -> CheckResult:
    """SKIPPED: the agent wants credentials the probe was not given (its card's securitySchemes say which)."""
    d = failure.details
    said = f"gRPC {d['grpc_status']}" if "grpc_status" in d else f"HTTP {d.get('http_status')}"
    return check.skipped(f"not judged: the server requires credentials ({said}); give the probe a token (--token)")
