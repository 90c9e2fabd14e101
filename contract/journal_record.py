"""The journal record: one typed definition of what the server writes about a request and the harness reads back.

The server fills an `Entry` cheaply on the request path (raw header and body bytes kept as they came, SSE data
kept as the text sent); they are decoded and redacted (contract/redaction.py, with the scenario's policy) only when
the journal is read, into the documented JSON of `/_lab/journal`, `journal.jsonl` and the reports. A body over
BODY_KEEP_BYTES is the exception: it is redacted whole at once, and only its cut, redacted text is kept.
`Entry.from_json` reads that JSON back (a journal from a shared server arrives as JSON), so the harness reads typed
records, never raw dicts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import chain
from typing import Any

from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState, by_value
from a2a_lab.protocol.versions import Version

from .redaction import DEFAULT, Redaction

#: A journal keeps at most this much of each body's text (the size is recorded), so its memory stays bounded.
BODY_KEEP_BYTES = 64 * 1024
#: Why a body is withheld: bytes that are not UTF-8 cannot be redacted reliably, so they are never kept.
NOT_UTF8 = "not UTF-8"


class EntryKind(str, Enum):
    """What a journal entry records."""

    CARD = "card"
    JSONRPC = "jsonrpc"
    REST = "rest"
    GRPC = "grpc"
    UNMATCHED = "unmatched"
    PUSH = "push"
    PUSH_LIMIT = "push-limit"
    #: A request to the scenario's own authorization server: token endpoint, OpenID discovery, JWKS.
    OAUTH = "oauth"
    #: A TLS connection (its ClientHello arrived; `tls.completed` once the handshake is done): not a request.
    TLS = "tls"

    @property
    def is_call(self) -> bool:
        """A request the client sent to an A2A endpoint (or that no route matched)."""
        return self in _CALL_KINDS


_CALL_KINDS = frozenset({EntryKind.JSONRPC, EntryKind.REST, EntryKind.GRPC, EntryKind.UNMATCHED})


class ResultKind(str, Enum):
    """What the server answered an A2A call with (the journal's `answer.result_kind`)."""

    TASK = "task"
    MESSAGE = "message"
    ERROR = "error"
    RAW = "raw"
    LIST = "list"
    PUSH_CONFIG = "push_config"
    PUSH_CONFIGS = "push_configs"
    EMPTY = "empty"
    CARD = "card"


class CredentialStatus(str, Enum):
    """How a call's credentials compared with the scenario's (the journal never keeps the credential itself)."""

    VALID = "valid"
    INVALID = "invalid"
    ABSENT = "absent"


@dataclass(slots=True)
class Answer:
    """What kind of answer a call got, in a few words: the journal's `answer`."""

    kind: ResultKind
    task_id: str | None = None
    state: TaskState | None = None
    stream: bool = False
    code: int | None = None
    status: int | None = None
    count: int | None = None

    @classmethod
    def task(cls, task: dict[str, Any], stream: bool = False) -> Answer:
        state = task.get("status", {}).get("state")
        return cls(ResultKind.TASK, task.get("id"), by_value(state) if state else None, stream)

    @classmethod
    def error(cls, code: int) -> Answer:
        return cls(ResultKind.ERROR, code=code)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"result_kind": self.kind.value}
        if self.kind is ResultKind.TASK:
            out["task_id"] = self.task_id
            out["state"] = self.state.value if self.state is not None else None
        elif self.kind is ResultKind.ERROR:
            out["code"] = self.code
        elif self.kind is ResultKind.RAW:
            out["status"] = self.status
        elif self.kind is ResultKind.LIST:
            out["count"] = self.count
        if self.stream:
            out["stream"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Answer:
        state = data.get("state")
        return cls(
            ResultKind(data["result_kind"]),
            data.get("task_id"),
            TaskState(state) if state else None,
            bool(data.get("stream", False)),
            data.get("code"),
            data.get("status"),
            data.get("count"),
        )


@dataclass(slots=True)
class Body:
    """A body as journaled: its size and its text with credentials hidden (cut to BODY_KEEP_BYTES, and re-serialised
    when something was hidden), or, for bytes that are not UTF-8, only why it was withheld and its sha256."""

    size: int
    text: str | None = None
    withheld: str | None = None
    sha256: str | None = None
    truncated: bool = False
    redacted: bool = False

    @classmethod
    def of(cls, data: bytes, redaction: Redaction) -> Body:
        """The journal's view of a whole body (redacted before it is cut, so a cut never exposes a credential)."""
        kept = redaction.body(data, BODY_KEEP_BYTES)
        if kept.text is None:
            return cls(len(data), withheld=NOT_UTF8, sha256=hashlib.sha256(data).hexdigest())
        return cls(len(data), kept.text, truncated=kept.truncated, redacted=kept.redacted)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"size": self.size}
        if self.text is not None:
            out["text"] = self.text
        elif self.withheld is not None:
            out["withheld"] = self.withheld
            out["sha256"] = self.sha256
        if self.truncated:
            out["truncated"] = True
        if self.redacted:
            out["redacted"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Body:
        withheld = data.get("withheld") or (NOT_UTF8 if "base64" in data else None)  # an older journal's base64
        return cls(
            int(data.get("size", 0)),
            data.get("text"),
            withheld,
            data.get("sha256"),
            bool(data.get("truncated")),
            bool(data.get("redacted")),
        )


#: What separates names and values in packed headers: HTTP allows no NUL in either (RFC 9110 §5.1, §5.5).
_NUL = b"\0"

#: Request headers as an entry keeps them (`pack_headers`).
KeptHeaders = bytes | tuple[tuple[bytes, bytes], ...]


def pack_headers(raw: Sequence[Sequence[bytes]]) -> KeptHeaders:
    """Request headers as an entry keeps them: every name and value in one bytes object, NUL-separated (a journal
    holds 10 000 entries: one object each instead of a list, a tuple per header and two bytes objects, which the
    collector walks and evicting an entry frees); as a tuple of pairs where a NUL turns up all the same."""
    packed = _NUL.join(chain.from_iterable(raw))
    if packed.count(_NUL) == 2 * len(raw) - 1:
        return packed
    return tuple((bytes(name), bytes(value)) for name, value in raw)


def unpack_headers(kept: KeptHeaders) -> tuple[tuple[bytes, bytes], ...]:
    """The (name, value) pairs `pack_headers` kept, in order."""
    if isinstance(kept, bytes):
        parts = iter(kept.split(_NUL))
        return tuple(zip(parts, parts, strict=False))
    return kept


def _journaled(data: bytes, redaction: Redaction) -> tuple[bytes, Body | None]:
    """What an entry keeps of a body: the bytes (decoded and redacted when the journal is read), or, past
    BODY_KEEP_BYTES, the redacted and cut Body at once (the whole body is not kept)."""
    if len(data) > BODY_KEEP_BYTES:
        return b"", Body.of(data, redaction)
    return data, None


@dataclass(slots=True)
class Response:
    """What the server (or a webhook, for push entries) answered: status, faults, the body sent."""

    status: int | None = None
    content_type: str | None = None
    stream: bool = False
    closed: str | None = None
    delay_ms: float | None = None
    fault: str | None = None
    fault_outcome: str | None = None
    refused: str | None = None
    failed: str | None = None
    #: How long the server held an answer it never gave (a stall) until the client went away, in milliseconds:
    #: the client's own patience, measured where every path (run, drive + score, the plugin) reads it the same.
    held_ms: float | None = None
    #: gRPC: the status the call ended with, by name (`OK`, `NOT_FOUND`, ...); its body is the answer message or the
    #: google.rpc.Status as ProtoJSON.
    grpc_status: str | None = None
    #: The body sent (server side, up to BODY_KEEP_BYTES; decoded and redacted when read), or its journaled view.
    raw_body: bytes | None = None
    parsed_body: Body | None = None
    redaction: Redaction = field(default=DEFAULT, repr=False, compare=False)

    @classmethod
    def sent(cls, status: int, content_type: str, body: bytes, redaction: Redaction = DEFAULT) -> Response:
        raw, parsed = _journaled(body, redaction)
        return cls(
            status, content_type, raw_body=raw if parsed is None else None, parsed_body=parsed, redaction=redaction
        )

    @property
    def body(self) -> Body | None:
        if self.parsed_body is None and self.raw_body is not None:
            # Made on each read, not kept: a kept view would double what the journal holds beyond its byte budget.
            return Body.of(self.raw_body, self.redaction)
        return self.parsed_body

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in ("status", "content_type", "grpc_status"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.stream:
            out["stream"] = True
        for name in ("closed", "delay_ms", "fault", "fault_outcome", "refused", "held_ms"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.failed is not None:  # an error message may quote a webhook URL
            out["failed"] = self.redaction.text(self.failed)
        body = self.body
        if body is not None:
            out["body"] = body.to_json()
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Response:
        body = data.get("body")
        return cls(
            data.get("status"),
            data.get("content_type"),
            bool(data.get("stream", False)),
            data.get("closed"),
            data.get("delay_ms"),
            data.get("fault"),
            data.get("fault_outcome"),
            data.get("refused"),
            data.get("failed"),
            data.get("held_ms"),
            data.get("grpc_status"),
            parsed_body=Body.from_json(body) if isinstance(body, dict) else None,
        )


class SentKind(str, Enum):
    DATA = "data"
    COMMENT = "comment"
    DROPPED = "dropped"
    ERROR = "error"
    #: An event the scenario wrote itself (`reply.stream.events` insert / replace): its text as sent, JSON or not.
    EXTRA = "extra"


@dataclass(slots=True)
class SentEvent:
    """One SSE event as sent: a `data:` line (kept as the text sent), a comment, an error event, or the drop."""

    t: float
    kind: SentKind
    #: DATA: the JSON text sent (server side); COMMENT: the comment.
    text: str | None = None
    #: ERROR: the error body; DATA read back from JSON: the decoded data.
    value: Any = None
    #: ERROR: the SSE event name (None for JSON-RPC).
    event: str | None = None
    #: DATA read by the proxy: the stream ended before the blank line that closes this event, so no SSE client
    #: dispatches it (WHATWG HTML §9.2.6). In the journal's JSON only when true.
    unterminated: bool = False

    @property
    def data(self) -> Any:
        """The decoded `data:` of a DATA event."""
        return json.loads(self.text) if self.text is not None else self.value

    def to_json(self, redaction: Redaction = DEFAULT) -> dict[str, Any]:
        if self.kind is SentKind.DATA:
            sent = {"t": self.t, "data": redaction.json(self.data)}
            return {**sent, "unterminated": True} if self.unterminated else sent
        if self.kind is SentKind.COMMENT:
            return {"t": self.t, "comment": self.text}
        if self.kind is SentKind.DROPPED:
            return {"t": self.t, "dropped": True}
        if self.kind is SentKind.EXTRA:
            return {"t": self.t, "extra": redaction.text(self.text or ""), "event": self.event}
        return {"t": self.t, "error": redaction.json(self.value), "event": self.event}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SentEvent:
        t = data.get("t", 0.0)
        if "data" in data:
            return cls(t, SentKind.DATA, value=data["data"], unterminated=data.get("unterminated") is True)
        if "comment" in data:
            return cls(t, SentKind.COMMENT, text=data["comment"])
        if data.get("dropped"):
            return cls(t, SentKind.DROPPED)
        if "extra" in data:
            return cls(t, SentKind.EXTRA, text=data["extra"], event=data.get("event"))
        return cls(t, SentKind.ERROR, value=data.get("error"), event=data.get("event"))


@dataclass(slots=True)
class EndpointRef:
    """The scenario endpoint a request reached."""

    path: str
    binding: Binding

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "binding": self.binding.value}


@dataclass(slots=True)
class RpcRef:
    """A JSON-RPC request's method and id."""

    method: Any
    id: Any

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "id": self.id}


@dataclass(slots=True)
class RouteRef:
    """The HTTP+JSON route a request matched, relative to its interface."""

    verb: str
    path: str
    params: dict[str, str]
    tenant: str | None = None

    def to_json(self, redaction: Redaction = DEFAULT) -> dict[str, Any]:
        out: dict[str, Any] = {"verb": self.verb, "path": self.path, "params": redaction.params(self.params)}
        if self.tenant:
            out["tenant"] = self.tenant
        return out


@dataclass(slots=True)
class BodyTimeout:
    """A body that did not arrive in time: the limit and how many bytes had come."""

    seconds: float
    received: int

    def to_json(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "received": self.received}


@dataclass(slots=True)
class AuthFacts:
    """What the server found about a request's credentials (never the credentials themselves): per declared scheme
    `valid`, `invalid`, `absent`, `misplaced` (the right value in the wrong place or format), `expired` or
    `insufficient_scope`; which issued token was presented (its number, from 1); which credentials the request
    carried, as `kind:place` (`apiKey:query`, `password:header`, `access_token:body`, ...); and a
    sentence about anything misplaced."""

    schemes: dict[str, str] = field(default_factory=dict)
    token: int | None = None
    carried: tuple[str, ...] = ()
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schemes": self.schemes, "carried": list(self.carried)}
        if self.token is not None:
            out["token"] = self.token
        if self.note:
            out["note"] = self.note
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AuthFacts:
        return cls(
            dict(data.get("schemes") or {}), data.get("token"), tuple(data.get("carried") or ()), data.get("note")
        )


@dataclass(slots=True)
class GrantInfo:
    """A token request to the scenario's token endpoint: the grant asked for, how the client authenticated
    (`basic`, `post` or `none`) and whether it was the right client, the scopes asked, and the token issued (its
    number) or the OAuth error answered."""

    grant_type: str
    client_auth: str
    client_valid: bool
    scopes: tuple[str, ...] = ()
    issued: int | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "grant_type": self.grant_type,
            "client_auth": self.client_auth,
            "client_valid": self.client_valid,
            "scopes": list(self.scopes),
        }
        if self.issued is not None:
            out["issued"] = self.issued
        if self.error is not None:
            out["error"] = self.error
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GrantInfo:
        return cls(
            str(data.get("grant_type", "")),
            str(data.get("client_auth", "none")),
            bool(data.get("client_valid")),
            tuple(data.get("scopes") or ()),
            data.get("issued"),
            data.get("error"),
        )


@dataclass(slots=True)
class PushInfo:
    """A push delivery (kind `push`), or the count of deliveries dropped past the task's cap (kind `push-limit`)."""

    task_id: str | None
    config_id: str | None = None
    probe: bool = False
    limit: int | None = None
    dropped: int = 0
    #: A second delivery of the same notification (scenario push.redeliver).
    redelivery: bool = False
    #: A notification about a task the client never started (scenario push.foreign_task).
    foreign: bool = False

    def to_json(self) -> dict[str, Any]:
        if self.limit is not None:
            return {"task_id": self.task_id, "limit": self.limit, "dropped": self.dropped}
        out: dict[str, Any] = {"task_id": self.task_id, "config_id": self.config_id, "probe": self.probe}
        out.update({k: True for k in ("redelivery", "foreign") if getattr(self, k)})
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PushInfo:
        return cls(
            data.get("task_id"),
            data.get("config_id"),
            bool(data.get("probe", False)),
            data.get("limit"),
            int(data.get("dropped", 0)),
            bool(data.get("redelivery", False)),
            bool(data.get("foreign", False)),
        )


@dataclass(slots=True)
class TlsInfo:
    """The TLS side of a connection: the certificate kind the server presented, whether the handshake completed,
    and for mutual TLS whether the client presented a certificate. On a `tls` entry: the connection; on a request:
    the connection that carried it."""

    #: The kind of certificate the server presented (`valid`, `unknown-ca`, `expired`, `wrong-host`).
    certificate: str
    completed: bool = True
    version: str | None = None
    server_name: str | None = None
    #: `verified` (presented and verified) or `absent`, where the server asked for one; None where it did not.
    client_certificate: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"certificate": str(self.certificate), "completed": self.completed}
        for name in ("version", "server_name", "client_certificate"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TlsInfo:
        return cls(
            str(data.get("certificate", "")),
            bool(data.get("completed", True)),
            data.get("version"),
            data.get("server_name"),
            data.get("client_certificate"),
        )


@dataclass(slots=True)
class Entry:
    """One journal entry: a request as it arrived and what it got."""

    seq: int
    t: float
    kind: EntryKind
    method: str
    path: str
    query: str
    #: The request's header and body bytes as they came (server side; decoded and redacted when read): the headers
    #: packed (pack_headers; `raw_headers` unpacks them). A body over BODY_KEEP_BYTES is not kept: its redacted view
    #: is made at once (parsed_body).
    kept_headers: KeptHeaders = ()
    raw_body: bytes = b""
    #: Probe transcripts: the URL asked and the check that asked it.
    url: str | None = None
    probe: str | None = None
    endpoint: EndpointRef | None = None
    unmatched: bool = False
    body_too_large: bool = False
    body_timeout: BodyTimeout | None = None
    rpc: RpcRef | None = None
    operation: Operation | None = None
    version: Version | None = None
    route: RouteRef | None = None
    #: The version the client asked for (header or query); recorded once the operation is known.
    requested_version: str | None = None
    credentials: CredentialStatus | None = None
    #: The scenario's auth (when it has one): per-scheme findings and what credentials the request carried.
    auth: AuthFacts | None = None
    #: A token endpoint request (kind `oauth`).
    grant: GrantInfo | None = None
    card_path: str | None = None
    card_sha256: str | None = None
    push: PushInfo | None = None
    answer: Answer | None = None
    response: Response | None = None
    events: list[SentEvent] | None = None
    disconnected: bool = False
    #: Served over TLS: the connection (a `tls` entry) or the connection that carried the request; None: plain HTTP.
    tls: TlsInfo | None = None
    #: Headers and body as the journal shows them: read back from JSON, or made once from the raw bytes.
    parsed_headers: dict[str, str] | None = None
    parsed_body: Body | None = None
    #: How credentials are hidden in what this entry shows (the scenario's policy; JSON read back is already redacted).
    redaction: Redaction = field(default=DEFAULT, repr=False, compare=False)
    #: The bytes this entry is estimated to keep (server side), and what counts them: the journal holding it
    #: (None once it was dropped, or for an entry read back from JSON).
    size: int = 0
    meter: Callable[[Entry, int], None] | None = field(default=None, repr=False, compare=False)

    def grow(self, kept: int) -> None:
        """The entry keeps `kept` bytes more (an answer's body, a stream event): its journal counts them."""
        self.size += kept
        if self.meter is not None:
            self.meter(self, kept)

    @classmethod
    def opened(
        cls,
        seq: int,
        t: float,
        kind: EntryKind,
        method: str,
        path: str,
        query: str,
        raw_headers: Sequence[Sequence[bytes]],
        body: bytes,
        redaction: Redaction = DEFAULT,
    ) -> Entry:
        raw, parsed = _journaled(body, redaction)
        headers = pack_headers(raw_headers)
        return cls(seq, t, kind, method, path, query, headers, raw, parsed_body=parsed, redaction=redaction)

    @property
    def raw_headers(self) -> tuple[tuple[bytes, bytes], ...]:
        """The request's headers as they came: (name, value) bytes, in order."""
        return unpack_headers(self.kept_headers)

    @property
    def headers(self) -> dict[str, str]:
        """The request headers, lower-cased, credentials redacted."""
        if self.parsed_headers is None:  # made once: the raw headers never change
            self.parsed_headers = self.redaction.headers(
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in self.raw_headers
            )
        return self.parsed_headers

    @property
    def body(self) -> Body:
        """The request body, credentials redacted."""
        if self.parsed_body is None:  # made on each read, not kept (the journal's byte budget counts raw_body)
            return Body.of(self.raw_body, self.redaction)
        return self.parsed_body

    @property
    def body_text(self) -> str:
        return self.body.text or ""

    @property
    def result_kind(self) -> ResultKind | None:
        return self.answer.kind if self.answer is not None else None

    def to_json(self) -> dict[str, Any]:
        """The documented JSON of a journal entry."""
        out: dict[str, Any] = {
            "seq": self.seq,
            "t": self.t,
            "kind": self.kind.value,
            "method": self.method,
            "path": self.redaction.url(self.path),  # a push entry's path is the webhook URL
            "query": self.redaction.query(self.query),
        }
        if self.url is not None:
            out["url"] = self.redaction.url(self.url)
        if self.probe is not None:
            out["probe"] = self.probe
        if self.endpoint is not None:
            out["endpoint"] = self.endpoint.to_json()
        if self.unmatched:
            out["unmatched"] = True
        if self.body_too_large:
            out["body_too_large"] = True
        if self.body_timeout is not None:
            out["body_timeout"] = self.body_timeout.to_json()
        if self.rpc is not None:
            out["rpc"] = self.rpc.to_json()
        if self.operation is not None:
            out["operation"] = self.operation.value
            out["version"] = self.version.value if self.version is not None else None
        if self.route is not None:
            out["route"] = self.route.to_json(self.redaction)
        if self.operation is not None:
            out["requested_version"] = self.requested_version
        if self.credentials is not None:
            out["credentials"] = self.credentials.value
        if self.auth is not None:
            out["auth"] = self.auth.to_json()
        if self.grant is not None:
            out["grant"] = self.grant.to_json()
        if self.card_path is not None:
            out["card_path"] = self.card_path
        if self.card_sha256 is not None:
            out["card_sha256"] = self.card_sha256
        if self.push is not None:
            out["push"] = self.push.to_json()
        if self.answer is not None:
            out["answer"] = self.answer.to_json()
        if self.response is not None:
            out["response"] = self.response.to_json()
        if self.events is not None:
            out["events"] = [e.to_json(self.redaction) for e in self.events]
        if self.disconnected:
            out["disconnected"] = True
        if self.tls is not None:
            out["tls"] = self.tls.to_json()
        out["headers"] = self.headers
        out["body"] = self.body.to_json()
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        """An entry from its documented JSON (a journal read from `/_lab/journal`, a JSONL file or a report)."""

        def sub(name: str) -> dict[str, Any] | None:
            value = data.get(name)
            return value if isinstance(value, dict) else None

        endpoint, rpc, route, timeout = sub("endpoint"), sub("rpc"), sub("route"), sub("body_timeout")
        push, answer, response, tls = sub("push"), sub("answer"), sub("response"), sub("tls")
        auth, grant = sub("auth"), sub("grant")
        op, version, credentials = data.get("operation"), data.get("version"), data.get("credentials")
        events = data.get("events")
        return cls(
            data.get("seq", 0),
            data.get("t", 0.0),
            EntryKind(data["kind"]),
            str(data.get("method", "")),
            str(data.get("path", "")),
            str(data.get("query", "")),
            url=data.get("url"),
            probe=data.get("probe"),
            endpoint=EndpointRef(endpoint["path"], Binding(endpoint["binding"])) if endpoint else None,
            unmatched=bool(data.get("unmatched")),
            body_too_large=bool(data.get("body_too_large")),
            body_timeout=BodyTimeout(timeout["seconds"], timeout["received"]) if timeout else None,
            rpc=RpcRef(rpc.get("method"), rpc.get("id")) if rpc is not None else None,
            operation=Operation(op) if op else None,
            version=Version(version) if version else None,
            route=RouteRef(route["verb"], route["path"], route.get("params", {}), route.get("tenant"))
            if route
            else None,
            requested_version=data.get("requested_version"),
            credentials=CredentialStatus(credentials) if credentials else None,
            auth=AuthFacts.from_json(auth) if auth is not None else None,
            grant=GrantInfo.from_json(grant) if grant is not None else None,
            card_path=data.get("card_path"),
            card_sha256=data.get("card_sha256"),
            push=PushInfo.from_json(push) if push is not None else None,
            answer=Answer.from_json(answer) if answer is not None else None,
            response=Response.from_json(response) if response is not None else None,
            events=[SentEvent.from_json(e) for e in events] if isinstance(events, list) else None,
            disconnected=bool(data.get("disconnected")),
            tls=TlsInfo.from_json(tls) if tls is not None else None,
            parsed_headers=dict(data.get("headers") or {}),
            parsed_body=Body.from_json(data.get("body") or {}),
        )


def entries_from_json(data: Iterable[dict[str, Any]]) -> list[Entry]:
    """A journal's entries (the `entries` of `/_lab/journal`, or a report's `journal`) as typed records."""
    return [Entry.from_json(d) for d in data]
