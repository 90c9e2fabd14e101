"""Scenario files: the schema, validation with clear errors, and the loaded model.

A scenario is data (YAML, loaded with `yaml.safe_load`): a card, the endpoints that really answer, and
per-operation rules that choose a reply. Every error names the file, the field and a fix.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from a2a_lab.protocol import bindings, errors, states, versions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

from .placeholders import ALT_BASE_URL, BASE_URL

DEFAULT_MESSAGE = "Hello from a2a-lab: what can you do?"
#: Marks an artifact to be delivered in chunks; never sent on the wire.
CHUNKED = "_chunked"
DEFAULT_TIMEOUT = 20.0


class ScenarioError(ValueError):
    """A scenario file that cannot be used: where, what, and how to fix it."""

    def __init__(self, source: str, field_path: str, problem: str, hint: str = "") -> None:
        self.source, self.field_path, self.problem, self.hint = source, field_path, problem, hint
        text = f"{source}: {field_path or '(top level)'}: {problem}"
        super().__init__(text + (f"\n  hint: {hint}" if hint else ""))


# ----------------------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Step:
    """One state of a scripted task lifecycle."""

    state: TaskState
    message: str | None = None
    artifacts: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class TaskScript:
    steps: tuple[Step, ...]
    #: Artifacts (canonical 1.0 form, `{text}` templated) attached at the last step unless a step has its own.
    artifacts: tuple[dict[str, Any], ...] = ()
    #: `stop`: a blocking call returns at the first terminal or interrupted step (§3.2.2);
    #: `first`: every call returns the first step (a server that ignores blocking).
    returns: str = "stop"
    #: How a task left mid-way moves on: `get_task` (one step per GetTask), a delay in ms, or `never`.
    advance_on_get: int = 1
    advance_after_ms: int | None = None
    history: bool = True


@dataclass(frozen=True)
class StreamScript:
    """How a stream deviates from the default (task snapshot, updates, close at a stop)."""

    interval_ms: int = 0
    omit_terminal: bool = False
    first_event: str = "task"  # or `status`
    duplicate_events: bool = False
    comments: tuple[str, ...] = ()
    ping_ms: int | None = None
    error_after: int | None = None
    error: str | int = "InternalError"
    close_at_interrupted: bool = True
    final_snapshot: bool = False
    #: Reset the connection after this many events (a dropped stream; the task goes on).
    drop_after: int | None = None


@dataclass(frozen=True)
class Envelope:
    """JSON-RPC envelope misbehaviour: `id` wrong/null/omit; both result and error; neither."""

    id: str = "echo"
    both: bool = False
    neither: bool = False


@dataclass(frozen=True)
class Fault:
    kind: str  # stall | reset | truncate | drip
    after_bytes: int = 0
    chunk_bytes: int = 8
    interval_ms: int = 200


@dataclass(frozen=True)
class Reply:
    """What one rule answers. Exactly one of message/task/error/raw, or none for the default behaviour."""

    message: tuple[dict[str, Any], ...] | None = None
    task: TaskScript | None = None
    error: errors.A2AError | None = None
    error_http_status: int | None = None
    raw_status: int | None = None
    raw_body: bytes = b""
    raw_content_type: str = "application/json"
    #: JSON-RPC only: rewrite the raw body's top-level `id` to the request's (a recorded answer replayed to any client).
    raw_echo_id: bool = False
    headers: tuple[tuple[str, str], ...] = ()
    delay_ms: int = 0
    fault: Fault | None = None
    envelope: Envelope = field(default_factory=Envelope)
    stream: StreamScript = field(default_factory=StreamScript)
    #: Fields no A2A version defines, added to every object of the answer (never inside `data` or `metadata`):
    #: a newer or vendor-extended server. Clients must ignore them (§5.7 "Unknown fields SHOULD be ignored").
    unknown_fields: tuple[tuple[str, Any], ...] = ()


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


@dataclass(frozen=True)
class Rule:
    when: When
    reply: Reply


@dataclass(frozen=True)
class CardPath:
    """What a well-known card path serves: the card, a 404, or something else."""

    mode: str  # serve | missing | raw
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"


@dataclass(frozen=True)
class CardSigning:
    """Sign the served card (§8.4) with a test key; optionally break it afterwards."""

    key: dict[str, Any]
    kid: str
    #: `none`, `payload` (change the card after signing) or `unknown-kid` (sign with a kid no key set has).
    tamper: str = "none"


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


@dataclass(frozen=True)
class Endpoint:
    path: str
    binding: Binding
    versions: tuple[Version, ...]


@dataclass(frozen=True)
class ClientAsk:
    """What the scenario asks the client under test to do (the harness passes it on)."""

    message: str = DEFAULT_MESSAGE
    action: dict[str, Any] = field(default_factory=dict)


#: What a scenario may ask of the client (A2A_LAB_ACTION), and what each value must be.
ACTIONS: dict[str, type] = {
    "follow_up": str,  # answer the INPUT_REQUIRED question (or write to the finished task) with this text, same taskId
    "stream": bool,  # use streaming if the card allows it
    "webhook": bool,  # register a push webhook of your own and check the credentials it is called with
    "token": str,  # present this bearer token
    "extended_card": bool,  # fetch the extended card (authenticated)
    "resubscribe": bool,  # after a dropped stream, SubscribeToTask
    "verify_signature": bool,  # verify the card's signature with the JWKS given in `jwks`
}
EXPECT_RESULTS = ("message", "task", "error", "none")


@dataclass(frozen=True)
class Expect:
    """What a correct client concludes in this scenario (scored by RESULT-EXPECTED)."""

    #: Every acceptable conclusion: message | task | error | none (a correct client makes no A2A call). Usually one;
    #: several where the spec leaves the client a choice (`result: [none, task]`: refusing the card or using it).
    results: tuple[str, ...] = ()
    #: For a task conclusion: its state.
    state: TaskState | None = None
    text_contains: str | None = None

    @property
    def result(self) -> str | None:
        """The one expected conclusion, or None when there is none or a choice of several."""
        return self.results[0] if len(self.results) == 1 else None

    @property
    def stated(self) -> bool:
        return bool(self.results) or self.state is not None or self.text_contains is not None

    @property
    def no_call_allowed(self) -> bool:
        """A correct client may (or must) leave this agent alone."""
        return "none" in self.results


@dataclass(frozen=True)
class Auth:
    bearer: str
    scope: str  # all | extended_card


@dataclass(frozen=True)
class Limits:
    body_bytes: int = 1024 * 1024
    #: Seconds a client has to send a request body; a slower (or stalled) body gets 408 and the connection closed.
    body_seconds: float = 10.0
    json_depth: int = 64
    journal_entries: int = 10_000
    streams: int = 32
    push_deliveries_per_task: int = 100
    tasks: int = 10_000


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    description: str
    source: str
    spec: str | None
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
    data: dict[str, Any]
    expect: Expect = field(default_factory=lambda: Expect())

    @property
    def group(self) -> str:
        return self.id.split("/", 1)[0]


# ----------------------------------------------------------------------------------------- loading

_TOP_KEYS = {
    "title",
    "description",
    "spec",
    "observed",
    "seed",
    "timeout",
    "client",
    "card",
    "extended_card",
    "endpoints",
    "expect",
    "task",
    "behaviour",
    "leniency",
    "auth",
    "push",
    "limits",
    "checks",
    "recorded",
}


class _Reader:
    """Walks YAML data with a field path, raising ScenarioError with hints."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, problem: str, hint: str = "") -> ScenarioError:
        return ScenarioError(self.source, path, problem, hint)

    def mapping(self, value: Any, path: str, allowed: set[str] | None = None) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a mapping, got {type(value).__name__}")
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    near = difflib.get_close_matches(str(key), sorted(allowed), n=1)
                    raise self.fail(
                        f"{path}.{key}" if path else str(key),
                        "unknown field",
                        f"did you mean {near[0]!r}?" if near else f"allowed here: {', '.join(sorted(allowed))}",
                    )
        return value

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"expected text, got {type(value).__name__}")
        return value

    def integer(self, value: Any, path: str, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(path, f"expected a whole number >= {minimum}, got {value!r}")
        return value

    def number(self, value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise self.fail(path, f"expected a positive number, got {value!r}")
        return float(value)

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"expected true or false, got {value!r}")
        return value

    def state(self, value: Any, path: str) -> TaskState:
        state = states.parse(value)
        if state is None or state is TaskState.UNSPECIFIED:
            raise self.fail(
                path,
                f"unknown task state {value!r}",
                "one of " + ", ".join(s.short for s in TaskState if s is not TaskState.UNSPECIFIED),
            )
        return state

    def version(self, value: Any, path: str) -> Version:
        version = versions.to_known(str(value))
        if version is None:
            raise self.fail(path, f"unknown protocol version {value!r}", 'write "1.0" or "0.3" (quoted)')
        return version

    def binding(self, value: Any, path: str) -> Binding:
        text = self.string(value, path)
        binding = bindings.parse(text) or bindings.SHORT_NAMES.get(text.lower())
        if binding is None or binding is Binding.GRPC:
            raise self.fail(path, f"a2a-lab serves JSONRPC and HTTP+JSON, not {text!r}")
        return binding

    def error(self, value: Any, path: str) -> tuple[errors.A2AError, int | None]:
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            value = {"code": value}
        spec = self.mapping(value, path, {"code", "message", "http_status"})
        code = spec.get("code")
        if isinstance(code, str):
            etype = errors.by_name(code)
            if etype is None:
                near = difflib.get_close_matches(code, errors.names(), n=1)
                raise self.fail(
                    f"{path}.code",
                    f"unknown error {code!r}",
                    f"did you mean {near[0]!r}?" if near else "one of " + ", ".join(errors.names()),
                )
            err = errors.A2AError(etype, spec.get("message"))
        elif isinstance(code, int) and not isinstance(code, bool):
            etype = errors.by_code(code)
            err = errors.A2AError(
                etype or errors.ErrorType.INTERNAL_ERROR, spec.get("message"), code_override=None if etype else code
            )
        else:
            raise self.fail(f"{path}.code", "required: an error name (TaskNotFound) or a JSON-RPC code (-32601)")
        http_status = spec.get("http_status")
        if http_status is not None:
            http_status = self.integer(http_status, f"{path}.http_status", 100)
        return err, http_status


def _text_part(text: str) -> dict[str, Any]:
    return {"text": text}


def _parts(r: _Reader, value: Any, path: str) -> tuple[dict[str, Any], ...]:
    """Parts in canonical form from either `text: ...` shorthand or a list of 1.0 parts."""
    if isinstance(value, str):
        return (_text_part(value),)
    if not isinstance(value, list) or not value:
        raise r.fail(
            path,
            "expected text or a non-empty list of parts",
            "e.g. [{text: hi}, {data: {ok: true}}, {raw: aGk=, mediaType: text/plain}, {url: https://x/y.pdf}]",
        )
    out = []
    for i, part in enumerate(value):
        p = r.mapping(part, f"{path}[{i}]", {"text", "raw", "url", "data", "filename", "mediaType", "metadata"})
        kinds = [k for k in ("text", "raw", "url", "data") if k in p]
        if len(kinds) != 1:
            raise r.fail(f"{path}[{i}]", "a part needs exactly one of text, raw, url, data")
        out.append(dict(p))
    return tuple(out)


def _artifacts(r: _Reader, value: Any, path: str) -> tuple[dict[str, Any], ...]:
    if not isinstance(value, list):
        raise r.fail(path, "expected a list of artifacts", "e.g. [{name: result, parts: [{text: done}]}]")
    out = []
    for i, item in enumerate(value):
        a = r.mapping(
            item, f"{path}[{i}]", {"artifactId", "name", "description", "parts", "text", "metadata", "chunked"}
        )
        if ("parts" in a) == ("text" in a):
            raise r.fail(f"{path}[{i}]", "an artifact needs `parts` or `text` (one of them)")
        art: dict[str, Any] = {"artifactId": a.get("artifactId", f"artifact-{i + 1}")}
        for key in ("name", "description", "metadata"):
            if key in a:
                art[key] = a[key]
        art["parts"] = list(_parts(r, a.get("parts", a.get("text")), f"{path}[{i}].parts"))
        if r.boolean(a.get("chunked", False), f"{path}[{i}].chunked"):
            art[CHUNKED] = True  # streamed one part per update: append after the first, lastChunk on the last
        out.append(art)
    return tuple(out)


def _task_script(r: _Reader, value: Any, path: str, base: TaskScript | None = None) -> TaskScript:
    spec = r.mapping(value, path, {"steps", "artifacts", "returns", "advance", "history"})
    steps: list[Step] = []
    raw_steps = spec.get("steps", None)
    if raw_steps is None:
        if base is None:
            raise r.fail(
                f"{path}.steps", "required: the states the task goes through", "e.g. [SUBMITTED, WORKING, COMPLETED]"
            )
        steps = list(base.steps)
    else:
        if not isinstance(raw_steps, list) or not raw_steps:
            raise r.fail(f"{path}.steps", "expected a non-empty list of states", "e.g. [SUBMITTED, WORKING, COMPLETED]")
        for i, item in enumerate(raw_steps):
            sp = f"{path}.steps[{i}]"
            if isinstance(item, str):
                steps.append(Step(r.state(item, sp)))
            else:
                s = r.mapping(item, sp, {"state", "message", "artifacts"})
                steps.append(
                    Step(
                        r.state(s.get("state"), f"{sp}.state"),
                        r.string(s["message"], f"{sp}.message") if "message" in s else None,
                        _artifacts(r, s["artifacts"], f"{sp}.artifacts") if "artifacts" in s else (),
                    )
                )
        for i, step in enumerate(steps[:-1]):
            if step.state.terminal:
                raise r.fail(
                    f"{path}.steps[{i}]",
                    f"{step.state.short} is terminal, so no step may follow it",
                    "a terminal task never changes (§8)",
                )
    artifacts = (
        _artifacts(r, spec["artifacts"], f"{path}.artifacts")
        if "artifacts" in spec
        else (base.artifacts if base else ())
    )
    returns = spec.get("returns", base.returns if base else "stop")
    if returns not in ("stop", "first"):
        raise r.fail(
            f"{path}.returns",
            f"unknown value {returns!r}",
            "stop (honour blocking, §3.2.2) or first (answer with the first step)",
        )
    advance_on_get, advance_after = (base.advance_on_get, base.advance_after_ms) if base else (1, None)
    if "advance" in spec:
        adv = spec["advance"]
        if adv == "never":
            advance_on_get, advance_after = 0, None
        elif adv == "get_task":
            advance_on_get, advance_after = 1, None
        else:
            a = r.mapping(adv, f"{path}.advance", {"get_task", "after_ms"})
            advance_on_get = r.integer(a.get("get_task", 0), f"{path}.advance.get_task")
            advance_after = r.integer(a["after_ms"], f"{path}.advance.after_ms", 1) if "after_ms" in a else None
    history = r.boolean(spec.get("history", base.history if base else True), f"{path}.history")
    return TaskScript(tuple(steps), artifacts, returns, advance_on_get, advance_after, history)


def _stream(r: _Reader, value: Any, path: str) -> StreamScript:
    s = r.mapping(
        value,
        path,
        {
            "interval_ms",
            "omit_terminal",
            "first_event",
            "duplicate_events",
            "comments",
            "ping_ms",
            "error_after",
            "error",
            "close_at_interrupted",
            "final_snapshot",
            "drop_after",
        },
    )
    first = s.get("first_event", "task")
    if first not in ("task", "status"):
        raise r.fail(
            f"{path}.first_event",
            f"unknown value {first!r}",
            "task (per spec) or status (a stream whose first event is not a task)",
        )
    comments = s.get("comments", [])
    if not isinstance(comments, list) or not all(isinstance(c, str) for c in comments):
        raise r.fail(f"{path}.comments", "expected a list of comment texts")
    if "error" in s:
        r.error(s["error"], f"{path}.error")
    return StreamScript(
        interval_ms=r.integer(s.get("interval_ms", 0), f"{path}.interval_ms"),
        omit_terminal=r.boolean(s.get("omit_terminal", False), f"{path}.omit_terminal"),
        first_event=first,
        duplicate_events=r.boolean(s.get("duplicate_events", False), f"{path}.duplicate_events"),
        comments=tuple(comments),
        ping_ms=r.integer(s["ping_ms"], f"{path}.ping_ms", 1) if "ping_ms" in s else None,
        error_after=r.integer(s["error_after"], f"{path}.error_after") if "error_after" in s else None,
        error=s.get("error", "InternalError"),
        close_at_interrupted=r.boolean(s.get("close_at_interrupted", True), f"{path}.close_at_interrupted"),
        final_snapshot=r.boolean(s.get("final_snapshot", False), f"{path}.final_snapshot"),
        drop_after=r.integer(s["drop_after"], f"{path}.drop_after", 1) if "drop_after" in s else None,
    )


_REPLY_KINDS = ("message", "task", "error", "raw")


def _reply(r: _Reader, value: Any, path: str, base_task: TaskScript) -> Reply:
    spec = r.mapping(
        value, path, {*_REPLY_KINDS, "delay_ms", "fault", "envelope", "stream", "headers", "unknown_fields"}
    )
    kinds = [k for k in _REPLY_KINDS if k in spec]
    if len(kinds) > 1:
        raise r.fail(path, f"a reply has at most one of {', '.join(_REPLY_KINDS)} (found {', '.join(kinds)})")
    kw: dict[str, Any] = {}
    if "message" in spec:
        m = spec["message"]
        kw["message"] = _parts(r, m.get("parts") if isinstance(m, dict) else m, f"{path}.message")
    if "task" in spec:
        kw["task"] = _task_script(r, spec["task"] or {}, f"{path}.task", base_task)
    if "error" in spec:
        kw["error"], kw["error_http_status"] = r.error(spec["error"], f"{path}.error")
    if "raw" in spec:
        raw = r.mapping(spec["raw"], f"{path}.raw", {"status", "body", "content_type", "echo_id"})
        kw["raw_status"] = r.integer(raw.get("status", 200), f"{path}.raw.status", 100)
        body = raw.get("body", "")
        kw["raw_body"] = body.encode() if isinstance(body, str) else r.fail(f"{path}.raw.body", "expected text")  # type: ignore[assignment]
        if isinstance(kw["raw_body"], ScenarioError):
            raise kw["raw_body"]
        kw["raw_content_type"] = r.string(raw.get("content_type", "application/json"), f"{path}.raw.content_type")
        kw["raw_echo_id"] = r.boolean(raw.get("echo_id", False), f"{path}.raw.echo_id")
    if "headers" in spec:
        h = r.mapping(spec["headers"], f"{path}.headers")
        kw["headers"] = tuple((str(k), str(v)) for k, v in h.items())
    if "delay_ms" in spec:
        kw["delay_ms"] = r.integer(spec["delay_ms"], f"{path}.delay_ms")
    if "fault" in spec:
        f = spec["fault"]
        f = (
            {"kind": f}
            if isinstance(f, str)
            else r.mapping(f, f"{path}.fault", {"kind", "after_bytes", "chunk_bytes", "interval_ms"})
        )
        if f.get("kind") not in ("stall", "reset", "truncate", "drip"):
            raise r.fail(f"{path}.fault.kind", f"unknown fault {f.get('kind')!r}", "stall, reset, truncate or drip")
        kw["fault"] = Fault(
            f["kind"],
            r.integer(f.get("after_bytes", 0), f"{path}.fault.after_bytes"),
            r.integer(f.get("chunk_bytes", 8), f"{path}.fault.chunk_bytes", 1),
            r.integer(f.get("interval_ms", 200), f"{path}.fault.interval_ms"),
        )
    if "envelope" in spec:
        e = r.mapping(spec["envelope"], f"{path}.envelope", {"id", "both", "neither"})
        if e.get("id", "echo") not in ("echo", "wrong", "null", "omit"):
            raise r.fail(f"{path}.envelope.id", f"unknown value {e.get('id')!r}", "echo, wrong, null or omit")
        kw["envelope"] = Envelope(
            e.get("id", "echo"),
            r.boolean(e.get("both", False), f"{path}.envelope.both"),
            r.boolean(e.get("neither", False), f"{path}.envelope.neither"),
        )
    if "stream" in spec:
        kw["stream"] = _stream(r, spec["stream"], f"{path}.stream")
    if "unknown_fields" in spec:
        u = r.mapping(spec["unknown_fields"], f"{path}.unknown_fields")
        if not u:
            raise r.fail(
                f"{path}.unknown_fields",
                "expected at least one field",
                'e.g. {futureField: "ignore me", x-vendor-trace: 42}',
            )
        kw["unknown_fields"] = tuple((str(k), v) for k, v in u.items())
    return Reply(**kw)


def _when(r: _Reader, value: Any, path: str) -> When:
    w = r.mapping(
        value,
        path,
        {
            "version",
            "binding",
            "method",
            "message_id_prefix",
            "text_contains",
            "header",
            "call",
            "calls",
            "has_task_id",
        },
    )
    kw: dict[str, Any] = {}
    if "version" in w:
        kw["version"] = r.version(w["version"], f"{path}.version")
    if "binding" in w:
        kw["binding"] = r.binding(w["binding"], f"{path}.binding")
    for key in ("method", "message_id_prefix", "text_contains"):
        if key in w:
            kw[key] = r.string(w[key], f"{path}.{key}")
    if "header" in w:
        h = r.mapping(w["header"], f"{path}.header")
        kw["header"] = tuple((str(k).lower(), None if v is None else str(v)) for k, v in h.items())
    if "call" in w:
        n = r.integer(w["call"], f"{path}.call", 1)
        kw["calls"] = (n, n)
    if "calls" in w:
        c = r.mapping(w["calls"], f"{path}.calls", {"from", "to"})
        kw["calls"] = (
            r.integer(c.get("from", 1), f"{path}.calls.from", 1),
            r.integer(c["to"], f"{path}.calls.to", 1) if "to" in c else None,
        )
    if "has_task_id" in w:
        kw["has_task_id"] = r.boolean(w["has_task_id"], f"{path}.has_task_id")
    return When(**kw)


def _card_path(r: _Reader, value: Any, path: str, default: str) -> CardPath:
    value = default if value is None else value
    if value == "serve":
        return CardPath("serve")
    if value in ("missing", 404):
        return CardPath("missing", 404)
    p = r.mapping(value, path, {"status", "body", "content_type"})
    return CardPath(
        "raw",
        r.integer(p.get("status", 200), f"{path}.status", 100),
        r.string(p.get("body", ""), f"{path}.body").encode(),
        r.string(p.get("content_type", "application/json"), f"{path}.content_type"),
    )


def _card(r: _Reader, value: Any) -> CardSpec:
    c = r.mapping(
        value,
        "card",
        {
            "object",
            "raw",
            "content_type",
            "cache_control",
            "etag",
            "well_known",
            "legacy",
            "pad_to",
            "substitute_raw",
            "sign",
        },
    )
    if ("object" in c) == ("raw" in c):
        raise r.fail(
            "card", "a card needs exactly one of `object` (a mapping, {base_url} filled in) or `raw` (exact text)"
        )
    obj = r.mapping(c["object"], "card.object") if "object" in c else None
    raw = r.string(c["raw"], "card.raw").encode() if "raw" in c else None
    return CardSpec(
        object=obj,
        raw=raw,
        content_type=r.string(c.get("content_type", "application/json"), "card.content_type"),
        cache_control=r.string(c["cache_control"], "card.cache_control")
        if "cache_control" in c
        else "public, max-age=300",
        etag=r.boolean(c.get("etag", True), "card.etag"),
        well_known=_card_path(r, c.get("well_known"), "card.well_known", "serve"),
        legacy=_card_path(r, c.get("legacy"), "card.legacy", "missing"),
        pad_to=r.integer(c["pad_to"], "card.pad_to", 1) if "pad_to" in c else None,
        substitute_raw=r.boolean(c.get("substitute_raw", True), "card.substitute_raw"),
        sign=_signing(r, c["sign"]) if "sign" in c else None,
    )


def _signing(r: _Reader, value: Any) -> CardSigning:
    from a2a_lab.protocol import signing

    s = r.mapping(value, "card.sign", {"key", "kid", "tamper"})
    key = r.mapping(s.get("key"), "card.sign.key")
    try:
        signing.import_key(key)
    except Exception as exc:
        raise r.fail(
            "card.sign.key", f"not a usable private JWK: {exc}", "an EC P-256 private JWK with kty, crv, x, y, d"
        ) from None
    tamper = s.get("tamper", "none")
    if tamper not in ("none", "payload", "unknown-kid"):
        raise r.fail("card.sign.tamper", f"unknown value {tamper!r}", "none, payload or unknown-kid")
    return CardSigning(key, r.string(s.get("kid", key.get("kid", "a2a-lab-test")), "card.sign.kid"), tamper)


def _derive_endpoints(r: _Reader, card: CardSpec) -> tuple[Endpoint, ...]:
    """By default a scenario answers where its card says: every JSONRPC/HTTP+JSON interface under {base_url}."""
    from a2a_lab.protocol import cards  # local: cards is only needed here

    doc: Any = card.object
    if doc is None and card.raw is not None:
        import json

        try:
            doc = json.loads(card.raw.decode("utf-8", "replace"))
        except ValueError:
            doc = None
    grouped: dict[tuple[str, Binding], list[Version]] = {}
    for iface in cards.interfaces(doc):
        prefix = next((p for p in (BASE_URL, ALT_BASE_URL) if iface.url.startswith(p)), None)
        if prefix is None or iface.core_binding not in (Binding.JSONRPC, Binding.HTTP_JSON):
            continue
        version = iface.known_version
        if version is None:
            continue
        path = iface.url[len(prefix) :] or "/"
        listed = grouped.setdefault((path, iface.core_binding), [])  # type: ignore[arg-type]
        if version not in listed:
            listed.append(version)
    return tuple(Endpoint(p, b, tuple(v)) for (p, b), v in grouped.items())


def _endpoints(r: _Reader, value: Any) -> tuple[Endpoint, ...]:
    if not isinstance(value, list):
        raise r.fail("endpoints", "expected a list", 'e.g. [{path: /a2a, binding: JSONRPC, versions: ["1.0", "0.3"]}]')
    out = []
    for i, item in enumerate(value):
        e = r.mapping(item, f"endpoints[{i}]", {"path", "binding", "versions"})
        path = r.string(e.get("path"), f"endpoints[{i}].path")
        if not path.startswith("/"):
            raise r.fail(f"endpoints[{i}].path", "must start with /")
        vs = e.get("versions")
        if not isinstance(vs, list) or not vs:
            raise r.fail(f"endpoints[{i}].versions", "expected a non-empty list", 'e.g. ["1.0", "0.3"]')
        out.append(
            Endpoint(
                path.rstrip("/") or "/",
                r.binding(e.get("binding"), f"endpoints[{i}].binding"),
                tuple(r.version(v, f"endpoints[{i}].versions") for v in vs),
            )
        )
    return tuple(out)


DEFAULT_TASK = TaskScript(
    steps=(Step(TaskState.SUBMITTED), Step(TaskState.WORKING), Step(TaskState.COMPLETED)),
    artifacts=({"artifactId": "artifact-1", "name": "result", "parts": [{"text": "echo: {text}"}]},),
)


def _action(r: _Reader, value: Any, card: CardSpec) -> dict[str, Any]:
    a = dict(r.mapping(value, "client.action", set(ACTIONS)))
    for key, kind in ACTIONS.items():
        if key in a and not isinstance(a[key], kind):
            raise r.fail(
                f"client.action.{key}", f"expected {'text' if kind is str else 'true or false'}, got {a[key]!r}"
            )
    if a.get("verify_signature"):
        if card.sign is None:
            raise r.fail(
                "client.action.verify_signature", "the card is not signed", "add card.sign, or drop verify_signature"
            )
        from a2a_lab.protocol import signing

        a["jwks"] = signing.public_jwks([{**card.sign.key, "kid": card.sign.kid}])
    return a


def _expect(r: _Reader, value: Any) -> Expect:
    e = r.mapping(value, "expect", {"result", "state", "text_contains"})
    result = e.get("result")
    listed = [] if result is None else result if isinstance(result, list) else [result]
    if isinstance(result, list) and not result:
        raise r.fail(
            "expect.result",
            "expected a result or a non-empty list of acceptable results",
            "e.g. error, or [none, task]",
        )
    for i, item in enumerate(listed):
        if item not in EXPECT_RESULTS:
            where = f"expect.result[{i}]" if isinstance(result, list) else "expect.result"
            raise r.fail(where, f"unknown value {item!r}", "one of " + ", ".join(EXPECT_RESULTS))
    return Expect(
        tuple(dict.fromkeys(listed)),
        r.state(e["state"], "expect.state") if "state" in e else None,
        r.string(e["text_contains"], "expect.text_contains") if "text_contains" in e else None,
    )


def parse(data: Any, scenario_id: str, source: str) -> Scenario:
    """Validate decoded YAML and build the Scenario, or raise ScenarioError."""
    r = _Reader(source)
    top = r.mapping(data, "", _TOP_KEYS)
    for required in ("title", "description", "card"):
        if required not in top:
            raise r.fail(
                required,
                "required field is missing",
                "every scenario has a title, a description a client author understands, and a card",
            )
    if not ("spec" in top or "observed" in top or "recorded" in top):
        raise r.fail(
            "spec",
            "a scenario cites what it stands on",
            "add `spec:` (section and keyword) or `observed:` (where and when the quirk was seen)",
        )
    card = _card(r, top["card"])
    task = _task_script(r, top["task"], "task", DEFAULT_TASK) if "task" in top else DEFAULT_TASK
    rules: dict[Operation, tuple[Rule, ...]] = {}
    behaviour = r.mapping(top.get("behaviour", {}), "behaviour")
    for key, items in behaviour.items():
        try:
            op = Operation(key)
        except ValueError:
            near = difflib.get_close_matches(str(key), [o.value for o in Operation], n=1)
            raise r.fail(
                f"behaviour.{key}",
                "unknown operation",
                f"did you mean {near[0]!r}?" if near else "one of " + ", ".join(o.value for o in Operation),
            ) from None
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list) or not items:
            raise r.fail(
                f"behaviour.{key}",
                "expected a list of rules",
                "e.g. [{when: {call: 1}, reply: {error: InternalError}}, {reply: {message: hi}}]",
            )
        parsed = []
        for i, item in enumerate(items):
            it = r.mapping(item, f"behaviour.{key}[{i}]", {"when", "reply"})
            if "reply" not in it:
                raise r.fail(f"behaviour.{key}[{i}].reply", "required: what to answer")
            parsed.append(
                Rule(
                    _when(r, it.get("when", {}), f"behaviour.{key}[{i}].when"),
                    _reply(r, it["reply"], f"behaviour.{key}[{i}].reply", task),
                )
            )
        rules[op] = tuple(parsed)
    endpoints = _endpoints(r, top["endpoints"]) if "endpoints" in top else _derive_endpoints(r, card)
    if not endpoints:
        # A scenario whose card declares nothing reachable still answers somewhere, so clients meet a server.
        endpoints = ()
    client = r.mapping(top.get("client", {}), "client", {"message", "action"})
    action = _action(r, client.get("action", {}), card)
    leniency = r.mapping(top.get("leniency", {}), "leniency", {"missing_kind"})
    auth = None
    if "auth" in top:
        a = r.mapping(top["auth"], "auth", {"bearer", "scope"})
        auth = Auth(r.string(a.get("bearer"), "auth.bearer"), a.get("scope", "all"))
        if auth.scope not in ("all", "extended_card"):
            raise r.fail("auth.scope", f"unknown value {auth.scope!r}", "all or extended_card")
    push = r.mapping(top.get("push", {}), "push", {"allow", "probe_bad_credentials"})
    limits_in = r.mapping(
        top.get("limits", {}),
        "limits",
        {"body_bytes", "body_seconds", "json_depth", "journal_entries", "streams", "push_deliveries_per_task", "tasks"},
    )
    limits = Limits(
        **{
            k: r.number(v, f"limits.{k}") if k == "body_seconds" else r.integer(v, f"limits.{k}", 1)
            for k, v in limits_in.items()
        }
    )
    checks = top.get("checks", [])
    if not isinstance(checks, list) or not all(isinstance(c, str) for c in checks):
        raise r.fail("checks", "expected a list of check ids")
    observed = top.get("observed")
    if observed is not None:
        observed = r.mapping(observed, "observed")
    return Scenario(
        id=scenario_id,
        title=r.string(top["title"], "title"),
        description=r.string(top["description"], "description").strip(),
        source=source,
        spec=r.string(top["spec"], "spec") if "spec" in top else None,
        observed=observed,
        seed=r.integer(top.get("seed", 0), "seed"),
        timeout=r.number(top.get("timeout", DEFAULT_TIMEOUT), "timeout"),
        client=ClientAsk(r.string(client.get("message", DEFAULT_MESSAGE), "client.message"), action),
        card=card,
        extended_card=r.mapping(top["extended_card"], "extended_card") if "extended_card" in top else None,
        endpoints=endpoints,
        task=task,
        rules=rules,
        lenient_kind=r.boolean(leniency.get("missing_kind", False), "leniency.missing_kind"),
        auth=auth,
        push_allow=tuple(str(x) for x in push.get("allow", [])),
        push_probe=r.boolean(push.get("probe_bad_credentials", False), "push.probe_bad_credentials"),
        limits=limits,
        checks=tuple(checks),
        data=top,
        expect=_expect(r, top.get("expect", {})),
    )


def load_file(path: Path, scenario_id: str | None = None) -> Scenario:
    """Load one scenario file; its id defaults to the file name without extension."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(source, "", f"cannot read the file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError(source, "", "the file is not UTF-8 text") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ScenarioError(
            source,
            where,
            f"not valid YAML: {getattr(exc, 'problem', None) or exc}",
            "check indentation and quoting around that line",
        ) from None
    return parse(data, scenario_id or path.stem, source)
