"""The official a2a-sdk 1.3.0 Python client (written by others) against a2a-lab's server.

Real HTTP on loopback: the `serve` fixture runs a scenario under uvicorn on port 0, the SDK resolves
its card, picks an interface and talks to it; the assertions read both what the SDK returned and
what the server's journal recorded on the wire. No mocks, no sleeps.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import pytest
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.compat.v0_3.jsonrpc_transport import CompatJsonRpcTransport
from a2a.types.a2a_pb2 import (
    AgentCard,
    AgentInterface,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from a2a.utils.errors import A2AError, MethodNotFoundError
from google.protobuf.json_format import MessageToDict

T = TypeVar("T")

#: Upper bound for one whole SDK conversation; a hang fails the test instead of stalling the run.
CONVERSATION_TIMEOUT_S = 10.0


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, CONVERSATION_TIMEOUT_S))


def user_message(text: str, message_id: str = "sdk-msg-1") -> SendMessageRequest:
    return SendMessageRequest(message=Message(message_id=message_id, role=Role.ROLE_USER, parts=[Part(text=text)]))


@asynccontextmanager
async def sdk_client(
    base_url: str, keep: Callable[[AgentInterface], bool] | None = None, **config: Any
) -> AsyncIterator[tuple[Client, AgentCard]]:
    """An SDK client for the agent at `base_url`, made the way the SDK's README does it.

    The factory is built first so that it puts its `A2A-Version: 1.0` default header on the shared
    httpx client (as `create_client` does), then A2ACardResolver fetches and parses the card.
    `keep` narrows the card's interfaces (to point the SDK at one of them).
    """
    async with httpx.AsyncClient(trust_env=False, timeout=CONVERSATION_TIMEOUT_S) as http:
        factory = ClientFactory(ClientConfig(httpx_client=http, **config))
        card = await A2ACardResolver(http, base_url).get_agent_card()
        if keep is not None:
            kept = [i for i in card.supported_interfaces if keep(i)]
            del card.supported_interfaces[:]
            card.supported_interfaces.extend(kept)
        client = factory.create(card)
        try:
            yield client, card
        finally:
            await client.close()


async def collect(client: Client, request: SendMessageRequest) -> list[StreamResponse]:
    return [event async for event in client.send_message(request)]


def kind_of(event: StreamResponse) -> str:
    return str(event.WhichOneof("payload"))


def a2a_calls(journal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The journal entries of A2A operations (everything but the card fetch)."""
    return [e for e in journal if e["kind"] in ("jsonrpc", "rest")]


def body_of(entry: dict[str, Any]) -> Any:
    text = entry["body"].get("text", "")
    return json.loads(text) if text else None


def card_fetches(journal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in journal if e["kind"] == "card"]


# --------------------------------------------------------------------------- spec/conformant


@dataclass(frozen=True)
class Route:
    """One way the SDK can reach spec/conformant, and what the server must then see."""

    binding: str  # the ClientConfig binding: JSONRPC | HTTP+JSON
    version: str  # the card interface the SDK is pointed at: 1.0 (the SDK's own pick) or 0.3 (compat)
    streaming: bool
    send_path: str  # the path the send arrives at
    send_method: str | None  # the JSON-RPC method name (None for HTTP+JSON)
    operation: str  # the canonical operation the server mapped it to
    get_task_method: str | None  # the JSON-RPC GetTask name (None for HTTP+JSON)
    get_task_path: str  # the path GetTask arrives at; {id} is the task id

    @property
    def id(self) -> str:
        return f"{self.binding}-{self.version}-{'stream' if self.streaming else 'unary'}"


ROUTES = [
    Route("JSONRPC", "1.0", False, "/a2a/jsonrpc", "SendMessage", "SendMessage", "GetTask", "/a2a/jsonrpc"),
    Route(
        "JSONRPC",
        "1.0",
        True,
        "/a2a/jsonrpc",
        "SendStreamingMessage",
        "SendStreamingMessage",
        "GetTask",
        "/a2a/jsonrpc",
    ),
    Route("HTTP+JSON", "1.0", False, "/a2a/rest/message:send", None, "SendMessage", None, "/a2a/rest/tasks/{id}"),
    Route(
        "HTTP+JSON", "1.0", True, "/a2a/rest/message:stream", None, "SendStreamingMessage", None, "/a2a/rest/tasks/{id}"
    ),
    # The 0.3 interfaces of the same card: the SDK's compat transports (CompatJsonRpcTransport, CompatRestTransport).
    Route("JSONRPC", "0.3", False, "/a2a/jsonrpc", "message/send", "SendMessage", "tasks/get", "/a2a/jsonrpc"),
    Route(
        "JSONRPC", "0.3", True, "/a2a/jsonrpc", "message/stream", "SendStreamingMessage", "tasks/get", "/a2a/jsonrpc"
    ),
    Route("HTTP+JSON", "0.3", False, "/a2a/rest/v1/message:send", None, "SendMessage", None, "/a2a/rest/v1/tasks/{id}"),
    Route(
        "HTTP+JSON",
        "0.3",
        True,
        "/a2a/rest/v1/message:stream",
        None,
        "SendStreamingMessage",
        None,
        "/a2a/rest/v1/tasks/{id}",
    ),
]


@pytest.mark.parametrize("route", ROUTES, ids=[r.id for r in ROUTES])
def test_conformant_sdk_client_gets_completed_echo_task(serve, route: Route) -> None:
    served = serve("spec/conformant")
    text = f"hello from the a2a-sdk over {route.id}"
    # 1.0: the card as served (the SDK itself prefers the 1.0 interface); 0.3: only the 0.3 interfaces.
    keep = None if route.version == "1.0" else (lambda i: i.protocol_version == "0.3")
    bindings = [] if route.binding == "JSONRPC" else [route.binding]  # [] is the SDK default: JSON-RPC only

    async def conversation() -> tuple[list[StreamResponse], Any, str]:
        async with sdk_client(served.url, keep, streaming=route.streaming, supported_protocol_bindings=bindings) as (
            client,
            card,
        ):
            assert card.capabilities.streaming is True
            assert card.name == "a2a-lab conformant agent"
            events = await collect(client, user_message(text))
            task_id = events[0].task.id
            got = await client.get_task(GetTaskRequest(id=task_id))
            return events, got, task_id

    events, got, task_id = run(conversation())
    echo = f"echo: {text}"

    # What the SDK handed back.
    if route.streaming:
        assert [kind_of(e) for e in events] == ["task", "status_update", "artifact_update", "status_update"]
        assert events[0].task.status.state == TaskState.TASK_STATE_SUBMITTED
        assert events[1].status_update.status.state == TaskState.TASK_STATE_WORKING
        artifact = events[2].artifact_update.artifact
        assert events[2].artifact_update.task_id == task_id
        assert [p.text for p in artifact.parts] == [echo]
        final = events[3].status_update
        assert final.task_id == task_id and final.status.state == TaskState.TASK_STATE_COMPLETED
        # GetTask agrees with what the stream said.
        assert got.id == task_id
        assert got.status == final.status
        assert list(got.artifacts) == [artifact]
    else:
        assert [kind_of(e) for e in events] == ["task"]
        task = events[0].task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert [[p.text for p in a.parts] for a in task.artifacts] == [[echo]]
        assert got == task  # GetTask on a terminal task: the very same task
    assert task_id and isinstance(task_id, str)

    # What arrived on the wire.
    journal = served.journal
    (card_get,) = card_fetches(journal)
    assert card_get["method"] == "GET" and card_get["path"] == "/.well-known/agent-card.json"
    assert card_get["headers"].get("a2a-version") == "1.0"  # the factory's default header, on the card fetch too
    calls = a2a_calls(journal)
    assert len(calls) == 2, [(c["method"], c["path"]) for c in calls]
    send, get = calls
    assert (send["method"], send["path"]) == ("POST", route.send_path)
    assert send["operation"] == route.operation and send["version"] == route.version
    assert send["headers"].get("a2a-version") == route.version
    assert send["answer"]["result_kind"] == "task"
    if route.streaming:
        assert "text/event-stream" in send["headers"].get("accept", "")
        assert send["response"]["content_type"] == "text/event-stream"
        assert len(send["events"]) == 4
    expected_get_path = route.get_task_path.format(id=task_id)
    assert (get["path"], get["operation"], get["version"]) == (expected_get_path, "GetTask", route.version)
    assert get["headers"].get("a2a-version") == route.version
    assert get["answer"]["state"] == "TASK_STATE_COMPLETED"

    body = body_of(send)
    if route.send_method is not None:  # JSON-RPC: method, string id, params
        assert send["rpc"]["method"] == route.send_method
        assert isinstance(send["rpc"]["id"], str) and send["rpc"]["id"]
        assert get["rpc"]["method"] == route.get_task_method
        assert body_of(get)["params"] == {"id": task_id}
        params = body["params"]
    else:
        params = body
        assert get["method"] == "GET" and body_of(get) is None
    if route.version == "1.0":
        # 1.0 ProtoJSON: ROLE_USER, bare text part, an (empty) configuration object.
        assert params == {
            "message": {"messageId": "sdk-msg-1", "role": "ROLE_USER", "parts": [{"text": text}]},
            "configuration": {},
        }
    elif route.binding == "JSONRPC":
        # 0.3 JSON-RPC: kind discriminators, lowercase role, blocking: true.
        assert params == {
            "configuration": {"blocking": True},
            "message": {
                "kind": "message",
                "messageId": "sdk-msg-1",
                "parts": [{"kind": "text", "text": text}],
                "role": "user",
            },
        }
    else:
        # 0.3 REST: ProtoJSON of the 0.3 proto with proto field names (`request`, `message_id`, `content`).
        assert params == {
            "request": {"message_id": "sdk-msg-1", "role": "ROLE_USER", "content": [{"text": text}]},
            "configuration": {"blocking": True},
        }


def test_conformant_sdk_picks_the_first_listed_1_0_interface_by_default(serve) -> None:
    """With the card as served and a default config, the SDK uses JSON-RPC 1.0 (not the 0.3 twin on the same URL)."""
    served = serve("spec/conformant")

    async def conversation() -> str:
        async with sdk_client(served.url) as (client, _card):
            return type(client._transport).__name__  # type: ignore[attr-defined]  # the SDK keeps it private

    assert run(conversation()) == "JsonRpcTransport"
    assert a2a_calls(served.journal) == []  # creating a client sends nothing


# --------------------------------------------------------------------------- quirks/mixed-version-direct-message


def test_mixed_version_card_sdk_gets_direct_message_and_does_not_poll(serve) -> None:
    served = serve("quirks/mixed-version-direct-message")

    async def conversation() -> tuple[AgentCard, list[StreamResponse]]:
        async with sdk_client(served.url) as (client, card):  # default config: streaming=True, but the card says false
            return card, await collect(client, user_message("help"))

    card, events = run(conversation())
    # parse_agent_card drops the leftover top-level protocolVersion; the interface list stands.
    assert [(i.protocol_binding, i.protocol_version) for i in card.supported_interfaces] == [
        ("JSONRPC", "1.0"),
        ("JSONRPC", "0.3"),
    ]
    assert [kind_of(e) for e in events] == ["message"]
    message = events[0].message
    assert message.role == Role.ROLE_AGENT
    assert [p.text for p in message.parts] == ["peerlace understands: search <term>, stats, help."]
    assert message.message_id and message.context_id

    calls = a2a_calls(served.journal)
    assert [(c["path"], c["rpc"]["method"], c["version"], c["headers"].get("a2a-version")) for c in calls] == [
        ("/a2a", "SendMessage", "1.0", "1.0")
    ]
    assert calls[0]["answer"] == {"result_kind": "message"}
    assert not any(c.get("operation") == "GetTask" for c in calls)


# --------------------------------------------------------------------------- quirks/advertised-method-not-found


def test_method_not_found_raises_sdk_method_not_found_error_without_retry(serve) -> None:
    served = serve("quirks/advertised-method-not-found")
    events: list[StreamResponse] = []

    async def conversation() -> None:
        async with sdk_client(served.url) as (client, _card):
            async for event in client.send_message(user_message("hello")):
                events.append(event)

    with pytest.raises(A2AError) as raised:
        run(conversation())
    # The SDK maps JSON-RPC -32601 to a2a.utils.errors.MethodNotFoundError carrying the server's message.
    assert type(raised.value) is MethodNotFoundError
    assert raised.value.message == "Method not found"
    assert raised.value.data is None  # the server sent no ErrorInfo details
    assert events == []

    calls = a2a_calls(served.journal)
    assert len(calls) == 1, [c.get("rpc") for c in calls]  # no retry, no fallback
    (call,) = calls
    assert (call["method"], call["path"], call["rpc"]["method"]) == ("POST", "/api/a2a", "SendMessage")
    assert call["headers"].get("a2a-version") == "1.0"
    assert call["answer"] == {"result_kind": "error", "code": -32601}
    error = json.loads(call["response"]["body"]["text"])["error"]
    assert error["code"] == -32601


# --------------------------------------------------------------------------- spec/task/submitted-needs-get-task


@pytest.mark.parametrize("polling", [False, True], ids=["default-config", "polling"])
def test_submitted_task_then_get_task_shows_working_then_completed(serve, polling: bool) -> None:
    served = serve("spec/task/submitted-needs-get-task")
    text = "Please process this in the background."

    async def conversation() -> tuple[list[StreamResponse], list[Any]]:
        async with sdk_client(served.url, polling=polling) as (client, _card):
            events = await collect(client, user_message(text))
            task_id = events[0].task.id
            polled = [await client.get_task(GetTaskRequest(id=task_id)) for _ in range(3)]
            return events, polled

    events, polled = run(conversation())
    assert [kind_of(e) for e in events] == ["task"]
    task = events[0].task
    assert task.status.state == TaskState.TASK_STATE_SUBMITTED
    assert list(task.artifacts) == []
    assert [t.id for t in polled] == [task.id] * 3
    assert [t.status.state for t in polled] == [
        TaskState.TASK_STATE_WORKING,
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_COMPLETED,
    ]
    assert list(polled[0].artifacts) == []
    assert [[p.text for p in a.parts] for a in polled[1].artifacts] == [[f"done: {text}"]]
    assert polled[2] == polled[1]  # a terminal task does not change

    calls = a2a_calls(served.journal)
    assert [c["rpc"]["method"] for c in calls] == ["SendMessage", "GetTask", "GetTask", "GetTask"]
    assert [c["answer"]["state"] for c in calls] == [
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_COMPLETED",
    ]
    assert all(c["headers"].get("a2a-version") == "1.0" for c in calls)
    # ClientConfig(polling=True) becomes configuration.returnImmediately; the default sends an empty configuration.
    assert body_of(calls[0])["params"]["configuration"] == ({"returnImmediately": True} if polling else {})


# --------------------------------------------------------------------------- quirks/v03-completed-task-artifacts


def test_v03_only_card_sdk_uses_compat_transport_and_reads_artifacts(serve) -> None:
    served = serve("quirks/v03-completed-task-artifacts")
    text = "Validate https://example.com/llms.txt"

    async def conversation() -> tuple[AgentCard, str, list[StreamResponse]]:
        async with sdk_client(served.url) as (client, card):
            transport = type(client._transport).__name__  # type: ignore[attr-defined]  # the SDK keeps it private
            return card, transport, await collect(client, user_message(text))

    card, transport, events = run(conversation())
    # parse_agent_card rewrote the 0.3 card (url + protocolVersion) into one supportedInterfaces entry.
    assert [(i.url, i.protocol_binding, i.protocol_version) for i in card.supported_interfaces] == [
        (f"{served.url}/a2a", "JSONRPC", "0.3.0")
    ]
    assert transport == CompatJsonRpcTransport.__name__
    assert [kind_of(e) for e in events] == ["task"]
    task = events[0].task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert len(task.artifacts) == 1
    artifact = MessageToDict(task.artifacts[0])
    assert artifact["artifactId"] == "report" and artifact["name"] == "report"
    assert artifact["parts"] == [
        {"text": "llms.txt is valid: score 100/100"},
        {"data": {"ok": True, "score": 100, "issues": []}},
    ]

    calls = a2a_calls(served.journal)
    assert len(calls) == 1  # a completed task: no tasks/get follow-up
    (call,) = calls
    assert (call["method"], call["path"], call["rpc"]["method"]) == ("POST", "/a2a", "message/send")
    assert (call["operation"], call["version"], call["headers"].get("a2a-version")) == ("SendMessage", "0.3", "0.3")
    assert body_of(call)["params"] == {
        "configuration": {"blocking": True},
        "message": {
            "kind": "message",
            "messageId": "sdk-msg-1",
            "parts": [{"kind": "text", "text": text}],
            "role": "user",
        },
    }
    assert call["answer"]["state"] == "TASK_STATE_COMPLETED"
