"""The reference client doing what a scenario asks (A2A_LAB_ACTION): follow-up, stream, webhook, token,
extended card, resubscribe, signature verification; against real a2a-lab servers (127.0.0.1, port 0)
built from scenario YAML written here, then scored by the harness's own checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from joserfc.jwk import ECKey

from a2a_lab.contract import handshake
from a2a_lab.contract.loader import load_file
from a2a_lab.contract.scenario import ACTIONS, Scenario
from a2a_lab.harness.client_judging.runner import RunOptions, run_all
from a2a_lab.harness.clients.refclient import (
    ClientOptions,
    Result,
    UsageFailure,
    WebhookReceiver,
    action_options,
    load_jwks,
    read_action,
    render_text,
    run,
    verify_card,
)
from a2a_lab.harness.clients.refclient.actions import OPTION_FOR
from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol import requests, shapes, signing
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import WELL_KNOWN_PATH
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.forms import V03_JSONRPC, V1_HTTP_JSON, V1_JSONRPC
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.push import PROBE_CREDENTIALS

V1, V03 = Version.V1_0, Version.V0_3
JSONRPC, HTTP_JSON = Binding.JSONRPC.value, Binding.HTTP_JSON.value
INTERRUPTED_SCRIPT = {
    "steps": ["WORKING", {"state": "INPUT_REQUIRED", "message": "Which city?"}, "WORKING", "COMPLETED"]
}
WIRE = pytest.mark.parametrize(
    ("version", "binding"),
    [("1.0", JSONRPC), ("0.3", JSONRPC), ("1.0", HTTP_JSON), ("0.3", HTTP_JSON)],
    ids=["jsonrpc-1.0", "jsonrpc-0.3", "rest-1.0", "rest-0.3"],
)


class Recorder:
    """Stands in for time.sleep: the client's polite GetTask delays are recorded, not waited out."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def options(**kw: Any) -> ClientOptions:
    kw.setdefault("sleep", Recorder())
    return ClientOptions(**kw)


# ----------------------------------------------------------------------------------- scenarios written here


def iface(binding: str = JSONRPC, version: str = "1.0", path: str | None = None) -> dict[str, str]:
    path = path or ("/a2a/jsonrpc" if binding == JSONRPC else "/a2a/rest")
    return {"url": "{base_url}" + path, "protocolBinding": binding, "protocolVersion": version}


def card(*interfaces: dict[str, str], **capabilities: bool) -> dict[str, Any]:
    return {
        "name": "actions agent",
        "description": "An agent for the client's actions.",
        "version": "1.0.0",
        "supportedInterfaces": list(interfaces) or [iface()],
        "capabilities": capabilities,
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": ["echo"]}],
    }


def scenario_data(
    title: str, card_object: dict[str, Any], action: dict[str, Any] | None = None, **rest: Any
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": title,
        "description": title + ".",
        "spec": "A2A 1.0 (tests/harness/test_refclient_actions.py)",
        "card": {"object": card_object},
        **rest,
    }
    data["client"] = {"message": "weather please", "action": action or {}}
    return data


def test_key() -> dict[str, Any]:
    return ECKey.generate_key("P-256", private=True).as_dict(private=True)


test_key.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[[str, dict[str, Any]], Scenario]:
    def _write(name: str, data: dict[str, Any]) -> Scenario:
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        return load_file(path, f"lab/{name}")

    return _write


class Served:
    def __init__(self, app: ScenarioApp, server: BackgroundServer) -> None:
        self.app, self.server = app, server
        self.card_url = server.url + WELL_KNOWN_PATH

    @property
    def journal(self) -> list[dict[str, Any]]:
        return self.app.state.journal.snapshot()["entries"]

    def calls(self) -> list[dict[str, Any]]:
        return [e for e in self.journal if e["kind"] in ("jsonrpc", "rest")]

    def operations(self) -> list[str]:
        return [e.get("operation", "?") for e in self.calls()]

    def pushes(self) -> list[dict[str, Any]]:
        return [e for e in self.journal if e["kind"] == "push"]


@pytest.fixture
def serve(write_scenario: Callable[[str, dict[str, Any]], Scenario]) -> Iterator[Callable[..., Served]]:
    started: list[BackgroundServer] = []

    def _serve(name: str, data: dict[str, Any]) -> Served:
        app = ScenarioApp(write_scenario(name, data))
        server = BackgroundServer(app).start()
        started.append(server)
        return Served(app, server)

    yield _serve
    for server in started:
        server.stop()


def body_of(entry: dict[str, Any]) -> dict[str, Any]:
    """The request's params (JSON-RPC) or body (HTTP+JSON)."""
    body = json.loads(entry["body"]["text"])
    return body["params"] if entry["kind"] == "jsonrpc" else body


def message_of(entry: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = body_of(entry)["message"]
    return message


# ----------------------------------------------------------------------------------- the action, as options


def test_every_action_has_an_option() -> None:
    assert set(OPTION_FOR) == set(ACTIONS)
    fields = set(ClientOptions.__dataclass_fields__)
    assert set(OPTION_FOR.values()) <= fields


def test_action_options_map_and_validate() -> None:
    jwks = {"keys": [{"kty": "EC"}]}
    chosen, warnings = action_options(
        {
            "follow_up": "Paris",
            "stream": True,
            "webhook": True,
            "token": "t",
            "extended_card": True,
            "resubscribe": True,
            "verify_signature": True,
            "jwks": jwks,
            "dance": True,
        }
    )
    assert chosen == {
        "follow_up": "Paris",
        "stream": True,
        "webhook": True,
        "token": "t",
        "extended_card": True,
        "resubscribe": True,
        "jwks": jwks,
    }
    assert len(warnings) == 1 and "'dance'" in warnings[0]
    ClientOptions(**chosen)  # every key is a field
    assert action_options({"verify_signature": True}) == ({"jwks": {"keys": []}}, [])  # nothing to trust the card with
    assert action_options({"verify_signature": False, "jwks": jwks}) == ({}, [])
    assert action_options({}) == ({}, [])
    with pytest.raises(UsageFailure, match="follow_up must be text"):
        action_options({"follow_up": 3})
    with pytest.raises(UsageFailure, match="webhook must be true or false"):
        action_options({"webhook": "yes"})
    with pytest.raises(UsageFailure, match="jwks must be a JWKS object"):
        action_options({"verify_signature": True, "jwks": []})


def test_read_action_from_the_environment() -> None:
    assert read_action({}) == {}
    assert read_action({handshake.ENV_ACTION: "  "}) == {}
    assert read_action({handshake.ENV_ACTION: '{"stream": true}'}) == {"stream": True}
    with pytest.raises(UsageFailure, match="not JSON"):
        read_action({handshake.ENV_ACTION: "{stream"})
    with pytest.raises(UsageFailure, match="must be a JSON object"):
        read_action({handshake.ENV_ACTION: "[1]"})


# ----------------------------------------------------------------------------------- protocol helpers


@pytest.mark.parametrize(
    ("version", "binding", "key", "auth"),
    [
        (V1, Binding.JSONRPC, "taskPushNotificationConfig", {"scheme": "Bearer", "credentials": "c"}),
        (V1, Binding.HTTP_JSON, "taskPushNotificationConfig", {"scheme": "Bearer", "credentials": "c"}),
        (V1, Binding.GRPC, "taskPushNotificationConfig", {"scheme": "Bearer", "credentials": "c"}),
        (V03, Binding.JSONRPC, "pushNotificationConfig", {"schemes": ["Bearer"], "credentials": "c"}),
        (V03, Binding.HTTP_JSON, "pushNotification", {"schemes": ["Bearer"], "credentials": "c"}),
    ],
)
def test_inline_webhook_in_every_wire_form(version: Version, binding: Binding, key: str, auth: dict[str, Any]) -> None:
    message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}
    cfg = requests.send_configuration(True, requests.push_config("http://127.0.0.1:9/hook", "c", "t"))
    params = {"message": message, "configuration": cfg}
    if binding is Binding.GRPC:
        body: dict[str, Any] | None = requests.grpc_request(Operation.SEND_MESSAGE, version, params).message
    else:
        wire = requests.build(Operation.SEND_MESSAGE, version, binding, params)
        body = wire.params if isinstance(wire, requests.RpcRequest) else wire.body
    assert body is not None
    sent = body["configuration"]
    assert sent[key] == {"url": "http://127.0.0.1:9/hook", "token": "t", "authentication": auth}
    assert sent.get("returnImmediately", sent.get("blocking") is False) is True
    assert requests.auth_headers("s") == {"Authorization": "Bearer s"} and requests.auth_headers(None) == {}


def test_event_task_id_in_every_form() -> None:
    assert shapes.event_task_id({"task": {"id": "t1", "status": {}}}, V1_JSONRPC) == "t1"
    assert shapes.event_task_id({"statusUpdate": {"taskId": "t2", "status": {}}}, V1_HTTP_JSON) == "t2"
    assert shapes.event_task_id({"kind": "task", "id": "t3", "status": {}}, V03_JSONRPC) == "t3"
    assert shapes.event_task_id({"kind": "status-update", "taskId": "t4"}, V03_JSONRPC) == "t4"
    assert shapes.event_task_id({"message": {"messageId": "m"}}, V1_JSONRPC) is None
    assert shapes.event_task_id([1], V1_JSONRPC) is None and shapes.event_task_id({"id": "x"}, V1_JSONRPC) is None


# ----------------------------------------------------------------------------------- the webhook receiver


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as hook:
        yield hook


def post(hook: WebhookReceiver, body: bytes | None, authorization: str | None, **headers: str) -> httpx.Response:
    sent = {"Content-Type": "application/a2a+json", **headers}
    if authorization is not None:
        sent["Authorization"] = authorization
    with httpx.Client(trust_env=False, timeout=5) as http:
        return http.post(hook.url, content=body, headers=sent)


def status_event(task_id: str, state: TaskState) -> bytes:
    return json.dumps(
        {"statusUpdate": {"taskId": task_id, "contextId": "c", "status": {"state": state.value}}}
    ).encode()


def test_receiver_listens_on_loopback_with_fresh_secrets(receiver: WebhookReceiver) -> None:
    assert receiver.url.startswith("http://127.0.0.1:") and not receiver.url.startswith("http://127.0.0.1:0/")
    with WebhookReceiver() as other:
        assert other.credentials != receiver.credentials and other.token != receiver.token and other.url != receiver.url
    assert len(receiver.credentials) >= 32


def test_receiver_checks_credentials_then_the_body(receiver: WebhookReceiver) -> None:
    good = requests.bearer(receiver.credentials)
    event = status_event("t1", TaskState.WORKING)
    assert post(receiver, event, None).status_code == 401
    refused = post(receiver, event, requests.bearer(PROBE_CREDENTIALS))
    assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer")
    assert post(receiver, event, good + "x").status_code == 401
    assert post(receiver, event, "Basic " + receiver.credentials).status_code == 401
    assert post(receiver, event, good, **{"X-A2A-Notification-Token": "not-it"}).status_code == 401
    assert post(receiver, b"<html>", good).status_code == 400
    assert post(receiver, b'{"statusUpdate": {"status": {}}}', good).status_code == 400  # names no task
    assert receiver.notifications() == []
    assert post(receiver, event, good, **{"X-A2A-Notification-Token": receiver.token}).status_code == 200
    receiver.expect("t1")
    assert post(receiver, status_event("t2", TaskState.COMPLETED), good).status_code == 400  # not a task it waits for
    v03_task = {"kind": "task", "id": "t1", "contextId": "c", "status": {"state": "completed"}}
    assert post(receiver, json.dumps(v03_task).encode(), good).status_code == 200
    notes = receiver.notifications("t1")
    assert [(n.index, n.task_id, n.state) for n in notes] == [
        (0, "t1", TaskState.WORKING),
        (1, "t1", TaskState.COMPLETED),
    ]
    assert receiver.summary() == {"url": receiver.url, "notifications": 2, "refused": 8}
    with httpx.Client(trust_env=False) as http:
        assert http.get(receiver.url).status_code == 405
        assert (
            http.post(
                receiver.url.rsplit("/", 1)[0] + "/elsewhere", content=event, headers={"Authorization": good}
            ).status_code
            == 404
        )


def test_receiver_wait_returns_what_arrived(receiver: WebhookReceiver) -> None:
    good = requests.bearer(receiver.credentials)
    assert receiver.wait("t1", 0, lambda n: True, 0) is None
    post(receiver, status_event("t1", TaskState.WORKING), good)
    mark = receiver.mark()
    post(receiver, status_event("t1", TaskState.COMPLETED), good)
    found = receiver.wait("t1", mark, lambda n: n.state is TaskState.COMPLETED, 5)
    assert found is not None and found.index == 1
    assert receiver.wait("t1", mark, lambda n: n.state is TaskState.WORKING, 0) is None  # before the mark
    assert receiver.settle(0, 5)


# ----------------------------------------------------------------------------------- follow_up


@WIRE
def test_follow_up_answers_the_question_on_the_same_task(
    serve: Callable[..., Served], version: str, binding: str
) -> None:
    served = serve("multi", scenario_data("Which city?", card(iface(binding, version)), task=INTERRUPTED_SCRIPT))
    result = run(served.card_url, "weather please", options(follow_up="Paris"))
    assert result.exit_code == 0, result.to_json()
    assert (result.kind, result.state, result.follow_up) == ("task", TaskState.COMPLETED, True)
    first, second = served.calls()
    assert first["operation"] == second["operation"] == Operation.SEND_MESSAGE.value
    assert (first["path"], first.get("version")) == (second["path"], second.get("version"))
    sent = message_of(second)
    assert sent["taskId"] == result.task_id and sent["contextId"] == result.context_id
    assert sent["messageId"] != message_of(first)["messageId"]
    text_key = "content" if (version, binding) == ("0.3", HTTP_JSON) else "parts"
    assert sent[text_key][0]["text"] == "Paris"
    assert "taskId" not in message_of(first) and "contextId" not in message_of(first)
    assert "follow-up" in render_text(result)


def test_follow_up_at_auth_required(serve: Callable[..., Served]) -> None:
    script = {"steps": ["WORKING", {"state": "AUTH_REQUIRED", "message": "Sign in, please"}, "COMPLETED"]}
    served = serve("auth-required", scenario_data("Sign in", card(), task=script))
    result = run(served.card_url, "x", options(follow_up="done signing in"))
    assert (result.kind, result.state, result.follow_up) == ("task", TaskState.COMPLETED, True)
    assert message_of(served.calls()[1])["taskId"] == result.task_id


def test_follow_up_to_a_finished_task_reports_the_refusal(serve: Callable[..., Served]) -> None:
    served = serve("terminal", scenario_data("Already done", card(), task={"steps": ["COMPLETED"]}))
    result = run(served.card_url, "x", options(follow_up="one more thing"))
    assert result.kind == "error" and result.exit_code == 1 and result.follow_up
    assert result.error is not None and result.error["code"] == ErrorType.UNSUPPORTED_OPERATION.code
    assert "the follow-up to task" in result.error["message"]
    assert served.operations() == [Operation.SEND_MESSAGE.value, Operation.SEND_MESSAGE.value]  # exactly one follow-up
    assert message_of(served.calls()[1])["taskId"] == result.task_id


def test_never_more_than_one_follow_up(serve: Callable[..., Served]) -> None:
    script = {
        "steps": [
            "WORKING",
            {"state": "INPUT_REQUIRED", "message": "City?"},
            {"state": "INPUT_REQUIRED", "message": "Which country?"},
            "COMPLETED",
        ]
    }
    served = serve("asks-twice", scenario_data("Asks twice", card(), task=script))
    result = run(served.card_url, "x", options(follow_up="Paris"))
    assert (result.kind, result.state, result.text, result.exit_code) == (
        "task",
        TaskState.INPUT_REQUIRED,
        "Which country?",
        0,
    )
    assert served.operations().count(Operation.SEND_MESSAGE.value) == 2


def test_no_follow_up_after_a_message(serve: Callable[..., Served]) -> None:
    served = serve(
        "direct", scenario_data("A direct message", card(), behaviour={"SendMessage": [{"reply": {"message": "hi"}}]})
    )
    result = run(served.card_url, "x", options(follow_up="more"))
    assert (result.kind, result.follow_up) == ("message", False)
    assert any("follow-up was not sent" in w for w in result.warnings)
    assert served.operations() == [Operation.SEND_MESSAGE.value]


def test_streamed_follow_up_reads_past_the_old_interrupted_snapshot(serve: Callable[..., Served]) -> None:
    served = serve("stream-multi", scenario_data("Which city, streamed", card(streaming=True), task=INTERRUPTED_SCRIPT))
    result = run(served.card_url, "x", options(follow_up="Paris", stream=True))
    assert (result.kind, result.state, result.streamed) == ("task", TaskState.COMPLETED, True)
    assert served.operations() == [Operation.SEND_STREAMING_MESSAGE.value] * 2
    assert message_of(served.calls()[1])["taskId"] == result.task_id


# ----------------------------------------------------------------------------------- webhook


def push_scenario(version: str = "1.0", binding: str = JSONRPC, **rest: Any) -> dict[str, Any]:
    return scenario_data(
        "Push to the client's webhook",
        card(iface(binding, version), pushNotifications=True),
        push={"probe_bad_credentials": True},
        **rest,
    )


@WIRE
def test_webhook_registered_inline_and_notifications_acknowledged(
    serve: Callable[..., Served], version: str, binding: str
) -> None:
    served = serve("push", push_scenario(version, binding))
    result = run(served.card_url, "x", options(webhook=True))
    assert result.exit_code == 0, result.to_json()
    assert (result.kind, result.state, result.text) == ("task", TaskState.COMPLETED, "echo: x")
    send = served.calls()[0]
    cfg = body_of(send)["configuration"]
    if version == "1.0":
        assert cfg["returnImmediately"] is True
        hook = cfg["taskPushNotificationConfig"]
        assert hook["authentication"]["scheme"] == "Bearer"
    else:
        assert cfg["blocking"] is False
        hook = cfg["pushNotificationConfig" if binding == JSONRPC else "pushNotification"]
        assert hook["authentication"]["schemes"] == ["Bearer"]
    assert hook["url"].startswith("http://127.0.0.1:") and hook["url"] == (result.webhook or {})["url"]
    pushes = served.pushes()
    probes = [p for p in pushes if p["push"]["probe"]]
    genuine = [p for p in pushes if not p["push"]["probe"]]
    assert [p["response"]["status"] for p in probes] == [401]
    assert genuine and all(p["response"]["status"] == 200 for p in genuine)
    webhook = dict(result.webhook or {})
    # 0.3 posts the whole Task: the artifact's event and the last status's are the same completed Task, kept once.
    assert webhook.pop("notifications") + webhook.pop("duplicates", 0) == len(genuine)
    assert webhook == {"url": hook["url"], "refused": 1}
    assert "webhook" in render_text(result)


def test_webhook_waits_for_the_interrupted_state_then_follows_up(serve: Callable[..., Served]) -> None:
    served = serve("push-multi", push_scenario(task=INTERRUPTED_SCRIPT))
    result = run(served.card_url, "x", options(webhook=True, follow_up="Paris"))
    assert (result.kind, result.state, result.follow_up) == ("task", TaskState.COMPLETED, True)
    sends = [c for c in served.calls() if c["operation"] == Operation.SEND_MESSAGE.value]
    assert len(sends) == 2 and "configuration" in body_of(sends[1])
    assert "taskPushNotificationConfig" not in body_of(sends[1])["configuration"]  # registered once, with the task
    states = [
        json.loads(p["body"]["text"]).get("statusUpdate", {}).get("status", {}).get("state")
        for p in served.pushes()
        if not p["push"]["probe"]
    ]
    assert TaskState.INPUT_REQUIRED.value in states and states[-1] == TaskState.COMPLETED.value
    assert all(p["response"]["status"] == (401 if p["push"]["probe"] else 200) for p in served.pushes())


def test_no_webhook_without_the_capability(serve: Callable[..., Served]) -> None:
    served = serve("no-push", scenario_data("No push", card(pushNotifications=False)))
    result = run(served.card_url, "x", options(webhook=True))
    assert result.state is TaskState.COMPLETED and result.webhook is None
    assert any("capabilities.pushNotifications" in w for w in result.warnings)
    assert "taskPushNotificationConfig" not in body_of(served.calls()[0]).get("configuration", {})
    assert served.pushes() == []


def test_webhook_falls_back_to_get_task(serve: Callable[..., Served]) -> None:
    # A webhook moves a task that moves on GetTask by itself, one step per follow_ms: at a minute per step no
    # notification comes in time, so the client falls back to GetTask.
    slow = {"get_task": 1, "follow_ms": 60_000}
    served = serve("push-get", push_scenario(task={"steps": ["SUBMITTED", "WORKING", "COMPLETED"], "advance": slow}))
    result = run(served.card_url, "x", options(webhook=True))
    assert result.state is TaskState.COMPLETED and result.follow_ups == 2
    assert served.operations() == [Operation.SEND_MESSAGE.value, Operation.GET_TASK.value, Operation.GET_TASK.value]


# ----------------------------------------------------------------------------------- token and extended card


def test_token_on_every_call(serve: Callable[..., Served]) -> None:
    served = serve(
        "token",
        scenario_data(
            "Bearer everywhere",
            card(),
            auth={"bearer": "s3cret", "scope": "all"},
            task={"steps": ["SUBMITTED", "WORKING", "COMPLETED"], "returns": "first"},
        ),
    )
    result = run(served.card_url, "x", options(token="s3cret"))
    assert result.state is TaskState.COMPLETED and result.follow_ups == 2
    assert [c["credentials"] for c in served.calls()] == ["valid"] * 3
    without = run(served.card_url, "x", options())
    assert (
        without.kind == "error"
        and without.error is not None
        and without.error["code"] == ErrorType.UNAUTHENTICATED.code
    )


EXTENDED_CARD = {**card(iface(HTTP_JSON)), "name": "actions agent (extended)"}


def extended_scenario(**rest: Any) -> dict[str, Any]:
    return scenario_data(
        "Extended card behind a token",
        card(iface(JSONRPC), iface(HTTP_JSON), extendedAgentCard=True),
        extended_card=EXTENDED_CARD,
        auth={"bearer": "s3cret", "scope": "extended_card"},
        **rest,
    )


def test_extended_card_fetched_with_the_token_and_its_interfaces_used(serve: Callable[..., Served]) -> None:
    served = serve("extended", extended_scenario())
    result = run(served.card_url, "x", options(token="s3cret", extended_card=True))
    assert result.exit_code == 0, result.to_json()
    assert result.extended_card and result.state is TaskState.COMPLETED
    first, second = served.calls()
    assert (first["operation"], first["kind"], first["credentials"]) == (
        Operation.GET_EXTENDED_CARD.value,
        "jsonrpc",
        "valid",
    )
    assert (second["operation"], second["kind"]) == (
        Operation.SEND_MESSAGE.value,
        "rest",
    )  # the extended card lists HTTP+JSON only
    assert result.interface is not None and result.interface.binding == HTTP_JSON
    assert result.to_json()["extended_card"] is True


def test_extended_card_without_the_token_is_a_warning(serve: Callable[..., Served]) -> None:
    served = serve("extended-no-token", extended_scenario())
    result = run(served.card_url, "x", options(extended_card=True))
    assert result.state is TaskState.COMPLETED and not result.extended_card
    assert any("GetExtendedAgentCard failed" in w for w in result.warnings)
    assert served.calls()[0]["credentials"] == "absent"


def test_extended_card_only_when_the_card_offers_it(serve: Callable[..., Served]) -> None:
    served = serve("no-extended", scenario_data("No extended card", card()))
    result = run(served.card_url, "x", options(extended_card=True, token="t"))
    assert result.state is TaskState.COMPLETED and not result.extended_card
    assert Operation.GET_EXTENDED_CARD.value not in served.operations()
    assert any("capabilities.extendedAgentCard" in w for w in result.warnings)


def test_v03_authenticated_extended_card(serve: Callable[..., Served]) -> None:
    public = {
        "protocolVersion": "0.3.0",
        "name": "old agent",
        "description": "d",
        "url": "{base_url}/a2a/jsonrpc",
        "preferredTransport": "JSONRPC",
        "version": "1",
        "capabilities": {},
        "supportsAuthenticatedExtendedCard": True,
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    served = serve(
        "v03-extended",
        scenario_data(
            "0.3 extended card",
            public,
            extended_card={**public, "name": "old agent (extended)"},
            auth={"bearer": "s3cret", "scope": "extended_card"},
        ),
    )
    result = run(served.card_url, "x", options(token="s3cret", extended_card=True))
    assert result.extended_card and result.state is TaskState.COMPLETED
    assert json.loads(served.calls()[0]["body"]["text"])["method"] == "agent/getAuthenticatedExtendedCard"


# ----------------------------------------------------------------------------------- resubscribe


def dropped_stream(interface: dict[str, str] | None = None, **rest: Any) -> dict[str, Any]:
    """The stream is reset right after the task's first snapshot; the task moves on every 400 ms (time enough to
    resubscribe before it finishes)."""
    return scenario_data(
        "The stream drops, the task goes on",
        card(interface or iface(), streaming=True),
        task={"steps": ["SUBMITTED", "WORKING", "COMPLETED"], "advance": {"after_ms": 400}},
        behaviour={"SendStreamingMessage": [{"reply": {"stream": {"drop_after": 1}}}], **rest.pop("behaviour", {})},
        **rest,
    )


@WIRE
def test_resubscribe_after_a_dropped_stream(serve: Callable[..., Served], version: str, binding: str) -> None:
    served = serve("drop", dropped_stream(iface(binding, version)))
    result = run(served.card_url, "x", options(stream=True, resubscribe=True))
    assert result.exit_code == 0, result.to_json()
    assert (result.state, result.text, result.resubscribed) == (TaskState.COMPLETED, "echo: x", True)
    assert served.operations() == [Operation.SEND_STREAMING_MESSAGE.value, Operation.SUBSCRIBE_TO_TASK.value]
    stream, subscribe = served.calls()
    assert any(event.get("dropped") for event in stream["events"])
    if binding == JSONRPC:
        assert body_of(subscribe)["id"] == result.task_id
    else:
        assert subscribe["path"].endswith(f"/tasks/{result.task_id}:subscribe")
    assert any("resubscribing" in w for w in result.warnings)


def test_without_the_action_a_dropped_stream_is_followed_up_with_get_task(serve: Callable[..., Served]) -> None:
    served = serve("drop-get", dropped_stream())
    result = run(served.card_url, "x", options(stream=True))
    assert not result.resubscribed
    assert served.operations()[:2] == [Operation.SEND_STREAMING_MESSAGE.value, Operation.GET_TASK.value]
    assert Operation.SUBSCRIBE_TO_TASK.value not in served.operations()


def test_failed_resubscription_falls_back_to_get_task(serve: Callable[..., Served]) -> None:
    served = serve(
        "drop-refused", dropped_stream(behaviour={"SubscribeToTask": [{"reply": {"error": "InternalError"}}]})
    )
    result = run(served.card_url, "x", options(stream=True, resubscribe=True))
    assert result.resubscribed and result.kind == "task"
    ops = served.operations()
    assert ops[:3] == [
        Operation.SEND_STREAMING_MESSAGE.value,
        Operation.SUBSCRIBE_TO_TASK.value,
        Operation.GET_TASK.value,
    ]
    assert ops.count(Operation.SUBSCRIBE_TO_TASK.value) == 1
    assert any("SubscribeToTask for task" in w and "failed" in w for w in result.warnings)


def test_stream_only_when_the_card_allows_it(serve: Callable[..., Served]) -> None:
    served = serve("no-stream", scenario_data("No streaming", card(streaming=False)))
    result = run(served.card_url, "x", options(stream=True, resubscribe=True))
    assert result.state is TaskState.COMPLETED and not result.streamed
    assert served.operations() == [Operation.SEND_MESSAGE.value]
    assert any("capabilities.streaming" in w for w in result.warnings)


# ----------------------------------------------------------------------------------- signatures


def signed_scenario(key: dict[str, Any], tamper: str = "none") -> dict[str, Any]:
    data = scenario_data("A signed card", card(), {"verify_signature": True})
    data["card"]["sign"] = {"key": key, "kid": "k1", "tamper": tamper}
    return data


def test_a_card_that_verifies_is_used(serve: Callable[..., Served]) -> None:
    key = test_key()
    served = serve("signed", signed_scenario(key))
    jwks = signing.public_jwks([{**key, "kid": "k1"}])
    result = run(served.card_url, "x", options(jwks=jwks))
    assert result.state is TaskState.COMPLETED
    assert result.signature is not None and (result.signature["verified"], result.signature["kid"]) == (True, "k1")


@pytest.mark.parametrize("tamper", ["payload", "unknown-kid", "unsigned", "other-key"])
def test_a_card_that_does_not_verify_is_never_used(serve: Callable[..., Served], tamper: str) -> None:
    key = test_key()
    data = signed_scenario(key, tamper if tamper in ("payload", "unknown-kid") else "none")
    if tamper == "unsigned":
        del data["card"]["sign"]
        data["client"]["action"] = {}
    served = serve(f"signed-{tamper}", data)
    trusted = test_key() if tamper == "other-key" else key
    result = run(served.card_url, "x", options(jwks=signing.public_jwks([{**trusted, "kid": "k1"}])))
    assert result.kind == "error" and result.exit_code == 1
    assert result.error is not None and result.error["type"] == "signature"
    assert result.error["message"].startswith("card signature does not verify: ")
    assert served.calls() == []


def test_verify_card_and_load_jwks(tmp_path: Path) -> None:
    key = test_key()
    signed = signing.sign(card(), key, "k1")
    jwks = signing.public_jwks([{**key, "kid": "k1"}])
    assert verify_card(signed, jwks)["kid"] == "k1"
    with pytest.raises(ClientFailure, match="carries no signature"):
        verify_card(card(), jwks)
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(jwks))
    assert load_jwks(path) == jwks
    path.write_text(json.dumps(jwks["keys"][0]))
    assert load_jwks(path) == {"keys": [jwks["keys"][0]]}
    for text in ("not json", "[1]"):
        path.write_text(text)
        with pytest.raises(UsageFailure):
            load_jwks(path)
    with pytest.raises(UsageFailure):
        load_jwks(tmp_path / "missing.json")


# ----------------------------------------------------------------------------------- unusable answers


@pytest.mark.parametrize(
    "reply",
    [
        {
            "raw": {
                "status": 500,
                "body": "<html><body>Internal Server Error</body></html>",
                "content_type": "text/html",
            }
        },
        {"raw": {"status": 200, "body": "this is not json", "content_type": "application/json"}},
        {"envelope": {"id": "wrong"}},
        {"envelope": {"both": True}},
        {"envelope": {"neither": True}},
        {"fault": {"kind": "truncate", "after_bytes": 20}},
        {"fault": "reset"},
    ],
    ids=["html-500", "not-json", "wrong-id", "both", "neither", "truncated", "reset"],
)
@pytest.mark.parametrize("operation", [Operation.SEND_MESSAGE, Operation.GET_TASK])
def test_an_unusable_answer_is_an_error(
    serve: Callable[..., Served], reply: dict[str, Any], operation: Operation
) -> None:
    script = {"steps": ["SUBMITTED", "COMPLETED"], "returns": "first"}
    served = serve(
        "unusable", scenario_data("Garbage", card(), task=script, behaviour={operation.value: [{"reply": reply}]})
    )
    result = run(served.card_url, "x", options())
    assert result.kind == "error" and result.exit_code == 1, result.to_json()
    assert result.error is not None and result.error["type"] in ("http", "invalid_response", "transport")
    assert served.operations()[-1] == operation.value


# ----------------------------------------------------------------------------------- the command line


def cli(
    *args: str, action: dict[str, Any] | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("A2A_LAB_")}
    if action is not None:
        base[handshake.ENV_ACTION] = json.dumps(action)
    return subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "client", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**base, **(env or {})},
        check=False,
    )


def test_cli_acts_on_the_environment(serve: Callable[..., Served]) -> None:
    served = serve(
        "cli-action",
        scenario_data("Which city?", card(), task=INTERRUPTED_SCRIPT, auth={"bearer": "tok", "scope": "all"}),
    )
    proc = cli(served.card_url, "weather", "--json", action={"follow_up": "Paris", "token": "tok", "surprise": 1})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    printed = json.loads(proc.stdout)
    assert (printed["state"], printed["follow_up"]) == (TaskState.COMPLETED.value, True)
    assert any("'surprise'" in w for w in printed["warnings"])
    assert [c["credentials"] for c in served.calls()] == ["valid", "valid"]


def test_cli_flags_win_over_the_action(serve: Callable[..., Served], tmp_path: Path) -> None:
    key = test_key()
    served = serve("cli-flags", signed_scenario(key))
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(signing.public_jwks([{**key, "kid": "k1"}])))
    wrong = signing.public_jwks([{**test_key(), "kid": "k1"}])
    refused = cli(served.card_url, "--json", action={"verify_signature": True, "jwks": wrong})
    assert refused.returncode == 1 and json.loads(refused.stdout)["error"]["type"] == "signature"
    assert served.calls() == []
    used = cli(
        served.card_url,
        "--json",
        "--verify-signature",
        str(path),
        "--follow-up",
        "more",
        action={"verify_signature": True, "jwks": wrong},
    )
    printed = json.loads(used.stdout)
    assert printed["signature"]["verified"] is True
    assert printed["follow_up"] is True and printed["error"]["code"] == ErrorType.UNSUPPORTED_OPERATION.code


def test_cli_usage_errors(tmp_path: Path) -> None:
    assert cli("http://127.0.0.1:1", action=None, env={handshake.ENV_ACTION: "{oops"}).returncode == 2
    assert cli("http://127.0.0.1:1", action={"stream": "yes"}).returncode == 2
    proc = cli("http://127.0.0.1:1", "--verify-signature", str(tmp_path / "none.json"))
    assert proc.returncode == 2 and "cannot read the key set" in proc.stderr


# ----------------------------------------------------------------------------------- scored by the harness


def harness_scenarios() -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    """Scenario name -> (YAML data, the checks that must PASS)."""
    key = test_key()
    expect_completed = {"result": "task", "state": "COMPLETED"}
    multi = scenario_data(
        "Which city?", card(), {"follow_up": "Paris"}, task=INTERRUPTED_SCRIPT, expect=expect_completed
    )
    terminal = scenario_data(
        "Writing to a finished task",
        card(),
        {"follow_up": "one more"},
        task={"steps": ["COMPLETED"]},
        expect={"result": "error"},
    )
    stream = scenario_data(
        "Streams when asked", card(iface(HTTP_JSON, "0.3"), streaming=True), {"stream": True}, expect=expect_completed
    )
    push = scenario_data(
        "Push to the client's webhook",
        card(iface(JSONRPC, "0.3"), pushNotifications=True),
        {"webhook": True},
        push={"probe_bad_credentials": True},
        task=INTERRUPTED_SCRIPT,
        expect={"result": "task", "state": "INPUT_REQUIRED"},
    )
    push_v1 = scenario_data(
        "Push to the client's webhook (1.0)",
        card(iface(HTTP_JSON), pushNotifications=True),
        {"webhook": True, "follow_up": "Lyon"},
        push={"probe_bad_credentials": True},
        task=INTERRUPTED_SCRIPT,
        expect=expect_completed,
    )
    auth = scenario_data(
        "Token and extended card",
        card(iface(JSONRPC), iface(HTTP_JSON), extendedAgentCard=True),
        {"token": "s3cret", "extended_card": True},
        extended_card=EXTENDED_CARD,
        auth={"bearer": "s3cret", "scope": "all"},
        expect=expect_completed,
    )
    resub = dropped_stream(expect=expect_completed)
    resub["client"]["action"] = {"stream": True, "resubscribe": True}
    signed = signed_scenario(key)
    signed["expect"] = expect_completed
    tampered = signed_scenario(key, "payload")
    tampered["expect"] = {"result": "none"}
    return {
        "multi-turn": (multi, ("MULTI-TURN", "RESULT-EXPECTED", "RESULT-MATCHES")),
        "terminal-follow-up": (terminal, ("MULTI-TURN", "RESULT-EXPECTED")),
        "streaming": (stream, ("STREAMING-USED", "RESULT-EXPECTED", "RESULT-MATCHES")),
        "push-v03": (push, ("PUSH-RECEIVER", "RESULT-EXPECTED", "RESULT-MATCHES")),
        "push-v1": (push_v1, ("PUSH-RECEIVER", "MULTI-TURN", "RESULT-EXPECTED", "RESULT-MATCHES")),
        "auth-extended": (auth, ("AUTH-PRESENTED", "EXTENDED-CARD", "RESULT-EXPECTED", "RESULT-MATCHES")),
        "resubscribe": (resub, ("RESUBSCRIBE", "STREAMING-USED", "RESULT-EXPECTED", "RESULT-MATCHES")),
        "signed": (signed, ("SIGNATURE-VERIFIED", "RESULT-EXPECTED")),
        "tampered": (tampered, ("SIGNATURE-VERIFIED", "RESULT-EXPECTED")),
    }


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[ScenarioResult, tuple[str, ...]]]:
    folder = tmp_path_factory.mktemp("action-scenarios")
    wanted = harness_scenarios()
    scenarios = []
    for name, (data, _) in wanted.items():
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        scenarios.append(load_file(path, f"lab/{name}"))
    client = f"{sys.executable} -m a2a_lab.harness.cli client {{card_url}}"
    results, _ = run_all(scenarios, RunOptions(client=client, timeout=20, jobs=3))
    return {r.id.removeprefix("lab/"): (r, wanted[r.id.removeprefix("lab/")][1]) for r in results}


@pytest.mark.parametrize("name", list(harness_scenarios()))
def test_the_harness_scores_every_action_as_passed(
    scored: dict[str, tuple[ScenarioResult, tuple[str, ...]]], name: str
) -> None:
    result, must_pass = scored[name]
    report = {
        c.id: f"{c.outcome.value}: {c.message}"
        for c in result.checks
        if c.outcome not in (Outcome.SKIPPED, Outcome.INFORMATIONAL)
    }
    for check_id in must_pass:
        found = result.check(check_id)
        assert found is not None and found.outcome is Outcome.PASS, (check_id, report, result.client)
    assert result.outcome is Outcome.PASS, (report, result.client)


def test_a_result_is_never_a_task_with_an_error_type(serve: Callable[..., Served]) -> None:
    """A GetTask that breaks mid-follow-up leaves an `error` result (its task id kept for the record)."""
    served = serve(
        "half",
        scenario_data(
            "GetTask breaks",
            card(),
            task={"steps": ["SUBMITTED", "COMPLETED"], "returns": "first"},
            behaviour={"GetTask": [{"reply": {"fault": "reset"}}]},
        ),
    )
    result: Result = run(served.card_url, "x", options())
    assert result.kind == "error" and result.task_id is not None
    assert result.to_json()["kind"] == "error"


# ----------------------------------------------------------------------------------- push as deployed


def stamped(task_id: str, state: TaskState, stamp: str) -> bytes:
    status = {"state": state.value, "timestamp": stamp}
    return json.dumps({"statusUpdate": {"taskId": task_id, "contextId": "c", "status": status}}).encode()


def test_receiver_checks_the_scheme_its_config_names() -> None:
    with WebhookReceiver(auth="Basic") as basic:
        user, _, secret = __import__("base64").b64decode(basic.credentials).decode().partition(":")
        assert user == "a2a-lab" and len(secret) >= 32
        assert basic.config()["authentication"] == {"scheme": "Basic", "credentials": basic.credentials}
        event = status_event("t1", TaskState.WORKING)
        assert post(basic, event, f"Basic {basic.credentials}").status_code == 200
        for wrong in (f"Bearer {basic.credentials}", "Basic " + PROBE_CREDENTIALS, None):
            refused = post(basic, event, wrong)
            assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Basic")
    with WebhookReceiver(auth="token") as token:
        assert token.config() == {"url": token.url, "token": token.token}, "no authentication: the token alone"
        event = status_event("t1", TaskState.WORKING)
        assert post(token, event, None, **{"X-A2A-Notification-Token": token.token}).status_code == 200
        assert post(token, event, None).status_code == 401
        assert post(token, event, f"Bearer {token.token}", **{"X-A2A-Notification-Token": "no"}).status_code == 401
    with pytest.raises(ValueError, match="Digest"):
        WebhookReceiver(auth="Digest")
    with pytest.raises(UsageFailure, match="webhook_auth"):
        action_options({"webhook_auth": "Digest"})
    assert action_options({"webhook_auth": "Basic", "push_configs": True})[0] == {
        "webhook_auth": "Basic",
        "push_configs": True,
    }


def test_receiver_keeps_a_redelivery_once_and_marks_what_would_move_the_task_back(receiver: WebhookReceiver) -> None:
    good = requests.bearer(receiver.credentials)
    working = stamped("t1", TaskState.WORKING, "2026-01-01T00:00:01.000Z")
    done = stamped("t1", TaskState.COMPLETED, "2026-01-01T00:00:02.000Z")
    older = stamped("t1", TaskState.WORKING, "2026-01-01T00:00:00.500Z")
    for body in (working, working, done, done, older, stamped("t1", TaskState.INPUT_REQUIRED, "2026-01-01T00:00:03Z")):
        assert post(receiver, body, good).status_code == 200, "every genuine delivery is acknowledged (§4.3.3)"
    notes = receiver.notifications("t1")
    assert [(n.state, n.stale) for n in notes] == [
        (TaskState.WORKING, False),
        (TaskState.COMPLETED, False),
        (TaskState.WORKING, True),  # older, and after a terminal state
        (TaskState.INPUT_REQUIRED, True),  # newer, but the task had ended
    ]
    assert receiver.summary() == {"url": receiver.url, "notifications": 4, "refused": 0, "duplicates": 2, "stale": 2}
    assert receiver.wait("t1", 0, lambda n: n.state is TaskState.INPUT_REQUIRED, 0.05) is None, "a stale one is no stop"
    with WebhookReceiver() as fresh:  # an older status before any terminal one is stale too
        for body in (working, older):
            post(fresh, body, requests.bearer(fresh.credentials))
        assert [n.stale for n in fresh.notifications()] == [False, True]


def test_folding_notifications_leaves_out_the_stale(serve: Callable[..., Served]) -> None:
    """With the GetTask budget spent, the task is what the notifications say: a late WORKING does not undo COMPLETED."""
    served = serve("push-late", {**push_scenario(), "push": {"reorder": True}})
    result = run(served.card_url, "x", options(webhook=True, follow=0))
    assert (result.kind, result.state) == ("task", TaskState.COMPLETED), result.to_json()
    states = [
        json.loads(p["body"]["text"]).get("statusUpdate", {}).get("status", {}).get("state") for p in served.pushes()
    ]
    assert states[-1] == TaskState.WORKING.value, "the late one came last"
    assert (result.webhook or {}).get("stale") == 1


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_push_configs_created_listed_read_and_deleted(serve: Callable[..., Served], version: str) -> None:
    served = serve("push-crud", push_scenario(version))
    result = run(served.card_url, "x", options(webhook=True, push_configs=True))
    assert (result.kind, result.state, result.text) == ("task", TaskState.COMPLETED, "echo: x"), result.to_json()
    assert not [w for w in result.warnings if "config" in w], result.warnings
    calls = [c["operation"] for c in served.calls() if c["operation"] != Operation.GET_TASK.value]
    assert calls == [
        Operation.SEND_MESSAGE.value,
        Operation.CREATE_PUSH_CONFIG.value,
        Operation.LIST_PUSH_CONFIGS.value,
        Operation.GET_PUSH_CONFIG.value,
        Operation.DELETE_PUSH_CONFIG.value,
    ]
    send = body_of(served.calls()[0])
    inline = [key for key in send["configuration"] if "push" in key.lower()]
    assert not inline and ("returnImmediately" if version == "1.0" else "blocking") in send["configuration"], inline
    get = body_of(next(c for c in served.calls() if c["operation"] == Operation.GET_PUSH_CONFIG.value))
    assert set(get) == ({"taskId", "id"} if version == "1.0" else {"id", "pushNotificationConfigId"})
    assert [p["response"]["status"] for p in served.pushes() if not p["push"]["probe"]] and all(
        p["response"]["status"] == 200 for p in served.pushes() if not p["push"]["probe"]
    )


def test_push_flags_win_over_the_action() -> None:
    import argparse

    from a2a_lab.harness.clients.refclient import command_line as client_command

    parser = argparse.ArgumentParser()
    client_command.add_arguments(parser)
    args = parser.parse_args(["--webhook", "--webhook-auth", "token", "--push-configs", "http://127.0.0.1:1"])
    env = {handshake.ENV_ACTION: json.dumps({"webhook_auth": "Basic"})}
    chosen, _ = client_command.options_from(args, env)
    assert (chosen.webhook, chosen.webhook_auth, chosen.push_configs) == (True, "token", True)
    with pytest.raises(SystemExit):
        parser.parse_args(["--webhook-auth", "Digest", "http://127.0.0.1:1"])
