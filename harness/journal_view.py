"""A scenario run's journal read back as A2A calls, with the card's interfaces resolved against it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.protocol import cards, shapes, states
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version
from a2a_lab.server.placeholders import alt_origin
from a2a_lab.server.scenario import Expect


@dataclass
class Call:
    """One A2A request (JSON-RPC or HTTP+JSON) as the server journaled it."""

    entry: dict[str, Any]

    @property
    def seq(self) -> int:
        return int(self.entry["seq"])

    @property
    def t(self) -> float:
        return float(self.entry.get("t", 0.0))

    @property
    def operation(self) -> Operation | None:
        op = self.entry.get("operation")
        return Operation(op) if op else None

    @property
    def version(self) -> Version | None:
        v = self.entry.get("version")
        return Version(v) if v else None

    @property
    def binding(self) -> Binding | None:
        ep = self.entry.get("endpoint")
        return Binding(ep["binding"]) if ep else None

    @property
    def endpoint_path(self) -> str | None:
        ep = self.entry.get("endpoint")
        return ep["path"] if ep else None

    @property
    def headers(self) -> dict[str, str]:
        return self.entry.get("headers", {})

    @property
    def body_text(self) -> str:
        return self.entry.get("body", {}).get("text", "")

    def body_json(self) -> Any:
        try:
            return json.loads(self.body_text)
        except ValueError:
            return None

    @property
    def rpc_method(self) -> str | None:
        rpc = self.entry.get("rpc")
        return rpc.get("method") if rpc else None

    @property
    def answer(self) -> dict[str, Any]:
        return self.entry.get("answer", {})

    @property
    def error_code(self) -> int | None:
        return self.answer.get("code") if self.answer.get("result_kind") == "error" else None

    def params(self) -> Any:
        """The request's params (JSON-RPC) or body (HTTP+JSON)."""
        body = self.body_json()
        if self.entry.get("kind") == "jsonrpc":
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
        if self.answer.get("result_kind") == "error":
            return True
        return (self.entry.get("response") or {}).get("fault_outcome") in _UNDELIVERED

    def label(self) -> str:
        what = self.rpc_method or f"{self.entry.get('method')} {self.entry.get('path')}"
        return f"#{self.seq} {what}"

    def quote(self, limit: int = 600) -> str:
        head = f"{self.entry.get('method')} {self.entry.get('path')}"
        version = self.headers.get("a2a-version")
        lines = (
            [head]
            + ([f"A2A-Version: {version}"] if version is not None else [])
            + [f"Content-Type: {self.headers.get('content-type', '(none)')}"]
        )
        body = self.body_text
        if body:
            lines.append(body if len(body) <= limit else body[:limit] + f"... ({len(body)} bytes)")
        return "\n".join(lines)

    def responses(self) -> list[Any]:
        """The decoded answer bodies (one, or one per SSE event)."""
        out: list[Any] = []
        if self.entry.get("events") is not None:
            for ev in self.entry["events"]:
                if "data" in ev:
                    out.append(ev["data"])
            return out
        text = self.entry.get("response", {}).get("body", {}).get("text")
        if text:
            try:
                out.append(json.loads(text))
            except ValueError:
                pass
        return out


@dataclass
class Observed:
    """What the server told the client about a task or message, in canonical terms."""

    kind: str  # message | task
    state: TaskState | None = None
    task_id: str | None = None
    text: str = ""
    seq: int = 0
    context_id: str | None = None


def _texts(parts: Any) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]


#: Fault outcomes after which the client never received the journaled answer.
_UNDELIVERED = frozenset({"stalled", "reset", "truncated"})


def valid_rpc_response(body: Any, request_id: Any) -> bool:
    """A JSON-RPC 2.0 response to this request: "jsonrpc": "2.0", the request's id, exactly one of result and error."""
    return (
        isinstance(body, dict)
        and body.get("jsonrpc") == "2.0"
        and ("result" in body) != ("error" in body)
        and "id" in body
        and body["id"] == request_id
        and type(body["id"]) is type(request_id)
    )


def observe(call: Call) -> list[Observed]:
    """Every message or task state the server sent in answer to a call, in order. An answer the client could not
    take as one (not delivered, or not a valid JSON-RPC response to its request) tells it nothing."""
    out: list[Observed] = []
    version, rest = call.version, call.binding is Binding.HTTP_JSON
    if version is None or call.answer_failed:
        return out
    rpc = call.entry.get("kind") == "jsonrpc"
    request_id = (call.entry.get("rpc") or {}).get("id")
    for body in call.responses():
        if rpc and not valid_rpc_response(body, request_id):
            continue
        value = body.get("result") if isinstance(body, dict) and rpc else body
        if not isinstance(value, dict):
            continue
        op = call.operation
        if op in (Operation.GET_TASK, Operation.CANCEL_TASK):
            value = {"task": value} if (version is Version.V1_0 or rest) else value
        if (
            version is Version.V0_3
            and not rest
            and "kind" not in value
            and op is not None
            and op in (Operation.GET_TASK, Operation.CANCEL_TASK)
        ):
            value = {**value, "kind": "task"}
        kind = shapes.stream_event_kind(value, version, rest)
        inner = value if (version is Version.V0_3 and not rest) else value.get(kind or "", {})
        if not isinstance(inner, dict):
            continue
        if kind == "message":
            out.append(
                Observed(
                    "message",
                    text=" ".join(
                        _texts(inner.get("content") if rest and version is Version.V0_3 else inner.get("parts"))
                    ),
                    seq=call.seq,
                    context_id=inner.get("contextId"),
                )
            )
        elif kind == "task":
            texts = [t for a in inner.get("artifacts") or [] if isinstance(a, dict) for t in _texts(a.get("parts"))]
            status = inner.get("status") or {}
            msg = status.get("message") if isinstance(status, dict) else None
            if isinstance(msg, dict):
                texts += _texts(msg.get("content") if rest and version is Version.V0_3 else msg.get("parts"))
            out.append(
                Observed(
                    "task",
                    states.parse(status.get("state")) if isinstance(status, dict) else None,
                    inner.get("id"),
                    " ".join(texts),
                    call.seq,
                    inner.get("contextId"),
                )
            )
        elif kind == "statusUpdate":
            status = inner.get("status") or {}
            msg = status.get("message") if isinstance(status, dict) else None
            said = (
                " ".join(_texts(msg.get("content") if rest and version is Version.V0_3 else msg.get("parts")))
                if isinstance(msg, dict)
                else ""
            )
            out.append(
                Observed(
                    "task",
                    states.parse(status.get("state")),
                    inner.get("taskId"),
                    said,
                    call.seq,
                    inner.get("contextId"),
                )
            )
        elif kind == "artifactUpdate":
            art = inner.get("artifact") or {}
            out.append(Observed("task", None, inner.get("taskId"), " ".join(_texts(art.get("parts"))), call.seq))
    return out


def observe_push(entry: dict[str, Any]) -> list[Observed]:
    """What a genuine push notification the client's webhook acknowledged (2xx) told it (§4.3.3): a 1.0
    StreamResponse in HTTP+JSON form, or the 0.3 Task (`kind: task`)."""
    push, status = entry.get("push") or {}, (entry.get("response") or {}).get("status")
    if push.get("probe") or not isinstance(status, int) or not 200 <= status < 300:
        return []
    try:
        body = json.loads((entry.get("body") or {}).get("text") or "")
    except ValueError:
        return []
    if not isinstance(body, dict):
        return []
    v03 = "kind" in body
    # Read as one event of a stream of that version and form (0.3: the JSON-RPC object shapes; 1.0: HTTP+JSON).
    as_event = {
        "seq": entry.get("seq", 0),
        "kind": "push",
        "operation": Operation.SUBSCRIBE_TO_TASK.value,
        "version": (Version.V0_3 if v03 else Version.V1_0).value,
        "endpoint": {"binding": (Binding.JSONRPC if v03 else Binding.HTTP_JSON).value, "path": ""},
        "events": [{"data": body}],
    }
    return observe(Call(as_event))


@dataclass
class RunView:
    """Everything the checks read about one scenario run."""

    base_url: str
    card: Any
    entries: list[dict[str, Any]]
    supports: set[tuple[Binding, Version]]
    client_result: dict[str, Any] | None = None
    client_exit: int | None = None
    action: dict[str, Any] = field(default_factory=dict)
    #: Why a result file the client did write could not be read (not JSON, not an object, too large).
    client_result_error: str | None = None
    #: What a correct client concludes in this scenario.
    expect: Expect = field(default_factory=Expect)

    def __post_init__(self) -> None:
        self._observed: list[Observed] | None = None
        self.card_fetches = [e for e in self.entries if e.get("kind") == "card"]
        self.calls = [Call(e) for e in self.entries if e.get("kind") in ("jsonrpc", "rest", "unmatched")]
        self.a2a_calls = [c for c in self.calls if c.operation is not None]
        self.interfaces: list[Interface] = cards.interfaces(self.card)

    def interface_path(self, iface: Interface) -> str | None:
        """The interface's path on this server (under its origin or its alias), or None when it points elsewhere."""
        for origin in (self.base_url, alt_origin(self.base_url)):
            if origin and iface.url.startswith(origin):
                return iface.url[len(origin) :].rstrip("/") or "/"
        return None

    def declared_at(self, call: Call) -> list[Interface]:
        """The card's interfaces whose URL is exactly where a request went (host and path), whatever their binding:
        a request the server could not route may still have gone to a URL the card declares (a custom binding)."""
        host = call.headers.get("host")
        path = str(call.entry.get("path", "")).rstrip("/") or "/"
        return [
            i
            for i in self.interfaces
            if urlsplit(i.url).netloc == host and (urlsplit(i.url).path.rstrip("/") or "/") == path
        ]

    def declared(self, call: Call) -> list[Interface]:
        """The card's interfaces that a call's URL and binding match."""
        return [
            i
            for i in self.interfaces
            if self.interface_path(i) == call.endpoint_path and i.core_binding is call.binding
        ]

    def expected_interface(self) -> Interface | None:
        return cards.select(self.interfaces, self.supports)

    def observations(self) -> list[Observed]:
        """What the server told the client, in journal order: answers to its calls and the push notifications its
        webhook acknowledged. Decoded once per run; every check reads the same list (a copy, so none can change it)."""
        if self._observed is None:
            obs = [o for c in self.a2a_calls for o in observe(c)]
            pushed = [o for e in self.entries if e.get("kind") == "push" for o in observe_push(e)]
            self._observed = sorted(obs + pushed, key=lambda o: o.seq) if pushed else obs
        return list(self._observed)

    def ended_in_error(self) -> Call | None:
        """The last A2A call, when it gave the client no message or task: an error, a raw page, an invalid or
        undelivered answer. A client that reports an error after it has seen the exchange end this way is right."""
        if not self.a2a_calls:
            return None
        last = self.a2a_calls[-1]
        if last.answer_failed or (last.answer.get("result_kind") in ("task", "message", "raw") and not observe(last)):
            return last
        events = last.entry.get("events") or []
        if events and ("error" in events[-1] or events[-1].get("dropped")):
            return last  # a stream that ended in an error event, or broke
        return None

    def final_answer(self) -> Observed | None:
        """The last message, or the latest state of the last task, that the server sent."""
        obs = self.observations()
        if not obs:
            return None
        last = obs[-1]
        if last.kind == "message":
            return last
        task_id = next((o.task_id for o in reversed(obs) if o.task_id), None)
        of_task = [o for o in obs if o.kind == "task" and (o.task_id == task_id or o.task_id is None)]
        state = next((o.state for o in reversed(of_task) if o.state is not None), None)
        text = " ".join(o.text for o in of_task if o.text)
        return Observed("task", state, task_id, text, of_task[-1].seq if of_task else last.seq)
