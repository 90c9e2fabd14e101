"""A scenario run's journal read back as A2A calls, with the card's interfaces resolved against it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.contract.journal_record import Entry, EntryKind, ResultKind, SentKind
from a2a_lab.contract.placeholders import alt_origin
from a2a_lab.contract.scenario import Expect
from a2a_lab.harness.client_judging.crashes import crash_of, how_it_ended
from a2a_lab.protocol import cards, grpcwire, jsonrpc, operations, revisions, states, versions, wire
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.forms import JSONRPC_FORMS, Form, push_form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version


@dataclass
class Call:
    """One A2A request (JSON-RPC or HTTP+JSON) as the server journaled it."""

    entry: Entry

    @property
    def seq(self) -> int:
        return self.entry.seq

    @property
    def t(self) -> float:
        return self.entry.t

    @property
    def operation(self) -> Operation | None:
        return self.entry.operation

    @property
    def version(self) -> Version | None:
        return self.entry.version

    @property
    def binding(self) -> Binding | None:
        return self.entry.endpoint.binding if self.entry.endpoint else None

    @property
    def endpoint_path(self) -> str | None:
        return self.entry.endpoint.path if self.entry.endpoint else None

    @property
    def form(self) -> Form | None:
        """The wire form of the call's answer (its version in its endpoint's binding), once the version is known."""
        if self.entry.version is None:
            return None
        return Form(self.entry.version, self.binding or Binding.JSONRPC)

    @property
    def headers(self) -> dict[str, str]:
        return self.entry.headers

    @property
    def body_text(self) -> str:
        return self.entry.body_text

    def body_json(self) -> Any:
        try:
            return json.loads(self.body_text)
        except ValueError:
            return None

    @property
    def rpc_method(self) -> str | None:
        rpc = self.entry.rpc
        return rpc.method if rpc else None

    @property
    def result_kind(self) -> ResultKind | None:
        return self.entry.result_kind

    @property
    def error_code(self) -> int | None:
        answer = self.entry.answer
        return answer.code if answer is not None and answer.kind is ResultKind.ERROR else None

    def params(self) -> Any:
        """The request's params (JSON-RPC) or body (HTTP+JSON)."""
        body = self.body_json()
        if self.entry.kind is EntryKind.JSONRPC:
            return body.get("params") if isinstance(body, dict) else None
        return body

    def message(self) -> Any:
        p = self.params()
        if not isinstance(p, dict):
            return None
        if self.binding is Binding.HTTP_JSON and self.version is Version.V0_3 and "message" not in p:
            return p.get("request")
        return p.get("message")

    @property
    def answer_failed(self) -> bool:
        """The server answered this call with an error, or with an answer it never delivered."""
        if self.result_kind is ResultKind.ERROR:
            return True
        response = self.entry.response
        return response is not None and response.fault_outcome in _UNDELIVERED

    def label(self) -> str:
        what = self.rpc_method or f"{self.entry.method} {self.entry.path}"
        return f"#{self.seq} {what}"

    def quote(self, limit: int = 600) -> str:
        head = f"{self.entry.method} {self.entry.path}"
        version = self.headers.get(versions.HEADER.lower())
        lines = (
            [head]
            + ([f"{versions.HEADER}: {version}"] if version is not None else [])
            + [f"Content-Type: {self.headers.get('content-type', '(none)')}"]
        )
        body = self.body_text
        if body:
            lines.append(body if len(body) <= limit else body[:limit] + f"... ({len(body)} bytes)")
        return "\n".join(lines)

    def responses(self) -> list[Any]:
        """The decoded answer bodies (one, or one per SSE event the client could read: not one the stream ended
        inside, which no SSE client dispatches)."""
        out: list[Any] = []
        if self.entry.events is not None:
            return [ev.data for ev in self.entry.events if ev.kind is SentKind.DATA and not ev.unterminated]
        body = self.entry.response.body if self.entry.response is not None else None
        if body is not None and body.text:
            try:
                out.append(json.loads(body.text))
            except ValueError:
                pass
        return out


@dataclass
class Observed:
    """What the server told the client about a task or message, in canonical terms."""

    kind: ResultKind  # MESSAGE or TASK
    state: TaskState | None = None
    task_id: str | None = None
    text: str = ""
    seq: int = 0
    context_id: str | None = None
    #: The task's generation the answer carried (spec 1.1 §3.2.7); 0 when it carried none.
    generation: int = 0


def _texts(parts: Any) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]


#: Fault outcomes after which the client never received the journaled answer.
_UNDELIVERED = frozenset({"stalled", "reset", "truncated"})
#: Answers that carry a message or a task (or were meant to: a raw page in their place).
_ANSWERS = frozenset({ResultKind.TASK, ResultKind.MESSAGE, ResultKind.RAW})


def _endpoint_path(path: str, binding: Binding | None) -> str:
    """An interface URL's path as the server keys its endpoint: a JSON-RPC URL is a complete endpoint, its trailing
    slash included (RFC 3986 §6.2.3 keeps `/a` and `/a/` apart); an HTTP+JSON URL is a base the routes go under."""
    return (path if binding is Binding.JSONRPC else path.rstrip("/")) or "/"


def _same_path(declared: str, requested: str, binding: Binding | None) -> bool:
    """A request went to this interface's path (for a custom binding, a trailing slash is not told apart)."""
    if binding is Binding.JSONRPC:
        return _endpoint_path(declared, binding) == (requested or "/")
    return (declared.rstrip("/") or "/") == (requested.rstrip("/") or "/")


def route_tenant(iface: Interface, call: Call) -> str | None:
    """The tenant an HTTP+JSON request named, read against the interface's declared url: the first path segment after
    it where the rest is one of the binding's routes under a tenant (`/{tenant}/message:send`, §11.3), else None.
    Where the server answered is not asked: a path segment is a tenant only as the card's url reads it."""
    base = urlsplit(iface.url).path.rstrip("/")
    if not call.entry.path.startswith(base + "/"):
        return None
    version = iface.known_version
    found = operations.match_route(
        call.entry.method, call.entry.path[len(base) :], (version,) if version else tuple(Version)
    )
    return found[3] if found is not None else None


def _hit(iface: Interface, call: Call) -> bool:
    """A request went to this interface as declared: its url (host and path), or for HTTP+JSON its url plus one of the
    binding's routes in the interface's version (§11.3), with the tenant the interface declares or none (§8.3.2 rule
    4). Read from the card alone: where the server answers does not decide which interface a request meant."""
    declared = urlsplit(iface.url)
    if declared.netloc != call.headers.get("host"):
        return False
    if _same_path(declared.path, call.entry.path, iface.core_binding):
        return True
    base = declared.path.rstrip("/")
    if iface.core_binding is not Binding.HTTP_JSON or not call.entry.path.startswith(base + "/"):
        return False
    version = iface.known_version
    tenants = frozenset({iface.tenant}) if iface.tenant else frozenset()
    route = operations.match_route(
        call.entry.method, call.entry.path[len(base) :], (version,) if version else tuple(Version), tenants
    )
    return route is not None


def observe(call: Call, invalid_too: bool = False) -> list[Observed]:
    """Every message or task state the server sent in answer to a call, in order. An answer the client could not
    take as one (not delivered, or not a valid JSON-RPC response to its request) tells it nothing; a JSON-RPC result
    in the other version's form (a 0.3 task under SendMessage) still tells it what it says, as a lenient reader
    takes it."""
    form = call.form
    if form is None or call.answer_failed:
        return []
    rpc = call.entry.kind is EntryKind.JSONRPC
    request_id = call.entry.rpc.id if call.entry.rpc else None
    out: list[Observed] = []
    for body in call.responses():
        if rpc and not invalid_too and jsonrpc.rpc_response_problem(body, request_id) is not None:
            continue
        if rpc and not isinstance(body, dict):
            continue
        value = body.get("result") if rpc else body
        said = wire.result_in(call.operation, value, form)
        if said is None and rpc:
            others = (wire.result_in(call.operation, value, f) for f in JSONRPC_FORMS if f != form)
            said = next((s for s in others if s is not None), None)
        if said is not None:
            out.append(_observed(said, call.seq))
    return out


def _status_texts(status: Any) -> list[str]:
    msg = status.get("message") if isinstance(status, dict) else None
    return _texts(msg.get("parts")) if isinstance(msg, dict) else []


def _observed(event: dict[str, Any], seq: int) -> Observed:
    """What one canonical StreamResponse (forms.result_in) told the client."""
    said = _observed_body(event, seq)
    ((_, inner),) = event.items()
    said.generation = revisions.read_generation(inner.get(revisions.GENERATION))
    return said


def _observed_body(event: dict[str, Any], seq: int) -> Observed:
    ((kind, inner),) = event.items()
    status = inner.get("status") or {}
    if kind == "message":
        return Observed(
            ResultKind.MESSAGE, text=" ".join(_texts(inner.get("parts"))), seq=seq, context_id=inner.get("contextId")
        )
    if kind == "task":
        texts = [t for a in inner.get("artifacts") or [] if isinstance(a, dict) for t in _texts(a.get("parts"))]
        return Observed(
            ResultKind.TASK,
            states.parse(status.get("state")) if isinstance(status, dict) else None,
            inner.get("id"),
            " ".join(texts + _status_texts(status)),
            seq,
            inner.get("contextId"),
        )
    if kind == "statusUpdate":
        state = states.parse(status.get("state")) if isinstance(status, dict) else None
        said = " ".join(_status_texts(status))
        return Observed(ResultKind.TASK, state, inner.get("taskId"), said, seq, inner.get("contextId"))
    art = inner.get("artifact") or {}
    return Observed(ResultKind.TASK, None, inner.get("taskId"), " ".join(_texts(art.get("parts"))), seq)


def observe_push(entry: Entry) -> list[Observed]:
    """What a genuine push notification the client's webhook acknowledged (2xx) told it (§4.3.3): a 1.0
    StreamResponse in HTTP+JSON form, or the 0.3 Task (`kind: task`), read as one event of a stream in that form.
    A probe, a redelivery (it tells nothing the first delivery did not) and a notification about a task the client
    never started (a receiver may acknowledge it and drop it) tell the client nothing."""
    status = entry.response.status if entry.response is not None else None
    push = entry.push
    if (push is not None and (push.probe or push.redelivery or push.foreign)) or not isinstance(status, int):
        return []
    if not 200 <= status < 300:
        return []
    try:
        body = json.loads(entry.body_text)
    except ValueError:
        return []
    if not isinstance(body, dict):
        return []
    form = push_form(Version.V0_3 if "kind" in body else Version.V1_0)
    said = wire.event_in(body, form)
    return [_observed(said, entry.seq)] if said is not None else []


def _current(observed: list[Observed]) -> list[Observed]:
    """Without the stale: a task state reported after the task was seen terminal (deliveries that overtook each
    other; the proto names COMPLETED, FAILED, CANCELED and REJECTED terminal, §4.1.3). Only push notifications
    arrive out of order."""
    ended: set[str | None] = set()
    out = []
    for o in observed:
        if o.state is not None and o.task_id in ended and not o.state.terminal:
            continue
        if o.state is not None and o.state.terminal:
            ended.add(o.task_id)
        out.append(o)
    return out


@dataclass
class RunView:
    """Everything the checks read about one scenario run."""

    base_url: str
    card: Any
    entries: list[Entry]
    supports: set[tuple[Binding, Version]]
    client_result: dict[str, Any] | None = None
    client_exit: int | None = None
    action: dict[str, Any] = field(default_factory=dict)
    #: Why a result file the client did write could not be read (not JSON, not an object, too large).
    client_result_error: str | None = None
    #: What a correct client concludes in this scenario.
    expect: Expect = field(default_factory=Expect)
    #: The client was still running when the scenario's time ran out (a2a-lab stopped it).
    client_timed_out: bool = False
    #: The end of what the client wrote on stderr (a stack trace shows there).
    client_stderr: str = ""
    #: The ends of what the client wrote on stdout (what it told its user: evidence of what it took for an answer).
    client_stdout: str = ""
    #: The same server on another origin, as the card's `{alt_base_url}` named it (None: the loopback alias of
    #: base_url; a shared server started with --other-origin names another).
    alt_base_url: str | None = None

    def __post_init__(self) -> None:
        self._observed: list[Observed] | None = None
        self._other: list[Interface] | None = None
        self.card_fetches = [e for e in self.entries if e.kind is EntryKind.CARD]
        #: A card fetch was answered with a card (2xx, or 304 for one the client had): a card the client could read.
        self.card_served = any(
            e.response is not None
            and e.response.status is not None
            and (200 <= e.response.status < 300 or e.response.status == 304)
            for e in self.card_fetches
        )
        self.pushes = [e for e in self.entries if e.kind is EntryKind.PUSH]
        self.calls = [Call(e) for e in self.entries if e.kind.is_call]
        self.a2a_calls = [c for c in self.calls if c.operation is not None]
        #: The addresses (`host:port`) the run's gRPC calls reached: this server's, as a gRPC interface url names it.
        self.grpc_addresses = {c.entry.url for c in self.calls if c.entry.kind is EntryKind.GRPC and c.entry.url}
        #: The card generation this client reads (what it speaks, declared or seen in the run), and the card as it
        #: reads it: every check that assumes a card field reads these, never the raw card's other generation.
        self.generation: Version = cards.generation(self.supports)
        self.interfaces: list[Interface] = cards.interfaces(self.card, self.generation)
        #: Why this client finds no interface on the card (None when it finds one): its refusal is then correct.
        self.card_gap: str | None = cards.gap(self.card, self.generation)
        #: A server served over https also listens in plain http (`{http_base_url}`): the origins calls reached it at.
        self.plain_origins = sorted(
            {
                f"http://{c.headers['host']}"
                for c in self.calls
                if self.base_url.startswith("https:") and c.entry.tls is None and c.headers.get("host")
            }
        )

    def crash(self) -> str | None:
        """How the client crashed (a signal, a stack trace), or None; a client a2a-lab stopped did not crash."""
        return None if self.client_timed_out else crash_of(self.client_exit, self.client_stderr)

    def ending(self) -> str:
        """How the client ended, as a message's tail (its crash, or its exit code and the ends of its stderr)."""
        if self.client_timed_out:
            return "; it was still running when the scenario's time ran out"
        return how_it_ended(self.client_exit, self.client_stderr)

    def interface_path(self, iface: Interface) -> str | None:
        """The interface's path on this server (under its origin or its alias), or None when it points elsewhere.
        A gRPC interface is this server's when its address is the one the run's gRPC calls reached."""
        if iface.core_binding is Binding.GRPC:
            address = grpcwire.address_of(iface.url)
            return grpcwire.ENDPOINT_PATH if address is not None and address in self.grpc_addresses else None
        for origin in (self.base_url, self.alt_base_url or alt_origin(self.base_url), *self.plain_origins):
            if origin and iface.url.startswith(origin):
                return _endpoint_path(iface.url[len(origin) :], iface.core_binding)
        return None

    def declared_at(self, call: Call) -> list[Interface]:
        """The card's interfaces whose URL is exactly where a request went (host and path), whatever their binding:
        a request the server could not route may still have gone to a URL the card declares (a custom binding)."""
        if call.entry.kind is EntryKind.GRPC:
            return [i for i in self.interfaces if call.entry.url and grpcwire.address_of(i.url) == call.entry.url]
        return [i for i in self.interfaces if _hit(i, call)]

    def declared(self, call: Call) -> list[Interface]:
        """The card's interfaces that a call's URL and binding match: where the server answered it, else (a card whose
        url the server's endpoints do not mirror, such as an HTTP+JSON url naming a method path) the interface whose
        declared url plus one of the binding's routes the request hit (`_hit`)."""
        served = [
            i
            for i in self.interfaces
            if self.interface_path(i) == call.endpoint_path and i.core_binding is call.binding
        ]
        return served or [i for i in self.interfaces if i.core_binding is call.binding and _hit(i, call)]

    def other_reading(self) -> list[Interface]:
        """The card as the other generation reads it."""
        if self._other is None:
            other = Version.V0_3 if self.generation is Version.V1_0 else Version.V1_0
            self._other = cards.interfaces(self.card, other)
        return self._other

    def declared_any(self, call: Call) -> list[Interface]:
        """The card's interfaces a call's URL and binding match, read by the generation of the interface the call
        went to: the client's own reading first, else the other generation's. What a call's method says of the client
        does not decide which part of the card its URL came from (a 0.3 method posted to a 1.0 interface's URL came
        from `supportedInterfaces`)."""
        own = self.declared(call)
        if own:
            return own
        return [
            i
            for i in self.other_reading()
            if self.interface_path(i) == call.endpoint_path and i.core_binding is call.binding
        ]

    def declared_at_any(self, call: Call) -> list[Interface]:
        """`declared_at` in the reading of the generation whose interface is at the call's URL (see declared_any)."""
        own = self.declared_at(call)
        if own or call.entry.kind is EntryKind.GRPC:
            return own
        return [i for i in self.other_reading() if _hit(i, call)]

    def expected_interface(self) -> Interface | None:
        return cards.select(self.interfaces, self.supports)

    def capability(self, name: str) -> bool:
        """A capability flag as this client's generation reads the card."""
        return cards.capability(self.card, name, self.generation)

    def observations(self) -> list[Observed]:
        """What the server told the client, in journal order: answers to its calls and the push notifications its
        webhook acknowledged. Decoded once per run; every check reads the same list (a copy, so none can change it)."""
        if self._observed is None:
            obs = [o for c in self.a2a_calls for o in observe(c)]
            pushed = [o for e in self.pushes for o in observe_push(e)]
            self._observed = _current(sorted(obs + pushed, key=lambda o: o.seq)) if pushed else obs
        return list(self._observed)

    def ended_in_error(self) -> Call | None:
        """The last A2A call, when it gave the client no message or task: an error, a raw page, an invalid or
        undelivered answer. A client that reports an error after it has seen the exchange end this way is right."""
        if not self.a2a_calls:
            return None
        last = self.a2a_calls[-1]
        if last.answer_failed or (last.result_kind in _ANSWERS and not observe(last)):
            return last
        events = last.entry.events or []
        if events and events[-1].kind in (SentKind.ERROR, SentKind.DROPPED):
            return last  # a stream that ended in an error event, or broke
        return None

    def unreadable_answer(self) -> Call | None:
        """The last A2A call, when the server answered it (2xx, no error, delivered, not a stream) with a JSON object
        (JSON-RPC: a result object) that is no message or task in its form: a raw or edited answer (a Task wrapped one
        level too deep, a 0.3 result under a 1.0 method). A lenient client may read more of it than the lab can."""
        if not self.a2a_calls:
            return None
        last = self.a2a_calls[-1]
        response = last.entry.response
        if last.answer_failed or last.result_kind not in _ANSWERS or last.entry.events is not None:
            return None  # an error, an undelivered answer, or a stream (read event by event, by the stream checks)
        if response is None or response.status is None or not 200 <= response.status < 300 or response.stream:
            return None
        bodies = last.responses()
        if len(bodies) != 1 or not isinstance(bodies[0], dict):
            return None
        if last.entry.kind is EntryKind.JSONRPC and not isinstance(bodies[0].get("result"), dict):
            return None  # not an answer with a result object (an envelope the envelope checks judge)
        # a body read as a task without an id or a state (GetTask's result is taken as a task whatever it holds)
        read = [o for o in observe(last, invalid_too=True) if o.kind is ResultKind.MESSAGE or o.state or o.task_id]
        return None if read else last

    def final_answer(self) -> Observed | None:
        """The last message, or the latest state of the last task, that the server sent."""
        obs = self.observations()
        if not obs:
            return None
        last = obs[-1]
        if last.kind is ResultKind.MESSAGE:
            return last
        task_id = next((o.task_id for o in reversed(obs) if o.task_id), None)
        of_task = [o for o in obs if o.kind is ResultKind.TASK and (o.task_id == task_id or o.task_id is None)]
        state = next((o.state for o in reversed(of_task) if o.state is not None), None)
        text = " ".join(o.text for o in of_task if o.text)
        return Observed(ResultKind.TASK, state, task_id, text, of_task[-1].seq if of_task else last.seq)
