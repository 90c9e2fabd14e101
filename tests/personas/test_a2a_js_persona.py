"""The persona `personas/a2a-js-1.3` against the server it reproduces: @a2a-js/sdk 1.3.0 with express
(tests/personas/js_server.mjs, installed with its packages by tests/peers/install.sh).

The same request set (every method, both versions, both bindings, the card under each A2A-Version, bad inputs) goes
to a fresh real server and a fresh persona. After generated ids, times and the origin are replaced by placeholders,
each answer's status, headers that matter (Content-Type, Cache-Control, Vary), SSE framing and JSON (or text) body
must be the same, but for the differences DIFFERENCES names. `a2a-lab probe` must give both the same verdicts.
Skipped, with the reason, only where node is not installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lab.harness.probe import ProbeOptions, probe
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.catalogue import Catalogue
from a2a_lab.server.hosting import BackgroundServer

PERSONA = "personas/a2a-js-1.3"
START_SECONDS = 30
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
ORIGIN = re.compile(r"http://127\.0\.0\.1:\d+")
#: The response headers compared (the rest is each HTTP stack's own: Date, X-Powered-By, Keep-Alive, ...).
HEADERS = ("content-type", "cache-control", "vary")

#: What the persona answers differently, by name: the requests each covers, and why it stays.
DIFFERENCES: dict[str, tuple[frozenset[str], str]] = {
    "validation-wording": (
        frozenset({"rpc1-no-message", "rest1-no-message"}),
        "a2a-lab's parameter validation words a missing message its own way; the SDK says 'message.messageId is "
        "required.' (JSON-RPC) and 'message is required' (REST). Same code, status and ErrorInfo reason.",
    ),
    "role-0.3-spelling-served": (
        frozenset({"rpc1-role-0.3"}),
        "the SDK's ts-proto decoder reads the 0.3 role 'user' under 1.0 as UNRECOGNIZED and serves the message; "
        "a2a-lab refuses it with -32602 (1.0 roles are ROLE_USER and ROLE_AGENT).",
    ),
    "0.3-jsonrpc-append-false": (
        frozenset({"rpc03-stream"}),
        "the SDK's 0.3 JSON-RPC layer writes the artifact update's append: false as the agent set it; a2a-lab "
        "leaves an unset append out.",
    ),
    "0.3-rest-final-false": (
        frozenset({"rest03-stream"}),
        "the SDK's 0.3 REST layer (ProtoJSON) leaves final: false out of the WORKING update; a2a-lab writes it.",
    ),
    "v1-path-as-1.0-tenant": (
        frozenset({"rest03-with-1.0-header"}),
        "with A2A-Version: 1.0 the SDK routes POST /rest/v1/message:send to its 1.0 router as tenant 'v1', reads "
        "the 0.3 body as a 1.0 message without parts and echoes ''; a2a-lab serves /v1/ paths as 0.3 only and "
        "refuses the mix (-32601).",
    ),
}


def _message(text: str, form: str = "1.0", **extra: Any) -> dict[str, Any]:
    """A user message in one form: 1.0, 0.3 (JSON-RPC, with kinds) or 0.3 REST (ProtoJSON with `content`)."""
    if form == "1.0":
        out: dict[str, Any] = {"messageId": "m-" + text, "role": "ROLE_USER", "parts": [{"text": text}]}
    elif form == "0.3":
        out = {"kind": "message", "messageId": "m-" + text, "role": "user", "parts": [{"kind": "text", "text": text}]}
    else:
        out = {"messageId": "m-" + text, "role": "ROLE_USER", "content": [{"text": text}]}
    return {**out, **extra}


V1 = {"A2A-Version": "1.0"}
V03 = {"A2A-Version": "0.3"}
NONE: dict[str, str] = {}


@dataclass(frozen=True)
class Step:
    """One request. `{task}`-style names in the path or body are ids an earlier step kept (`keep`: the name, and
    the path of the id in its JSON answer)."""

    name: str
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    raw: bytes | None = None
    keep: tuple[str, tuple[str, ...]] | None = None


def rpc(name: str, method: str, params: Any, headers: dict[str, str] = V1, **kw: Any) -> Step:
    return Step(name, "POST", "/", headers, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, **kw)


STEPS: tuple[Step, ...] = (
    Step("card-no-header", "GET", "/.well-known/agent-card.json"),
    Step("card-1.0", "GET", "/.well-known/agent-card.json", V1),
    Step("card-0.3", "GET", "/.well-known/agent-card.json", V03),
    Step("card-legacy-path", "GET", "/.well-known/agent.json"),
    rpc("rpc1-send", "SendMessage", {"message": _message("a")}, keep=("task", ("result", "task", "id"))),
    rpc("rpc1-list", "ListTasks", {}),
    rpc("rpc1-get", "GetTask", {"id": "{task}"}),
    rpc("rpc1-get-history-0", "GetTask", {"id": "{task}", "historyLength": 0}),
    rpc("rpc1-get-unknown", "GetTask", {"id": "nope"}),
    rpc("rpc1-cancel-completed", "CancelTask", {"id": "{task}"}),
    rpc("rpc1-cancel-unknown", "CancelTask", {"id": "nope"}),
    rpc("rpc1-subscribe-completed", "SubscribeToTask", {"id": "{task}"}),
    rpc("rpc1-push-create", "CreateTaskPushNotificationConfig", {"taskId": "{task}", "url": "http://127.0.0.1:9/h"}),
    rpc("rpc1-push-get", "GetTaskPushNotificationConfig", {"taskId": "{task}", "id": "x"}),
    rpc("rpc1-push-list", "ListTaskPushNotificationConfigs", {"taskId": "{task}"}),
    rpc("rpc1-push-delete", "DeleteTaskPushNotificationConfig", {"taskId": "{task}", "id": "x"}),
    rpc("rpc1-extended-card", "GetExtendedAgentCard", {}),
    rpc("rpc1-unknown-method", "Nope", {}),
    rpc("rpc1-no-header", "SendMessage", {"message": _message("b")}, NONE),
    rpc("rpc1-version-2.0", "SendMessage", {"message": _message("c")}, {"A2A-Version": "2.0"}),
    rpc("rpc1-version-1.1", "SendMessage", {"message": _message("d")}, {"A2A-Version": "1.1"}),
    rpc("rpc1-no-message", "SendMessage", {}),
    rpc("rpc1-unknown-fields", "SendMessage", {"message": _message("e", extra_field=1), "bogus": True}),
    rpc("rpc1-stream", "SendStreamingMessage", {"message": _message("f")}),
    Step("rpc1-string-id", "POST", "/", V1, {"jsonrpc": "2.0", "id": "s", "method": "GetTask", "params": {"id": "x"}}),
    Step("rpc-bad-json", "POST", "/", V1, raw=b"{not json"),
    Step("rpc-text-plain", "POST", "/", {**V1, "Content-Type": "text/plain"}, raw=b'{"jsonrpc":"2.0","id":1}'),
    Step("rpc-no-jsonrpc-member", "POST", "/", V1, {"id": 1, "method": "GetTask", "params": {"id": "x"}}),
    Step("rpc-empty-batch", "POST", "/", V1, []),
    Step("rpc-notification", "POST", "/", V1, {"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "{task}"}}),
    Step("rpc-get-not-post", "GET", "/", V1),
    rpc("rpc03-send", "message/send", {"message": _message("g", "0.3")}, NONE, keep=("task03", ("result", "id"))),
    rpc("rpc03-send-0.3-header", "message/send", {"message": _message("h", "0.3")}, V03),
    rpc("rpc03-get", "tasks/get", {"id": "{task03}"}, NONE),
    rpc("rpc03-get-unknown", "tasks/get", {"id": "nope"}, NONE),
    rpc("rpc03-cancel-completed", "tasks/cancel", {"id": "{task03}"}, NONE),
    rpc("rpc03-with-1.0-header", "message/send", {"message": _message("i", "0.3")}, V1),
    rpc("rpc03-unknown-method", "nope/nope", {}, NONE),
    rpc("rpc03-no-kind", "message/send", {"message": {"messageId": "m-j", "role": "user", "parts": [{"text": "j"}]}}),
    rpc(
        "rpc03-push-set",
        "tasks/pushNotificationConfig/set",
        {"taskId": "{task03}", "pushNotificationConfig": {"url": "http://127.0.0.1:9/h"}},
        NONE,
    ),
    rpc("rpc03-extended-card", "agent/getAuthenticatedExtendedCard", {}, NONE),
    rpc("rpc03-resubscribe-completed", "tasks/resubscribe", {"id": "{task03}"}, NONE),
    rpc("rpc03-stream", "message/stream", {"message": _message("k", "0.3")}, NONE),
    Step("rest1-send", "POST", "/rest/message:send", V1, {"message": _message("l")}, keep=("rtask", ("task", "id"))),
    Step("rest1-list", "GET", "/rest/tasks", V1),
    Step("rest1-get", "GET", "/rest/tasks/{rtask}", V1),
    Step("rest1-get-unknown", "GET", "/rest/tasks/nope", V1),
    Step("rest1-cancel-completed", "POST", "/rest/tasks/{rtask}:cancel", V1, {}),
    Step("rest1-subscribe-completed", "GET", "/rest/tasks/{rtask}:subscribe", V1),
    Step("rest1-extended-card", "GET", "/rest/extendedAgentCard", V1),
    Step("rest1-no-header", "POST", "/rest/message:send", NONE, {"message": _message("m")}),
    Step("rest1-version-2.0", "POST", "/rest/message:send", {"A2A-Version": "2.0"}, {"message": _message("n")}),
    Step("rest1-bad-json", "POST", "/rest/message:send", V1, raw=b"{nope"),
    Step("rest1-no-message", "POST", "/rest/message:send", V1, {}),
    Step("rest1-unknown-fields", "POST", "/rest/message:send", V1, {"message": _message("o", x=1), "bogus": True}),
    Step("rest1-unknown-route", "GET", "/rest/nope", V1),
    Step("rest1-wrong-verb", "GET", "/rest/message:send", V1),
    Step("rest1-stream", "POST", "/rest/message:stream", V1, {"message": _message("p")}),
    Step("unknown-path", "POST", "/nope", V1, {}),
    Step(
        "rest03-send",
        "POST",
        "/rest/v1/message:send",
        NONE,
        {"message": _message("q", "rest03"), "configuration": {"blocking": True}},
        keep=("rtask03", ("task", "id")),
    ),
    Step("rest03-get", "GET", "/rest/v1/tasks/{rtask03}", NONE),
    Step("rest03-get-unknown", "GET", "/rest/v1/tasks/nope", NONE),
    Step("rest03-cancel-completed", "POST", "/rest/v1/tasks/{rtask03}:cancel", NONE, {}),
    Step("rest03-card", "GET", "/rest/v1/card", NONE),
    Step("rest03-stream", "POST", "/rest/v1/message:stream", NONE, {"message": _message("r", "rest03")}),
    Step("rest03-with-1.0-header", "POST", "/rest/v1/message:send", V1, {"message": _message("s", "rest03")}),
    rpc("rpc1-role-0.3", "SendMessage", {"message": _message("t", role="user")}),
)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any  # JSON, a list of SSE events, or text; ids, times and the origin as placeholders
    text: str  # the normalised body as sent (key order and framing visible)


def _fill(value: Any, kept: dict[str, str]) -> Any:
    text = json.dumps(value)
    for name, got in kept.items():
        text = text.replace("{" + name + "}", got)
    return json.loads(text)


def _normalise(text: str, ids: dict[str, str]) -> str:
    text = UUID.sub(lambda m: ids.setdefault(m.group(0), f"<id{len(ids)}>"), text)
    return ORIGIN.sub("<origin>", TIMESTAMP.sub("<time>", text))


def _events(text: str) -> list[dict[str, Any]]:
    """SSE events as {field: value} (data as JSON), whatever the line ends."""
    out = []
    for block in re.split(r"\r?\n\r?\n", text.strip()):
        event: dict[str, Any] = {}
        for line in re.split(r"\r?\n", block):
            name, _, value = line.partition(":")
            event[name] = json.loads(value) if name == "data" else value.strip()
        out.append(event)
    return out


def _read(text: str, content_type: str) -> Any:
    if content_type.startswith("text/event-stream"):
        return {"framing": "crlf" if "\r\n" in text else "lf", "events": _events(text)}
    try:
        return json.loads(text)
    except ValueError:
        return text


def exchange(base_url: str) -> dict[str, Answer]:
    """Every step against one server, in order, on one connection."""
    ids: dict[str, str] = {}
    kept: dict[str, str] = {}
    answers: dict[str, Answer] = {}
    with httpx.Client(base_url=base_url, timeout=20, trust_env=False) as client:
        for step in STEPS:
            headers = {"Content-Type": "application/json", **step.headers}
            content = step.raw if step.raw is not None else None
            if step.body is not None:
                content = json.dumps(_fill(step.body, kept)).encode()
            path = str(_fill(step.path, kept))
            resp = client.request(step.method, path, headers=headers, content=content)
            if step.keep is not None:
                value: Any = resp.json()
                for key in step.keep[1]:
                    value = value[key]
                kept[step.keep[0]] = value
            text = _normalise(resp.text, ids)
            seen = {name: _normalise(resp.headers[name], ids) for name in HEADERS if name in resp.headers}
            answers[step.name] = Answer(resp.status_code, seen, _read(text, seen.get("content-type", "")), text)
    return answers


def peers_dir() -> Path:
    return Path(os.environ.get("A2A_LAB_PEERS") or Path.home() / ".cache" / "a2a-lab-peers").expanduser()


@pytest.fixture(scope="module")
def js_server() -> Iterator[str]:
    """The real server: `node js_server.mjs` from the peers cache, on a port of its choosing."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH (the @a2a-js/sdk server needs Node.js >= 20)")
    script = peers_dir() / "js" / "js_server.mjs"
    express = peers_dir() / "js" / "node_modules" / "express" / "package.json"
    assert script.exists() and express.exists(), f"run tests/peers/install.sh: {script} or {express} is missing"
    proc = subprocess.Popen(
        [node, "--preserve-symlinks-main", str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # `port N` once every route is mounted; '' if node died
        assert line.startswith("port "), (
            f"js_server.mjs did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}"
        )
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        if proc.stdin is not None:
            proc.stdin.close()  # the server stops when its stdin closes
        try:
            proc.wait(timeout=START_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def persona(catalogue: Catalogue) -> Iterator[str]:
    with BackgroundServer(ScenarioApp(catalogue.get(PERSONA))) as server:
        yield server.url


@pytest.fixture(scope="module")
def answers(js_server: str, persona: str) -> tuple[dict[str, Answer], dict[str, Answer]]:
    return exchange(js_server), exchange(persona)


def _differing(real: Answer, lab: Answer) -> list[str]:
    out = []
    if real.status != lab.status:
        out.append(f"status {real.status} != {lab.status}")
    if real.headers != lab.headers:
        out.append(f"headers {real.headers} != {lab.headers}")
    if real.body != lab.body:
        out.append(f"body\n  real:    {json.dumps(real.body)[:900]}\n  persona: {json.dumps(lab.body)[:900]}")
    return out


def test_the_persona_answers_every_request_as_the_real_server_does(
    answers: tuple[dict[str, Answer], dict[str, Answer]],
) -> None:
    real, lab = answers
    allowed = {name for names, _ in DIFFERENCES.values() for name in names}
    assert allowed <= set(real), "DIFFERENCES names a request the set does not send"
    differing = {name: _differing(real[name], lab[name]) for name in real}
    unexpected = {name: why for name, why in differing.items() if why and name not in allowed}
    assert not unexpected, "\n".join(f"{name}: {'; '.join(why)}" for name, why in unexpected.items())
    gone = sorted(name for name in allowed if not differing[name])
    assert not gone, f"these differences are gone; take them out of DIFFERENCES: {gone}"
    same = len(real) - len(allowed)
    byte_same = sum(real[n].text == lab[n].text for n in real)
    print(f"{len(real)} requests: {same} answered the same, {byte_same} byte for byte; named differences: {allowed}")


def test_the_cards_are_byte_identical_under_each_version(answers: tuple[dict[str, Answer], dict[str, Answer]]) -> None:
    real, lab = answers
    for name in ("card-no-header", "card-1.0", "card-0.3"):
        assert real[name].text == lab[name].text, name


def _verdicts(url: str) -> dict[tuple[str, str], str]:
    run = probe(url, ProbeOptions())
    return {(result.id, check.id): check.outcome.value for result in run.results for check in result.checks}


def test_probe_gives_the_real_server_and_the_persona_the_same_verdicts(js_server: str, persona: str) -> None:
    real, lab = _verdicts(js_server), _verdicts(persona)
    assert real == lab
    # The probe's findings on the SDK: a 1.0 REST route serves a request without A2A-Version (§3.6.2).
    assert real[("probe/1-HTTP+JSON-1.0", "VERSION-NEGOTIATION")] == "FAIL"
