"""Persona fidelity: the same requests to a real server and to its persona, the answers compared.

A `Peer` is a base URL plus the bindings it serves (`(binding, version) -> path`). `request_set(peer)` builds every
request the peer's bindings call for: both card paths, every method of each version and binding, and bad inputs
(unknown method, bad JSON, wrong params, unknown fields, missing or odd A2A-Version, wrong content type). `exchange`
sends them in order (a request may use the task an earlier one created) and keeps each answer: status, the headers
that matter, the body. `compare` normalises what must differ (generated ids, timestamps' values) and returns a typed
list of `Difference`s; `unexplained` drops the ones an allow-list of named `Accepted` differences covers and reports
any allowance that no longer matches anything (an allow-list cannot go stale unnoticed).

Normalisation: a string of 16 characters or more under an id key (`id`, `contextId`, `taskId`, `messageId`,
`artifactId`) that this module did not send (its own ids start with `fid-`) becomes `<id PROBE#N>`: the N-th new id
of the answer to PROBE, where it first appeared (objects walked in sorted key order, so key order does not change
the numbering; an id that comes back later, as a created task does in GetTask, keeps its name). Every occurrence of
that string in the body text is replaced, so ids inside error messages are covered too; so is the peer's base URL.
A `timestamp` becomes `<ts>` plus its shape (`.f` when it has a fraction, then its zone: `Z` or `+00:00`), so `...Z`
and `...+00:00` still differ. Then two comparisons per body: `body` (the JSON values, order-insensitive) and `bytes`
(the normalised text byte for byte: key order, separators, SSE framing); `bytes` is reported only when `body`
agrees.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

JSONRPC, REST = "JSONRPC", "HTTP+JSON"
V10, V03 = "1.0", "0.3"
PREFIX = "fid-"
TEXT = "fidelity check"
ID_KEYS = frozenset({"id", "contextId", "taskId", "messageId", "artifactId"})
#: Shorter values under an id key are names someone chose (`"id": "echo"` of a skill), not generated ids.
GENERATED_MIN = 16
#: Headers whose value is compared; of the others (below the skipped ones) only presence is compared.
VALUE_HEADERS = frozenset(
    {"content-type", "cache-control", "location", "allow", "a2a-version", "www-authenticate", "retry-after", "vary"}
)
#: Headers of the transport or the clock, not of the server's behaviour.
SKIPPED_HEADERS = frozenset({"date", "server", "content-length", "transfer-encoding", "connection", "keep-alive"})
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?P<fraction>\.\d+)?(?P<zone>Z|[+-]\d\d:\d\d)?$")


@dataclass(frozen=True)
class Peer:
    """One server: its origin and where it serves each (binding, version)."""

    name: str
    base_url: str
    bindings: Mapping[tuple[str, str], str]

    def url(self, binding: str, version: str, tail: str = "") -> str:
        path = self.bindings[(binding, version)]
        return self.base_url + (path.rstrip("/") + tail if tail else path)


@dataclass(frozen=True)
class Probe:
    """One request. `path` is relative to the binding's path (or to the origin when `binding` is None); `{task}` in
    the path or body is the task an earlier `captures=True` probe created. `body` is JSON (a value) or exact text."""

    name: str
    http_method: str
    path: str
    binding: tuple[str, str] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    json_body: Any = None
    text_body: str | None = None
    captures: bool = False


@dataclass(frozen=True)
class Answer:
    probe: str
    status: int
    headers: Mapping[str, str]
    text: str
    broken: str | None = None  # the transport error that cut the answer short, if any


@dataclass(frozen=True)
class Difference:
    """`aspect`: `status`, `header <name>`, `body`, `bytes`, `broken` (the answer cut short by a transport error),
    or `missing` (the persona's run has no answer of that name)."""

    probe: str
    aspect: str
    real: Any
    persona: Any

    def __str__(self) -> str:
        return f"{self.probe} [{self.aspect}]: real {self.real!r} | persona {self.persona!r}"


@dataclass(frozen=True)
class Accepted:
    """A named difference the persona keeps, and why: the probes (fnmatch patterns) and aspects (patterns) it covers.
    Every probe pattern must still cover a difference, or the allowance is stale."""

    name: str
    why: str
    probes: tuple[str, ...]
    aspects: tuple[str, ...] = ("*",)

    def covering(self, difference: Difference) -> str | None:
        """The probe pattern that covers the difference, if any."""
        if not any(fnmatch.fnmatchcase(difference.aspect, a) for a in self.aspects):
            return None
        return next((p for p in self.probes if fnmatch.fnmatchcase(difference.probe, p)), None)


# --------------------------------------------------------------------------- the request set


def _message(version: str, tag: str, **extra: Any) -> dict[str, Any]:
    if version == V10:
        return {"messageId": f"{PREFIX}{tag}", "role": "ROLE_USER", "parts": [{"text": TEXT}], **extra}
    return {"kind": "message", "messageId": f"{PREFIX}{tag}", "role": "user", "parts": [{"kind": "text", "text": TEXT}]}


def _send_params(version: str, tag: str) -> dict[str, Any]:
    if version == V10:
        return {"message": _message(V10, tag), "configuration": {}}
    return {"message": _message(V03, tag), "configuration": {"acceptedOutputModes": [], "blocking": True}}


_METHODS = {
    V10: {
        "send": "SendMessage",
        "stream": "SendStreamingMessage",
        "get": "GetTask",
        "list": "ListTasks",
        "cancel": "CancelTask",
        "subscribe": "SubscribeToTask",
        "push_set": "CreateTaskPushNotificationConfig",
        "push_get": "GetTaskPushNotificationConfig",
        "push_list": "ListTaskPushNotificationConfigs",
        "push_delete": "DeleteTaskPushNotificationConfig",
        "extended_card": "GetExtendedAgentCard",
    },
    V03: {
        "send": "message/send",
        "stream": "message/stream",
        "get": "tasks/get",
        "cancel": "tasks/cancel",
        "subscribe": "tasks/resubscribe",
        "push_set": "tasks/pushNotificationConfig/set",
        "push_get": "tasks/pushNotificationConfig/get",
        "push_list": "tasks/pushNotificationConfig/list",
        "push_delete": "tasks/pushNotificationConfig/delete",
        "extended_card": "agent/getAuthenticatedExtendedCard",
    },
}

_PUSH_URL = "http://127.0.0.1:9/fidelity-webhook"


def _jsonrpc_probes(version: str) -> list[Probe]:
    key = (JSONRPC, version)
    hdr = {"A2A-Version": version} if version == V10 else {}
    m = _METHODS[version]
    label = f"jsonrpc{version}"

    def call(name: str, method: str, params: Any, headers: Mapping[str, str] | None = None, **kw: Any) -> Probe:
        body = {"jsonrpc": "2.0", "id": f"{PREFIX}{name}", "method": method, "params": params}
        return Probe(f"{label} {name}", "POST", "", key, {**hdr, **(headers or {})}, body, **kw)

    push = (
        {"taskId": "{task}", "id": f"{PREFIX}push", "url": _PUSH_URL}
        if version == V10
        else {"taskId": "{task}", "pushNotificationConfig": {"id": f"{PREFIX}push", "url": _PUSH_URL}}
    )
    push_ref = {"taskId": "{task}", "id": f"{PREFIX}push"}
    if version == V03:
        push_ref = {"id": "{task}", "pushNotificationConfigId": f"{PREFIX}push"}
    probes = [
        call("send", m["send"], _send_params(version, f"send-{label}"), captures=True),
        call("stream", m["stream"], _send_params(version, f"stream-{label}"), {"Accept": "text/event-stream"}),
        call("get", m["get"], {"id": "{task}"}),
        call("get-history-1", m["get"], {"id": "{task}", "historyLength": 1}),
        call("get-unknown", m["get"], {"id": f"{PREFIX}no-such-task"}),
        call("cancel-terminal", m["cancel"], {"id": "{task}"}),
        call("cancel-unknown", m["cancel"], {"id": f"{PREFIX}no-such-task"}),
        call("subscribe-terminal", m["subscribe"], {"id": "{task}"}, {"Accept": "text/event-stream"}),
        call("push-set", m["push_set"], push),
        call("push-get", m["push_get"], push_ref),
        call("push-list", m["push_list"], {"id": "{task}"} if version == V03 else {"taskId": "{task}"}),
        call("push-delete", m["push_delete"], push_ref),
        call("extended-card", m["extended_card"], {}),
        call("method-not-found", "NoSuchMethod", {}),
        call("wrong-params", m["send"], {"message": "not a message"}),
        call("missing-params", m["send"], None),
        call(
            "unknown-fields",
            m["send"],
            {**_send_params(version, f"unknown-{label}"), "fidUnknown": {"x": 1}},
        ),
        Probe(f"{label} bad-json", "POST", "", key, hdr, text_body='{"jsonrpc": "2.0", "id": 1, "method": '),
        Probe(f"{label} not-an-object", "POST", "", key, hdr, text_body="[1, 2]"),
        Probe(
            f"{label} no-jsonrpc-member",
            "POST",
            "",
            key,
            hdr,
            {"id": f"{PREFIX}nojsonrpc", "method": m["get"], "params": {"id": "x"}},
        ),
        call("text-plain", m["get"], {"id": "{task}"}, {"Content-Type": "text/plain"}),
    ]
    if version == V10:
        probes += [
            call("list", m["list"], {}),
            call("send-no-version", m["send"], _send_params(V10, "noversion"), {"A2A-Version": ""}),
            call("send-version-1.1", m["send"], _send_params(V10, "v11"), {"A2A-Version": "1.1"}),
            call("send-version-2.0", m["send"], _send_params(V10, "v20"), {"A2A-Version": "2.0"}),
            call("send-version-odd", m["send"], _send_params(V10, "vodd"), {"A2A-Version": "banana"}),
            call("send-0.3-role", m["send"], {"message": {**_message(V10, "role03"), "role": "user"}}),
        ]
    else:
        probes += [
            call("send-version-1.0", m["send"], _send_params(V03, "v10"), {"A2A-Version": "1.0"}),
            call("send-version-0.3", m["send"], _send_params(V03, "v03"), {"A2A-Version": "0.3"}),
            call(
                "send-no-kind",
                m["send"],
                {"message": {k: v for k, v in _message(V03, "nokind").items() if k != "kind"}},
            ),
        ]
    return probes


def _rest_probes(version: str) -> list[Probe]:
    key = (REST, version)
    hdr = {"A2A-Version": version} if version == V10 else {}
    label = f"rest{version}"

    def req(
        name: str, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None, **kw: Any
    ) -> Probe:
        return Probe(f"{label} {name}", method, path, key, {**hdr, **(headers or {})}, body, **kw)

    if version == V10:
        send: Any = _send_params(V10, f"send-{label}")
        push: Any = {"url": _PUSH_URL, "id": f"{PREFIX}push"}
    else:
        send = {
            "message": {"messageId": f"{PREFIX}send-{label}", "role": "ROLE_USER", "content": [{"text": TEXT}]},
            "configuration": {"blocking": True},
        }
        push = {
            "name": f"tasks/{{task}}/pushNotificationConfigs/{PREFIX}push",
            "pushNotificationConfig": {"url": _PUSH_URL},
        }
    probes = [
        req("send", "POST", "/message:send", send, captures=True),
        req("stream", "POST", "/message:stream", send, {"Accept": "text/event-stream"}),
        req("get", "GET", "/tasks/{task}"),
        req("get-history-1", "GET", "/tasks/{task}?historyLength=1"),
        req("get-unknown", "GET", f"/tasks/{PREFIX}no-such-task"),
        req("cancel-terminal", "POST", "/tasks/{task}:cancel", {}),
        req(
            "subscribe-terminal",
            "GET" if version == V03 else "POST",
            "/tasks/{task}:subscribe",
            None,
            {"Accept": "text/event-stream"},
        ),
        req("push-set", "POST", "/tasks/{task}/pushNotificationConfigs", push),
        req("push-get", "GET", f"/tasks/{{task}}/pushNotificationConfigs/{PREFIX}push"),
        req("push-list", "GET", "/tasks/{task}/pushNotificationConfigs"),
        req("push-delete", "DELETE", f"/tasks/{{task}}/pushNotificationConfigs/{PREFIX}push"),
        req("unknown-route", "GET", "/no-such-route"),
        req("wrong-http-method", "GET", "/message:send"),
        req("wrong-params", "POST", "/message:send", {"message": "not a message"}),
        req("unknown-fields", "POST", "/message:send", {**send, "fidUnknown": {"x": 1}}),
        Probe(f"{label} bad-json", "POST", "/message:send", key, hdr, text_body='{"message": '),
        req("text-plain", "POST", "/message:send", None, {"Content-Type": "text/plain"}, text_body=json.dumps(send)),
    ]
    if version == V10:
        probes += [
            req("list", "GET", "/tasks"),
            req("extended-card", "GET", "/extendedAgentCard"),
            req("send-no-version", "POST", "/message:send", send, {"A2A-Version": ""}),
            req("send-version-2.0", "POST", "/message:send", send, {"A2A-Version": "2.0"}),
        ]
    else:
        probes += [req("extended-card", "GET", "/card")]
    return probes


def card_probes() -> list[Probe]:
    return [
        Probe("card agent-card.json", "GET", "/.well-known/agent-card.json"),
        Probe("card agent.json", "GET", "/.well-known/agent.json"),
        Probe("card agent-card.json POST", "POST", "/.well-known/agent-card.json", json_body={}),
        Probe("unknown path", "GET", "/no-such-path"),
    ]


def request_set(peer: Peer) -> list[Probe]:
    """Every request the peer's bindings call for, cards first; a binding's probes only when the peer serves it."""
    probes = card_probes()
    for version in (V10, V03):
        if (JSONRPC, version) in peer.bindings:
            probes += _jsonrpc_probes(version)
        if (REST, version) in peer.bindings:
            probes += _rest_probes(version)
    return probes


# --------------------------------------------------------------------------- sending


def _fill(value: Any, task: str) -> Any:
    if isinstance(value, str):
        return value.replace("{task}", task)
    if isinstance(value, list):
        return [_fill(v, task) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, task) for k, v in value.items()}
    return value


def _task_id(text: str) -> str | None:
    """The task a send answer created, in any form: JSON-RPC or not, 1.0 (`task` wrapper) or 0.3 (`kind`)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and "result" in value:
        value = value["result"]
    if isinstance(value, dict) and isinstance(value.get("task"), dict):
        value = value["task"]
    if isinstance(value, dict) and isinstance(value.get("id"), str) and "status" in value:
        return value["id"]
    return None


def exchange(http: httpx.Client, peer: Peer, probes: Iterable[Probe]) -> list[Answer]:
    """Send the probes in order; every answer is read to its end (streams included)."""
    task = f"{PREFIX}no-task-yet"
    answers = []
    for probe in probes:
        base = peer.url(*probe.binding, _fill(probe.path, task)) if probe.binding else peer.base_url + probe.path
        headers = {k: v for k, v in _fill(dict(probe.headers), task).items() if v}
        content: bytes | None = None
        if probe.text_body is not None:
            content = _fill(probe.text_body, task).encode()
            headers.setdefault("Content-Type", "application/json")
        elif probe.json_body is not None:
            content = json.dumps(_fill(probe.json_body, task)).encode()
            headers.setdefault("Content-Type", "application/json")
        # An empty header value (`A2A-Version: ""`) means: send no such header at all.
        with http.stream(probe.http_method, base, content=content, headers=headers) as response:
            chunks, broken = [], None
            try:
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
            except httpx.TransportError as exc:  # the server broke the answer off: that is its answer too
                broken = type(exc).__name__
            body = b"".join(chunks).decode("utf-8", errors="replace")
        fields = {k.lower(): v for k, v in response.headers.items()}
        answer = Answer(probe.name, response.status_code, fields, body, broken)
        answers.append(answer)
        if probe.captures and (found := _task_id(body)) is not None:
            task = found
    return answers


# --------------------------------------------------------------------------- comparing


def _timestamp_shape(value: str) -> str:
    match = _TIMESTAMP.match(value)
    if not match:
        return value
    return "<ts" + (".f" if match["fraction"] else "") + (match["zone"] or "") + ">"


class Normaliser:
    """One per peer, across its whole run, so an id keeps its token from answer to answer."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.ids: dict[str, str] = {}
        self.stamps: dict[str, str] = {}
        self.probe = ""
        self.count = 0

    def start(self, probe: str) -> None:
        """New ids found from now on are named after this probe (so one divergence does not renumber the rest)."""
        self.probe, self.count = probe, 0

    def _collect(self, value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                self._collect(item)
        elif isinstance(value, dict):
            for key in sorted(value):
                item = value[key]
                if (
                    key in ID_KEYS
                    and isinstance(item, str)
                    and len(item) >= GENERATED_MIN
                    and not item.startswith(PREFIX)
                ):
                    if item not in self.ids:
                        self.count += 1
                        self.ids[item] = f"<id {self.probe}#{self.count}>"
                elif key == "timestamp" and isinstance(item, str):
                    self.stamps[item] = _timestamp_shape(item)
                else:
                    self._collect(item)

    def text(self, text: str, values: list[Any]) -> str:
        for value in values:
            self._collect(value)
        for raw, token in sorted({**self.ids, **self.stamps}.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(raw, token)
        return text.replace(self.base_url, "<base_url>")


def parse_body(text: str, content_type: str) -> tuple[list[Any], Any]:
    """(the JSON values in the body, its comparable form): an SSE stream's data fields, a JSON body, or the text."""
    if content_type.startswith("text/event-stream"):
        events: list[Any] = []
        for block in re.split(r"\r\n\r\n|\n\n|\r\r", text):
            lines = [ln for ln in re.split(r"\r\n|\n|\r", block) if ln]
            data = [ln[5:].removeprefix(" ") for ln in lines if ln.startswith("data:")]
            other = [ln for ln in lines if not ln.startswith("data:")]
            if data:
                try:
                    parsed: Any = json.loads("\n".join(data))
                except ValueError:
                    parsed = "\n".join(data)
                events.append(parsed)
            events.extend({"<sse line>": ln} for ln in other)
        values = [e for e in events if not (isinstance(e, dict) and "<sse line>" in e)]
        return values, events
    try:
        value = json.loads(text)
    except ValueError:
        return [], text
    return [value], value


def _normalise_value(value: Any, norm: Normaliser) -> Any:
    return json.loads(norm.text(json.dumps(value), []))


@dataclass(frozen=True)
class Seen:
    """An answer after normalisation: what `compare` looks at."""

    status: int
    headers: Mapping[str, str]
    body: Any
    text: str


def normalise(answer: Answer, norm: Normaliser) -> Seen:
    norm.start(answer.probe)
    content_type = answer.headers.get("content-type", "")
    values, body = parse_body(answer.text, content_type)
    text = norm.text(answer.text, values)
    headers = {}
    for name, value in answer.headers.items():
        if name in SKIPPED_HEADERS:
            continue
        if name == "allow":  # a set: frameworks list it in any order (Starlette: set order, varies per run)
            value = ", ".join(sorted(v.strip() for v in value.split(",")))
        headers[name] = value if name in VALUE_HEADERS else "<present>"
    return Seen(answer.status, headers, _normalise_value(body, norm), text)


def compare(real: Peer, real_answers: list[Answer], persona: Peer, persona_answers: list[Answer]) -> list[Difference]:
    """Every difference between the two runs of one request set, request by request."""
    real_norm, persona_norm = Normaliser(real.base_url), Normaliser(persona.base_url)
    by_name = {a.probe: a for a in persona_answers}
    out: list[Difference] = []
    for answer in real_answers:
        mine = by_name.get(answer.probe)
        if mine is None:
            out.append(Difference(answer.probe, "missing", answer.status, None))
            continue
        a, b = normalise(answer, real_norm), normalise(mine, persona_norm)
        if answer.broken != mine.broken:
            out.append(Difference(answer.probe, "broken", answer.broken, mine.broken))
        if a.status != b.status:
            out.append(Difference(answer.probe, "status", a.status, b.status))
        for name in sorted(set(a.headers) | set(b.headers)):
            if a.headers.get(name) != b.headers.get(name):
                out.append(Difference(answer.probe, f"header {name}", a.headers.get(name), b.headers.get(name)))
        if a.body != b.body:
            out.append(Difference(answer.probe, "body", a.body, b.body))
        elif a.text != b.text:
            out.append(Difference(answer.probe, "bytes", a.text, b.text))
    return out


def unexplained(differences: list[Difference], accepted: Iterable[Accepted]) -> tuple[list[Difference], list[str]]:
    """(the differences no allowance covers, `name: probe pattern` of each allowance pattern that covers nothing)."""
    allowances = list(accepted)
    used: set[tuple[str, str]] = set()
    left = []
    for difference in differences:
        covered = False
        for allowance in allowances:
            pattern = allowance.covering(difference)
            if pattern is not None:
                used.add((allowance.name, pattern))
                covered = True
        if not covered:
            left.append(difference)
    stale = [f"{a.name}: {p}" for a in allowances for p in a.probes if (a.name, p) not in used]
    return left, stale


def report(differences: list[Difference], stale: list[str]) -> str:
    lines = [str(d) for d in differences] + [f"allowance {s!r} covers nothing (remove it)" for s in stale]
    return "\n".join(lines)


@dataclass(frozen=True)
class Outcome:
    """`identical`: answers with no difference at all; `same_content`: those plus the ones that differ only in
    `bytes` (member order, separators: the same JSON)."""

    requests: int
    identical: int
    same_content: int
    differences: list[Difference]


def run(http: httpx.Client, real: Peer, persona: Peer, probes: Callable[[Peer], list[Probe]] = request_set) -> Outcome:
    """The real server's request set against both peers; how many answers were identical, and every difference."""
    chosen = probes(real)
    differences = compare(real, exchange(http, real, chosen), persona, exchange(http, persona, chosen))
    differing = {d.probe for d in differences}
    in_content = {d.probe for d in differences if d.aspect != "bytes"}
    return Outcome(len(chosen), len(chosen) - len(differing), len(chosen) - len(in_content), differences)
