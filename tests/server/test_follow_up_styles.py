"""Never punish a legal strategy (design): a task answered open moves on for every way the spec gives a client to
follow it (poll with GetTask, subscribe, push to a webhook), in A2A 1.0 and 0.3, over every catalogue scenario.

Each catalogue scenario is served in-process on loopback (real HTTP) and asked, for each version its card offers on
JSON-RPC, for a task with `returnImmediately: true` (1.0) / `blocking: false` (0.3). The scenarios that answer an open
task (derived here, not listed by hand) are then followed to their end in every style the card allows: GetTask polls,
SubscribeToTask / `tasks/resubscribe` (streaming declared), and a loopback webhook registered inline in the send or
with CreateTaskPushNotificationConfig / `tasks/pushNotificationConfig/set` (push declared). Each style must reach the
state a poller reaches: the task's terminal or interrupted state, within a bound; a task whose scenario is about
never finishing (`expect.state` not a stop) stays open for every style alike.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.lab_api import json_credentials
from a2a_lab.contract.scenario import Scenario
from a2a_lab.protocol import cards, states
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

VERSIONS = ("1.0", "0.3")
#: How long one style may take to see the task stop (the slowest catalogue task moves in well under this).
BOUND_S = 4.0
POLL_GAP_S = 0.05
SECRET = "follow-up-styles-secret"
METHODS = {
    "1.0": {
        "send": "SendMessage",
        "get": "GetTask",
        "subscribe": "SubscribeToTask",
        "push": "CreateTaskPushNotificationConfig",
    },
    "0.3": {
        "send": "message/send",
        "get": "tasks/get",
        "subscribe": "tasks/resubscribe",
        "push": "tasks/pushNotificationConfig/set",
    },
}


def state_of(value: Any) -> TaskState | None:
    """The task state in any of the forms a task, a status update (1.0 or 0.3) or a push body carries it."""
    if not isinstance(value, dict):
        return None
    inner = value.get("task") or value.get("statusUpdate") or value
    status = inner.get("status") if isinstance(inner, dict) else None
    raw = status.get("state") if isinstance(status, dict) else None
    if not isinstance(raw, str):
        return None
    return states.parse(raw)


def jsonrpc_url(card: Any, version: str) -> str | None:
    """The first JSON-RPC interface of `version` the card offers (as either generation reads it), or None."""
    candidates = cards.interfaces(card)
    legacy = cards.legacy_view(card)
    if legacy is not None:
        candidates.append(legacy)
    for iface in candidates:
        declared = iface.declared_version or "0.3"
        if iface.binding.upper() == "JSONRPC" and ".".join(declared.split(".")[:2]) == version:
            return iface.url
    return None


class Receiver:
    """A loopback webhook that accepts the genuine notifications (Bearer SECRET) and remembers their states."""

    def __init__(self) -> None:
        self.states: list[TaskState | None] = []
        self.changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                genuine = self.headers.get("authorization") == f"Bearer {SECRET}"
                if genuine:
                    with receiver.changed:
                        receiver.states.append(state_of(json.loads(body)))
                        receiver.changed.notify_all()
                self.send_response(204 if genuine else 401)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for_stop(self, seconds: float) -> TaskState | None:
        deadline = time.monotonic() + seconds
        with self.changed:
            while not any(s is not None and s.stops for s in self.states) and time.monotonic() < deadline:
                self.changed.wait(max(0.0, deadline - time.monotonic()))
            return next((s for s in self.states if s is not None and s.stops), self.states[-1] if self.states else None)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Answered(Exception):
    """A follow-up was answered with an error: the follower is told, not left waiting."""


@dataclass
class Follower:
    """One scenario served on loopback, followed in one version."""

    scenario: Scenario
    http: httpx.Client
    url: str
    version: str

    def headers(self) -> dict[str, str]:
        headers = {"A2A-Version": "1.0"} if self.version == "1.0" else {}
        if self.scenario.auth is not None:
            headers["Authorization"] = f"Bearer {self.scenario.auth.bearer}"
        return headers

    def body(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": METHODS[self.version][method], "params": params}

    def rpc(self, method: str, params: dict[str, Any]) -> Any:
        answer = self.http.post(self.url, json=self.body(method, params), headers=self.headers()).json()
        if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
            raise Answered(f"error {answer['error'].get('code')}")
        return answer.get("result") if isinstance(answer, dict) else None

    def send(self, push_url: str | None = None) -> dict[str, Any] | None:
        """An open task for a message sent to return at once (with an inline webhook), or None."""
        if self.version == "1.0":
            message: dict[str, Any] = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "hi"}]}
            cfg: dict[str, Any] = {"returnImmediately": True}
            if push_url:
                auth = {"scheme": "Bearer", "credentials": SECRET}
                cfg["taskPushNotificationConfig"] = {"url": push_url, "authentication": auth}
        else:
            text = {"kind": "text", "text": "hi"}
            message = {"kind": "message", "messageId": str(uuid.uuid4()), "role": "user", "parts": [text]}
            cfg = {"blocking": False}
            if push_url:
                cfg["pushNotificationConfig"] = {
                    "url": push_url,
                    "authentication": {"schemes": ["Bearer"], "credentials": SECRET},
                }
        try:
            result = self.rpc("send", {"message": message, "configuration": cfg})
        except (httpx.HTTPError, ValueError, Answered):
            return None
        task = result.get("task", result) if isinstance(result, dict) else None
        state = state_of(task)
        if not isinstance(task, dict) or state is None or state.stops or not isinstance(task.get("id"), str):
            return None
        return task

    # ------------------------------------------------------------------------- the styles

    def poll(self, task: dict[str, Any]) -> TaskState | None:
        deadline, state = time.monotonic() + BOUND_S, state_of(task)
        while (state is None or not state.stops) and time.monotonic() < deadline:
            time.sleep(POLL_GAP_S)
            state = state_of(self.rpc("get", {"id": task["id"]})) or state
        return state

    def subscribe(self, task: dict[str, Any]) -> TaskState | None:
        state = state_of(task)
        headers = {**self.headers(), "Accept": "text/event-stream"}
        timeout = httpx.Timeout(BOUND_S, connect=5.0)
        body = self.body("subscribe", {"id": task["id"]})
        with self.http.stream("POST", self.url, json=body, headers=headers, timeout=timeout) as resp:
            if "text/event-stream" not in resp.headers.get("content-type", ""):
                text = resp.read().decode(errors="replace")
                if _ended_meanwhile(text):
                    return self.poll(task)  # §3.1.6: a terminal task cannot be subscribed to; GetTask tells the end
                raise Answered(text[:200])
            deadline = time.monotonic() + BOUND_S
            try:
                for line in resp.iter_lines():
                    if line.startswith("data:"):
                        data = json.loads(line[5:])
                        if isinstance(data.get("error"), dict):
                            raise Answered(f"error {data['error'].get('code')}")
                        state = state_of(data.get("result")) or state
                    if (state is not None and state.stops) or time.monotonic() > deadline:
                        break
            except httpx.ReadTimeout:
                pass
        return state

    def push(self, inline: bool) -> TaskState | str | None:
        receiver = Receiver()
        try:
            task = self.send(receiver.url if inline else None)
            if task is None:
                return "no open task"
            if not inline:
                config: dict[str, Any]
                if self.version == "1.0":
                    auth = {"scheme": "Bearer", "credentials": SECRET}
                    config = {"taskId": task["id"], "url": receiver.url, "authentication": auth}
                else:
                    auth03 = {"schemes": ["Bearer"], "credentials": SECRET}
                    config = {
                        "taskId": task["id"],
                        "pushNotificationConfig": {"url": receiver.url, "authentication": auth03},
                    }
                assert self.rpc("push", config), "the push config was refused"
            return receiver.wait_for_stop(BOUND_S) or state_of(task)
        finally:
            receiver.close()


def styles(card: Any) -> list[str]:
    out = ["poll"]
    if cards.capability(card, cards.STREAMING):
        out.append("subscribe")
    if cards.capability(card, cards.PUSH_NOTIFICATIONS):
        out += ["push-inline", "push-create"]
    return out


def _ended_meanwhile(text: str) -> bool:
    """A JSON-RPC answer refusing the subscription as UnsupportedOperationError: the task ended before it."""
    try:
        error = json.loads(text).get("error")
    except (ValueError, AttributeError):
        return False
    return isinstance(error, dict) and error.get("code") == ErrorType.UNSUPPORTED_OPERATION.code


def one_style(follower: Follower, style: str) -> TaskState | str | None:
    if style.startswith("push"):
        return follower.push(inline=style == "push-inline")
    task = follower.send()
    if task is None:
        return "no open task"
    return follower.poll(task) if style == "poll" else follower.subscribe(task)


#: The operation each style follows a task with: a scenario that scripts an answer to it may answer an error.
FOLLOWED_WITH = {"poll": Operation.GET_TASK, "subscribe": Operation.SUBSCRIBE_TO_TASK}


def follow(scenario: Scenario) -> dict[tuple[str, str], TaskState | str | None]:
    """For each version with an open task: the state each style saw the task reach."""
    app = ScenarioApp(scenario)
    out: dict[tuple[str, str], TaskState | str | None] = {}
    with BackgroundServer(app) as server:
        card_doc = json.loads(app.state.card_bytes(server.url)) if app.state.card_doc is not None else None
        with httpx.Client(timeout=httpx.Timeout(2.0), trust_env=False) as http:
            for version in VERSIONS:
                url = jsonrpc_url(card_doc, version)
                if url is None:
                    continue
                follower = Follower(scenario, http, url, version)
                if follower.send() is None:
                    continue  # this scenario answers no open task (a message, an error, a stop, a fault)
                for style in styles(card_doc):
                    reset = http.post(f"{server.url}/_lab/reset", headers=json_credentials(app.guard.token))
                    assert reset.status_code == 200, reset.text  # each style meets the scenario afresh
                    try:
                        out[version, style] = one_style(follower, style)
                    except Answered as answered:
                        out[version, style] = str(answered)
    return out


def outcomes(catalogue: Catalogue) -> Iterator[tuple[Scenario, dict[tuple[str, str], TaskState | str | None]]]:
    scenarios = [s for s in catalogue.select() if s.card.object is not None or s.card.raw is not None]
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield from zip(scenarios, pool.map(follow, scenarios), strict=True)


def test_every_follow_up_style_sees_every_open_task_through(catalogue: Catalogue) -> None:
    started = time.monotonic()
    problems: list[str] = []
    followed: dict[tuple[str, str], int] = {}
    for scenario, seen in outcomes(catalogue):
        never_stops = scenario.expect.state is not None and not scenario.expect.state.stops
        for (version, style), state in seen.items():
            followed[version, style] = followed.get((version, style), 0) + 1
            reached = isinstance(state, TaskState) and state.stops
            if isinstance(state, str) and state.startswith("error") and FOLLOWED_WITH.get(style) in scenario.rules:
                continue  # the scenario answers this follow-up with an error on purpose: the follower is told
            if never_stops and reached:
                problems.append(f"{scenario.id} {version} {style}: a task about never finishing reached {state}")
            if not never_stops and not reached:
                problems.append(f"{scenario.id} {version} {style}: stuck at {state} (a follower would time out)")
    assert not problems, "\n".join(problems)
    # The derivation found the scenarios the issue names, in both versions and every style.
    for key in [(v, s) for v in VERSIONS for s in ("poll", "subscribe", "push-inline", "push-create")]:
        assert followed.get(key, 0) >= 1, f"no scenario followed in {key}: {followed}"
    print(f"follow-up styles: {sum(followed.values())} follow-ups in {time.monotonic() - started:.1f} s: {followed}")
