"""The scenario model: what a loaded scenario file is, in typed values only.

A scenario is data: a card, the endpoints that really answer, and per-operation rules that choose a reply.
`loader` reads and validates the YAML into these classes once; the server consumes them as they are and never
looks at the YAML again. Every choice a file makes among named values is an enum here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from a2a_lab.protocol import cards
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.grpcwire import Code
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.revisions import DEFAULT as DEFAULT_REVISION
from a2a_lab.protocol.revisions import SpecRevision
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

from .edits import Edit
from .placeholders import TEXT, Template, occurrences
from .style import Style
from .wording import ErrorWording

DEFAULT_MESSAGE = "Hello from a2a-lab: what can you do?"
DEFAULT_TIMEOUT = 20.0
#: The message of an error injected mid-stream when the scenario gives none.
STREAM_ERROR_MESSAGE = "Error injected mid-stream by the scenario"


class Returns(StrEnum):
    """When a SendMessage that created a task answers."""

    #: A blocking call returns at the first terminal or interrupted step (§3.2.2).
    STOP = "stop"
    #: Every call returns the first step (a server that ignores blocking).
    FIRST = "first"


class FirstEvent(StrEnum):
    TASK = "task"  # per spec
    STATUS = "status"  # a stream whose first event is a status update


class StreamFraming(StrEnum):
    """How stream events are put on the wire."""

    SSE = "sse"  # per spec: one `data:` line per event
    SSE_MULTILINE = "sse-multiline"  # SSE, each event's JSON pretty-printed over several `data:` lines
    NDJSON = "ndjson"  # not SSE: application/x-ndjson, one JSON text per line
    JSON_ARRAY = "json-array"  # not SSE: one application/json body, a JSON array of the events


class UnknownFields(StrEnum):
    """What the server does with a request member its version does not define."""

    IGNORE = "ignore"  # per spec (§5.7: unknown fields SHOULD be ignored)
    REFUSE = "refuse"  # -32602 (HTTP+JSON 400), as a strict ProtoJSON parser answers


class HistoryLength(StrEnum):
    """What a task's answers do with the request's `historyLength`."""

    HONOUR = "honour"  # per spec (§3.2.4): 0 none, N the last N, unset the server's default (all)
    IGNORE = "ignore"  # the whole history every time


class TenantRoutes(StrEnum):
    """Which 1.0 HTTP+JSON tenant routes (`/{tenant}/message:send`, §11.3) the server answers."""

    ANY = "any"  # any first path segment may be a tenant (the spec's route table)
    DECLARED = "declared"  # only the tenants the card's interfaces declare
    NONE = "none"  # none: a server without tenants, whose paths never begin with one


class FaultKind(StrEnum):
    STALL = "stall"
    RESET = "reset"
    TRUNCATE = "truncate"
    DRIP = "drip"


class EnvelopeId(StrEnum):
    """The `id` of a JSON-RPC answer: the request's (echo), another, null, or none at all."""

    ECHO = "echo"
    WRONG = "wrong"
    NULL = "null"
    OMIT = "omit"


class CardPathMode(StrEnum):
    SERVE = "serve"
    MISSING = "missing"
    RAW = "raw"


class Tamper(StrEnum):
    """How a signed card is broken after signing."""

    NONE = "none"
    PAYLOAD = "payload"  # the card changes after signing
    UNKNOWN_KID = "unknown-kid"  # signed with a kid no key set has


class AuthScope(StrEnum):
    ALL = "all"
    EXTENDED_CARD = "extended_card"


class ServerCertificate(StrEnum):
    """The certificate a scenario served over TLS presents (all made by a2a-lab per run, server/tls.py)."""

    VALID = "valid"  # signed by the lab CA handed to the client, for 127.0.0.1, ::1 and localhost
    UNKNOWN_CA = "unknown-ca"  # signed by another CA, never handed to anyone
    EXPIRED = "expired"  # notAfter in the past
    WRONG_HOST = "wrong-host"  # for wrong.a2a-lab.invalid only


class Conclusion(StrEnum):
    """What a correct client concludes (`expect.result`)."""

    MESSAGE = "message"
    TASK = "task"
    ERROR = "error"
    NONE = "none"  # a correct client makes no A2A call


@dataclass(frozen=True)
class ArtifactSpec:
    """An artifact a task script attaches."""

    #: The artifact in canonical 1.0 form, `{text}` templated.
    artifact: dict[str, Any]
    #: Streamed one part per update: `append` after the first, `lastChunk` on the last.
    chunked: bool = False
    #: `append` / `lastChunk` as the scenario sets them on every update of this artifact (a server that sends
    #: `append: true` for an artifact never sent, or never says `lastChunk`); None: as `chunked` makes them.
    append: bool | None = None
    last_chunk: bool | None = None

    @cached_property
    def template(self) -> Template:
        """The artifact as filled for each task (with the user's text)."""
        return Template(self.artifact, TEXT)


@dataclass(frozen=True)
class Step:
    """One state of a scripted task lifecycle."""

    state: TaskState
    message: str | None = None
    artifacts: tuple[ArtifactSpec, ...] = ()
    #: The status message's parts when they are not one text part (`message: {parts: [...]}`: data only, several).
    message_parts: tuple[dict[str, Any], ...] = ()
    #: A status message with an empty parts list (`message: {parts: []}`), as some servers send (adk-python#3769).
    empty_message: bool = False

    @property
    def has_message(self) -> bool:
        """The step's status carries a message (possibly one with no parts)."""
        return self.empty_message or bool(self.status_template.value)

    @property
    def status_parts(self) -> list[dict[str, Any]]:
        """The parts of this step's status message (none: the step has no message)."""
        if self.message_parts:
            return list(self.message_parts)
        return [{"text": self.message}] if self.message else []

    @cached_property
    def status_template(self) -> Template:
        """The status message's parts as filled for each task (with the user's text)."""
        return Template(self.status_parts, TEXT)


@dataclass(frozen=True)
class TaskScript:
    steps: tuple[Step, ...]
    #: Artifacts attached at the last step unless a step has its own.
    artifacts: tuple[ArtifactSpec, ...] = ()
    returns: Returns = Returns.STOP
    #: How a task left mid-way moves on: one step per this many GetTask calls (0: never), and/or after a delay.
    advance_on_get: int = 1
    advance_after_ms: int | None = None
    history: bool = True
    #: While a client follows the task by subscription or push, this many ms stand for one GetTask: a task that moves
    #: on every N GetTasks moves one step per N x follow_ms (design: never punish a legal strategy).
    follow_ms: int = 100
    #: SendMessage and GetTask answer the whole history whatever `historyLength` asks (a server that ignores it).
    ignore_history_length: bool = False

    @cached_property
    def final_artifacts(self) -> tuple[ArtifactSpec, ...]:
        """What the last step attaches when it has no artifacts of its own: the script's, unless a step has some."""
        return () if any(step.artifacts for step in self.steps) else self.artifacts

    @cached_property
    def text_echoes(self) -> int:
        """How many times a task of this script repeats the user's text (`{text}` in its artifacts and step messages):
        what a task keeps beyond its messages, for the task store's byte budget."""
        specs = [*self.artifacts, *(a for step in self.steps for a in step.artifacts)]
        messages = sum(occurrences(step.status_parts, TEXT) for step in self.steps)
        return messages + sum(occurrences(spec.artifact, TEXT) for spec in specs)


def _stream_error() -> A2AError:
    return A2AError(ErrorType.INTERNAL_ERROR, STREAM_ERROR_MESSAGE)


#: `reply.stream.events[].at` for "after the last event, before the stream ends".
AT_END = "end"
#: `reply.stream.events[].at` for "every event the stream generates".
AT_ALL = "all"


@dataclass(frozen=True)
class ExtraEvent:
    """An event a scenario writes itself (`insert` / `replace` in `reply.stream.events`): JSON sent as it is written
    (`{task_id}` and `{context_id}` filled in; on JSON-RPC inside a response with the request's id unless `bare`), or
    the exact text of its `data:` line(s) (`{request_id}` filled in too). On gRPC (proto frames only) it is not sent."""

    json: Any = None
    #: The exact text instead of JSON (several lines: several `data:` lines).
    text: str | None = None
    #: The SSE event name (`event: <name>` before the data); None: no `event:` line.
    event: str | None = None
    #: JSON-RPC: send the JSON alone, without the JSON-RPC response around it.
    bare: bool = False


@dataclass(frozen=True)
class RawEvent:
    """One event of a raw event stream (`reply.raw.events[]`): its exact data (or JSON, written compactly), its SSE
    event name, and the wait before it."""

    text: str
    event: str | None = None
    delay_ms: int = 0


#: The name of a raw event that, on a gRPC stream, ends the call with a status: its text is a google.rpc.Status in
#: ProtoJSON (every other raw event on gRPC is a StreamResponse in ProtoJSON).
GRPC_STATUS_EVENT = "error"


@dataclass(frozen=True)
class EventEdit:
    """One edit of a generated stream (`reply.stream.events[]`), at the Nth event it would send (1: the first),
    at every event (`all`), or after the last (`end`)."""

    at: int | str
    #: Wait this long before the event (before what is inserted there too).
    delay_ms: int = 0
    insert: ExtraEvent | None = None
    replace: ExtraEvent | None = None
    drop: bool = False
    #: Structured edits of the generated event as sent (contract/edits.py), its ids kept.
    edit: tuple[Edit, ...] = ()

    def applies(self, n: int) -> bool:
        return self.at == AT_ALL or self.at == n


@dataclass(frozen=True)
class StreamScript:
    """How a stream deviates from the default (task snapshot, updates, close at a stop)."""

    interval_ms: int = 0
    omit_terminal: bool = False
    first_event: FirstEvent = FirstEvent.TASK
    duplicate_events: bool = False
    comments: tuple[str, ...] = ()
    ping_ms: int | None = None
    #: Send `error` after this many events, then close the stream.
    error_after: int | None = None
    error: A2AError = field(default_factory=_stream_error)
    close_at_interrupted: bool = True
    final_snapshot: bool = False
    #: Reset the connection after this many events (a dropped stream; the task goes on).
    drop_after: int | None = None
    framing: StreamFraming = StreamFraming.SSE
    #: JSON-RPC: send each event's StreamResponse bare, without the JSON-RPC response around it.
    bare_events: bool = False
    #: Per-event edits: insert, replace, drop or delay the Nth generated event (`reply.stream.events`).
    events: tuple[EventEdit, ...] = ()
    #: The last event is not followed by the blank line that ends an SSE event (NDJSON: by a newline) before EOF.
    unterminated: bool = False
    #: After its last event the stream stays open (until the client goes, or limits.stream_idle_seconds).
    hold_open: bool = False
    #: The stream error goes out with `event: error` (false: a bare `data:` line).
    error_event: bool = True
    #: HTTP+JSON: the stream error's google.rpc.Status carries its `details` (false: none, not even `[]`).
    error_details: bool = True


@dataclass(frozen=True)
class Envelope:
    """JSON-RPC envelope misbehaviour: another `id`; both result and error; neither."""

    id: EnvelopeId = EnvelopeId.ECHO
    both: bool = False
    neither: bool = False


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    after_bytes: int = 0
    chunk_bytes: int = 8
    interval_ms: int = 200


@dataclass(frozen=True)
class GrpcReply:
    """How a gRPC answer deviates: another status than the error's, no google.rpc.Status details, or a call that
    ends OK without its message (trailers only)."""

    status: Code | None = None
    details: bool = True
    empty: bool = False


@dataclass(frozen=True)
class Reply:
    """What one rule answers. Exactly one of message/task/error/raw, or none for the default behaviour."""

    message: tuple[dict[str, Any], ...] | None = None
    task: TaskScript | None = None
    error: A2AError | None = None
    error_http_status: int | None = None
    #: The HTTP status of a successful (non-streamed) answer instead of 200 (`reply.http_status`).
    http_status: int | None = None
    raw_status: int | None = None
    raw_body: bytes = b""
    raw_content_type: str = "application/json"
    #: JSON-RPC only: rewrite the raw body's top-level `id` to the request's (a recorded answer replayed to any client).
    raw_echo_id: bool = False
    #: Why the raw body's bytes themselves are the quirk (`reply.raw.byte_exact`): the catalogue keeps raw bodies to
    #: those that say so (structured options express the rest).
    raw_byte_exact: str | None = None
    #: Fill `{request_id}`, `{task_id}`, `{context_id}` in the raw body and events from the request (`raw.fill`).
    raw_fill: bool = False
    #: A raw event stream instead of a body (`raw.events`): sent as SSE, one event at a time, each after its delay.
    raw_events: tuple[RawEvent, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    delay_ms: int = 0
    fault: Fault | None = None
    envelope: Envelope = field(default_factory=Envelope)
    stream: StreamScript = field(default_factory=StreamScript)
    #: Fields no A2A version defines, added to every object of the answer (never inside `data` or `metadata`):
    #: a newer or vendor-extended server. Clients must ignore them (§5.7 "Unknown fields SHOULD be ignored").
    unknown_fields: tuple[tuple[str, Any], ...] = ()
    grpc: GrpcReply = field(default_factory=GrpcReply)
    #: Structured edits of the generated answer as sent (`reply.edit`, contract/edits.py): its ids and states kept.
    edits: tuple[Edit, ...] = ()

    @cached_property
    def message_template(self) -> Template:
        """The direct message's parts as filled for each answer (with the user's text); empty without `message`."""
        return Template(list(self.message or ()), TEXT)


@dataclass(frozen=True)
class When:
    version: Version | None = None
    binding: Binding | None = None
    method: str | None = None
    message_id_prefix: str | None = None
    text_contains: str | None = None
    header: tuple[tuple[str, str | None], ...] = ()
    calls: tuple[int, int | None] | None = None  # inclusive range of the Nth call of this operation
    has_task_id: bool | None = None
    #: Members (dotted paths, e.g. `configuration.acceptedOutputModes`) of which the request's params lack at least one.
    lacks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    when: When
    reply: Reply


@dataclass(frozen=True)
class CardPath:
    """What a well-known card path serves: the card, a 404, or something else."""

    mode: CardPathMode
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()


def not_found_body(page: CardPath, method: str, path: str) -> bytes:
    """A `not_found` page's body for one request: `{method}` and `{path}` filled in (frameworks name them)."""
    return page.body.replace(b"{method}", method.encode()).replace(b"{path}", path.encode())


@dataclass(frozen=True)
class CardSigning:
    """Sign the served card (§8.4) with a test key; optionally break it afterwards."""

    key: dict[str, Any]
    kid: str
    tamper: Tamper = Tamper.NONE


@dataclass(frozen=True)
class CardSpec:
    object: dict[str, Any] | None
    raw: bytes | None
    content_type: str
    cache_control: str | None
    etag: bool
    well_known: CardPath
    legacy: CardPath
    pad_to: int | None
    substitute_raw: bool
    sign: CardSigning | None = None
    #: Per A2A-Version asked for (absent: 0.3), the exact card text served instead (`card.versions`).
    by_version: tuple[tuple[Version, bytes], ...] = ()
    #: With `etag`: Last-Modified too, and If-Modified-Since answered (`card.last_modified`).
    last_modified: bool = True
    #: Structured edits of the card object as served, origins filled in, before it is signed (`card.edit`): how a
    #: card serves a member of the wrong type on purpose (`{at: version, set: 1}`), which `object` refuses.
    edits: tuple[Edit, ...] = ()
    #: With the scenario's `base_path`: what the origin's own /.well-known/agent-card.json answers (`card.origin_root`;
    #: default a 404), while the card is served under the prefix.
    origin_root: CardPath = field(default_factory=lambda: CardPath(CardPathMode.MISSING, 404))


@dataclass(frozen=True)
class Endpoint:
    path: str
    binding: Binding
    versions: tuple[Version, ...]


@dataclass(frozen=True)
class ClientAsk:
    """What the scenario asks the client under test to do (the harness passes it on)."""

    message: str = DEFAULT_MESSAGE
    #: The A2A_LAB_ACTION object, as the client receives it: keys and value types from ACTIONS (checked on load),
    #: plus `jwks` (the public keys) when `verify_signature` is asked.
    action: dict[str, Any] = field(default_factory=dict)


#: What a scenario may ask of the client (A2A_LAB_ACTION), and what each value must be.
ACTIONS: dict[str, type] = {
    "follow_up": str,  # answer the INPUT_REQUIRED question (or write to the finished task) with this text, same taskId
    "stream": bool,  # use streaming if the card allows it
    "webhook": bool,  # register a push webhook of your own and check the credentials it is called with
    "webhook_auth": str,  # how the webhook's config authenticates its calls: Bearer (default), Basic, or token
    "push_configs": bool,  # register the webhook with CreateTaskPushNotificationConfig, then list, get and delete it
    "token": str,  # present this bearer token
    "credentials": dict,  # credentials for the card's schemes: apiKey, username, password, client_id, client_secret
    "extended_card": bool,  # fetch the extended card (authenticated)
    "resubscribe": bool,  # after a dropped stream, SubscribeToTask
    "verify_signature": bool,  # verify the card's signature with the JWKS given in `jwks`
    "client_certificate": bool,  # present the client certificate of A2A_LAB_CLIENT_CERT_FILE (mutual TLS)
    "new_message": str,  # once the task stopped, send this text as an unrelated new message (no taskId: a new task)
    "cancel": bool,  # cancel the task (CancelTask) while it is still open, then report the state it ended in
}
#: The card capability each ask needs: a correct client asked to use one the card does not offer keeps to the card.
ACTION_CAPABILITIES: dict[str, str] = {
    "stream": cards.STREAMING,
    "webhook": cards.PUSH_NOTIFICATIONS,
    "push_configs": cards.PUSH_NOTIFICATIONS,
    "extended_card": cards.EXTENDED_CARD,
}


@dataclass(frozen=True)
class Expect:
    """What a correct client concludes in this scenario (scored by RESULT-EXPECTED)."""

    #: Every acceptable conclusion. Usually one; several where the spec leaves the client a choice
    #: (`result: [none, task]`: refusing the card or using it).
    results: tuple[Conclusion, ...] = ()
    #: For a task conclusion: its state; several where a race allows each (`state: [CANCELED, COMPLETED]`), and
    #: then the client must report the one it got (RESULT-MATCHES).
    states: tuple[TaskState, ...] = ()
    text_contains: str | None = None
    #: The client's whole text, exactly (whitespace runs read as one space): where a word too many is a mistake.
    text: str | None = None
    #: The answers are legal (or malformed on purpose, to be refused with an error): the client ends by itself, with
    #: no stack trace and no signal (CLIENT-SURVIVES). `a2a-lab fuzz` sets it on every case it serves.
    survives: bool = False

    @property
    def result(self) -> Conclusion | None:
        """The one expected conclusion, or None when there is none or a choice of several."""
        return self.results[0] if len(self.results) == 1 else None

    @property
    def state(self) -> TaskState | None:
        """The one expected state, or None when there is none or a choice of several."""
        return self.states[0] if len(self.states) == 1 else None

    @property
    def stated(self) -> bool:
        return bool(self.results) or bool(self.states) or self.text_contains is not None or self.text is not None

    @property
    def no_call_allowed(self) -> bool:
        """A correct client may (or must) leave this agent alone."""
        return Conclusion.NONE in self.results


#: The credentials a scenario may accept and hand a client (`auth.credentials`, A2A_LAB_ACTION `credentials`).
CREDENTIAL_KEYS = ("apiKey", "username", "password", "client_id", "client_secret")


@dataclass(frozen=True)
class Auth:
    """What the server accepts for the schemes its card declares (the card decides which, where and how)."""

    #: The token an HTTP Bearer scheme accepts (and, without any card scheme, `Authorization: Bearer` it needs).
    bearer: str | None = None
    scope: AuthScope = AuthScope.ALL
    #: apiKey, username + password (HTTP Basic), client_id + client_secret (OAuth 2.0 client credentials, OIDC).
    credentials: dict[str, str] = field(default_factory=dict)
    #: An access token from the token endpoint is good for this many A2A calls, then answers 401 invalid_token.
    token_uses: int | None = None
    #: Keep tasks apart by who authenticated the call (server/auth.py Verdict.identity): another user's task is
    #: answered as a task that does not exist, and ListTasks lists the caller's own (A2A 1.0 §13.1, §3.3.2).
    tasks_per_user: bool = False


@dataclass(frozen=True)
class Tls:
    """Serve the scenario over HTTPS (a plain-HTTP listener of the same server answers at `{http_base_url}`)."""

    certificate: ServerCertificate = ServerCertificate.VALID
    #: Mutual TLS: ask for a client certificate (the harness hands one over); A2A calls without one are refused.
    client_certificate: bool = False


@dataclass(frozen=True)
class PushDelivery:
    """Push delivery as deployed agents do it (A2A 1.0 §4.3.3: MAY retry; nothing orders parallel deliveries)."""

    #: Every notification is sent twice, as by an agent that did not see the first answer (a timeout, or a 5xx from
    #: a gateway in front of the webhook) and retried.
    redeliver: bool = False
    #: The first status notification of each task is held back and sent after the one of the state it stopped in
    #: (its timestamp older): deliveries that overtook each other.
    reorder: bool = False
    #: Before the notification of the state a task stopped in, one about a task the client never started (FAILED),
    #: with the config's credentials: a misrouted notification.
    foreign_task: bool = False
    #: Structured edits of every notification's body as sent (`push.edit`, contract/edits.py).
    edits: tuple[Edit, ...] = ()


MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one served scenario accepts and keeps. Counts bound how many; byte budgets bound how much memory, as
    estimated from sizes already at hand (a request's body length, a kept body's length), not by encoding requests
    again (only a push config, which is rare, is measured as JSON)."""

    body_bytes: int = MIB
    #: Seconds a client has to send a request body; a slower (or stalled) body gets 408 and the connection closed.
    body_seconds: float = 10.0
    json_depth: int = 64
    journal_entries: int = 10_000
    #: The journal's estimated bytes (what its entries keep of requests, answers and stream events): oldest dropped.
    journal_bytes: int = 64 * MIB
    streams: int = 32
    #: Seconds a stream may go without an event before the server closes it (an idle subscriber must not hold one of
    #: the `streams` for as long as its socket stays open).
    stream_idle_seconds: float = 30.0
    #: Seconds between SSE keep-alive comments on a stream whose reply sets no `stream.ping_ms`: often enough that a
    #: client's read timeout does not fire while it waits for a slow task's next event.
    stream_ping_seconds: float = 15.0
    push_deliveries_per_task: int = 100
    tasks: int = 10_000
    #: The task store's estimated bytes (the messages its tasks keep, their echoes and push configs): oldest
    #: forgotten; one task that would hold more on its own is refused.
    task_bytes: int = 64 * MIB
    #: Push notification configs one task may have, and their bytes (as JSON) together: more are refused.
    push_configs_per_task: int = 100
    push_config_bytes: int = MIB
    #: Parts one message may have (a part costs far more memory and time than its bytes on the wire): refused.
    parts_per_message: int = 1000
    #: Bytes of rendered cards kept (one per origin clients used); a card larger than this is rendered per request.
    card_cache_bytes: int = 16 * MIB


DEFAULT_TASK = TaskScript(
    steps=(Step(TaskState.SUBMITTED), Step(TaskState.WORKING), Step(TaskState.COMPLETED)),
    artifacts=(ArtifactSpec({"artifactId": "artifact-1", "name": "result", "parts": [{"text": "echo: {text}"}]}),),
)


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    description: str
    source: str
    spec: str | None
    #: Where and when a quirk was seen (free-form provenance for people: where, when, note, ...).
    observed: dict[str, Any] | None
    seed: int
    timeout: float
    client: ClientAsk
    card: CardSpec
    extended_card: dict[str, Any] | None
    endpoints: tuple[Endpoint, ...]
    task: TaskScript
    rules: dict[Operation, tuple[Rule, ...]]
    lenient_kind: bool
    auth: Auth | None
    push_allow: tuple[str, ...]
    push_probe: bool
    limits: Limits
    checks: tuple[str, ...]
    expect: Expect = field(default_factory=Expect)
    #: What `a2a-lab record` wrote about the capture a recorded scenario replays (free-form provenance).
    recorded: dict[str, Any] | None = None
    #: The spec revision the server follows where v1.0.0 and v1.0.1 differ on the wire (notes D3, D5): the HTTP+JSON
    #: media type and the status each A2A error answers. JSON-RPC bodies are the same in both.
    spec_revision: SpecRevision = DEFAULT_REVISION
    #: Served over HTTPS, and how (None: plain HTTP).
    tls: Tls | None = None
    #: The family (a file with `matrix:`) this scenario is a member of, by its id (None: a file of its own).
    family: str | None = None
    #: How push notifications are delivered, as deployed agents do (section `push`; default: each event once, in order).
    push_delivery: PushDelivery = field(default_factory=PushDelivery)
    #: Refuse a 1.0 request holding a member its proto message does not define (-32602, as a strict ProtoJSON
    #: parser does), instead of ignoring it (§5.7).
    refuse_unknown_fields: bool = False
    #: Compress every plain answer (the card included) of at least this many bytes with gzip where the request's
    #: Accept-Encoding names gzip, as Starlette's GZipMiddleware does (None: never).
    gzip_min_bytes: int | None = None
    #: How a framework words the errors a2a-lab answers (personas; contract/wording.py): the first entry that matches
    #: an error gives its message (`{version}`: the A2A version the request asked for), code, reason and status.
    error_messages: tuple[ErrorWording, ...] = ()
    #: How its JSON answers are written (timestamps, member order), as a framework writes them (personas).
    style: Style = field(default_factory=Style)
    #: What a request nothing serves answers (an unknown path; an HTTP+JSON endpoint's unknown route or method), as a
    #: framework's own page; None: a2a-lab's JSON error naming what is served.
    not_found: CardPath | None = None
    #: Request bodies are read as JSON whatever their Content-Type says (`leniency.any_content_type`).
    lenient_content_type: bool = False
    #: The A2A-Version header is not read: each method is served in its own version (`leniency.ignore_version`).
    ignore_version: bool = False
    #: A version whose major a2a-lab speaks is read as that version, `1.1` as `1.0` (`leniency.minor_versions`).
    lenient_minor: bool = False
    #: HTTP+JSON: a request without A2A-Version is served at its route's version (`leniency.route_version`).
    route_version: bool = False
    #: JSON-RPC: a request without `id` is answered as if its id were null (`leniency.notifications`).
    answer_notifications: bool = False
    #: The tenants an HTTP+JSON route may begin with (`/{tenant}/message:send`): None, any (`tenant_routes: any`);
    #: else exactly these (`declared`: the card's; `none`: the empty set).
    tenants: frozenset[str] | None = None
    #: The path prefix everything is served under (`base_path`: the card, the endpoints, `{base_url}`), as a gateway
    #: publishes an agent at `/agents/demo`; "" serves at the origin's root.
    base_path: str = ""

    def served_at(self, origin: str) -> str:
        """The scenario's `{base_url}` on a server at `origin` (its prefix appended): its card is under it."""
        return origin + self.base_path

    @property
    def group(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def cited(self) -> bool:
        """Whether the scenario says what it stands on: a spec section, where a quirk was observed, or a capture."""
        return bool(self.spec or self.observed or self.recorded)

    @property
    def serves_grpc(self) -> bool:
        """The scenario has a gRPC endpoint (served only where the `grpc` extra is installed)."""
        return any(e.binding is Binding.GRPC for e in self.endpoints)
