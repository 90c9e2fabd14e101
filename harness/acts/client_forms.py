"""The forms in which an ACTS client test's payloads (§10, `client_response`) are served, one scenario per test, and
what the client's run shows on the wire.

Every client step of a test is served in the same run, each where a client meets it:

- `send_message`: the answer to SendMessage (the JSON-RPC id echoed);
- `send_streaming_message`: the events of SendStreamingMessage (a list of JSON-RPC responses, or one), the card
  declaring streaming and the client asked to stream;
- `get_task`: SendMessage answers a WORKING task (the payload's task id), and GetTask, the follow-up a correct client
  makes, answers the payload (a task or an error);
- `get_agent_card`: the card itself, its `supportedInterfaces` replaced by the lab's JSON-RPC interface (the payloads
  name example.com, which a loopback run never reaches); the client is asked to stream and to register a webhook, so
  the wire shows whether it honours the card's capabilities (the capability form);
- `get_extended_agent_card`: the extended card (interfaces replaced likewise), behind an auth challenge: the agent
  answers GetExtendedAgentCard 401 without the bearer token the client is handed (`token`, `extended_card`).

A control run of the same test, its card declaring streaming and push notifications, tells whether the client uses
those capabilities at all: only then does its not using them show that it read a card that declares them false.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from a2a_lab.contract.journal_record import CredentialStatus, EntryKind
from a2a_lab.harness.acts.document import Step, Test
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

#: The operations whose payloads a2a-lab serves to a client, each in the form above.
SERVED = (
    "send_message",
    "send_streaming_message",
    "get_task",
    "get_agent_card",
    "get_extended_agent_card",
)
CARD_OPERATIONS = ("get_agent_card", "get_extended_agent_card")
#: The bearer token the extended card's auth challenge accepts (a test value, handed to the client in the action).
TOKEN = "acts-client-test-token-0123456789"
#: The capabilities whose use the wire shows, and the call that uses each.
WIRE_CAPABILITIES = ("streaming", "pushNotifications")
_ID = "__acts_request_id__"
_PUSH_OPERATIONS = frozenset({Operation.CREATE_PUSH_CONFIG})


def lab_interface() -> list[dict[str, str]]:
    return [{"url": "{base_url}/a2a", "protocolBinding": Binding.JSONRPC.value, "protocolVersion": Version.V1_0.value}]


def _card(payload: Any, test: Test) -> dict[str, Any]:
    """A card payload as served: as written, with the lab's interface in place of the payload's."""
    card = dict(payload) if isinstance(payload, dict) else {}
    card.setdefault("name", f"ACTS {test.id}")
    card.setdefault("description", "a2a-lab serving an ACTS client test's payload")
    card.setdefault("version", "1.0.0")
    card.setdefault("defaultInputModes", ["text/plain"])
    card.setdefault("defaultOutputModes", ["text/plain"])
    card.setdefault("skills", [{"id": "acts", "name": "ACTS", "description": "an ACTS golden payload", "tags": []}])
    card["supportedInterfaces"] = lab_interface()
    if not isinstance(card.get("capabilities"), dict):
        card["capabilities"] = {}
    return card


def _raw(payload: Any) -> dict[str, Any]:
    return {"reply": {"raw": {"body": json.dumps(payload), "echo_id": True}}}


def _events(payload: Any) -> dict[str, Any]:
    events = payload if isinstance(payload, list) else [payload]
    texts = []
    for event in events:
        text = json.dumps({**event, "id": _ID} if isinstance(event, dict) and "id" in event else event)
        texts.append({"text": text.replace(json.dumps(_ID), "{request_id}")})
    return {"reply": {"raw": {"events": texts, "fill": True}}}


def task_id_of(payload: Any) -> str:
    """The task a GetTask payload is about (its result's id), or a stand-in for an error payload."""
    result = payload.get("result") if isinstance(payload, dict) else None
    found = result.get("id") if isinstance(result, dict) else None
    return found if isinstance(found, str) and found else "acts-task-1"


def _working(payload: Any) -> dict[str, Any]:
    result = payload.get("result") if isinstance(payload, dict) else None
    context = result.get("contextId") if isinstance(result, dict) else None
    task = {"id": task_id_of(payload), "contextId": context or "acts-context-1"}
    task["status"] = {"state": "TASK_STATE_WORKING"}
    return _raw({"jsonrpc": "2.0", "id": "1", "result": {"task": task}})


def scenario_data(test: Test, control: bool = False) -> dict[str, Any]:
    """The scenario that serves every client step of `test`; `control`: its card declares streaming and push
    notifications, and no extended card is served (the control run of the capability form)."""
    steps = {s.client_operation: s for s in test.steps if s.kind == "client"}
    card = _card(steps["get_agent_card"].wire_payload, test) if "get_agent_card" in steps else _card({}, test)
    action: dict[str, Any] = {}
    behaviour: dict[str, Any] = {}
    data: dict[str, Any] = {
        "title": f"ACTS {test.id}: {test.name}" + (" (control: capabilities declared)" if control else ""),
        "description": f"ACTS 0.1.0 client test {test.id}: its golden payloads, served as docs/how-to/acts.md says.",
        "spec": f"ACTS 0.1.0 §10; {test.spec_ref or test.doc_spec_ref or 'A2A 1.0'}",
        "timeout": 30,
    }
    if "send_message" in steps:
        behaviour[Operation.SEND_MESSAGE.value] = [_raw(steps["send_message"].wire_payload)]
    if "send_streaming_message" in steps:
        card["capabilities"] = {**card["capabilities"], "streaming": True}
        action["stream"] = True
        behaviour[Operation.SEND_STREAMING_MESSAGE.value] = [_events(steps["send_streaming_message"].wire_payload)]
    if "get_task" in steps:
        payload = steps["get_task"].wire_payload
        behaviour[Operation.SEND_MESSAGE.value] = [_working(payload)]
        behaviour[Operation.GET_TASK.value] = [_raw(payload)]
    if "get_agent_card" in steps:
        action.update(stream=True, webhook=True)
    if "get_extended_agent_card" in steps and not control:
        card["capabilities"] = {**card["capabilities"], "extendedAgentCard": True}
        data["extended_card"] = _card(steps["get_extended_agent_card"].wire_payload, test)
        data["auth"] = {"bearer": TOKEN, "scope": "extended_card"}
        action.update(extended_card=True, token=TOKEN)
    if control:
        card["capabilities"] = {**card["capabilities"], **dict.fromkeys(WIRE_CAPABILITIES, True)}
    data["card"] = {"object": card}
    if action:
        data["client"] = {"action": action}
    if behaviour:
        data["behaviour"] = behaviour
    return data


def needs_control(test: Test) -> bool:
    return any(s.kind == "client" and s.client_operation in CARD_OPERATIONS for s in test.steps)


@dataclass(frozen=True)
class Wire:
    """What one run of a client showed on the wire."""

    operations: frozenset[Operation]
    #: The client registered a push config (inline in its message, or with CreateTaskPushNotificationConfig).
    pushed: bool
    #: The client fetched the extended card with the credentials the auth challenge asks for.
    extended: bool
    card_fetched: bool

    @property
    def streamed(self) -> bool:
        return Operation.SEND_STREAMING_MESSAGE in self.operations

    def uses(self, capability: str) -> bool:
        return self.streamed if capability == "streaming" else self.pushed


def wire_of(records: list[Any]) -> Wire:
    calls = [e for e in records if e.kind.is_call and e.operation is not None]
    pushed = any(e.operation in _PUSH_OPERATIONS or _inline_push(e) for e in calls)
    extended = any(
        e.operation is Operation.GET_EXTENDED_CARD and e.credentials is CredentialStatus.VALID for e in calls
    )
    return Wire(frozenset(e.operation for e in calls), pushed, extended, any(e.kind is EntryKind.CARD for e in records))


def _inline_push(entry: Any) -> bool:
    if entry.operation not in (Operation.SEND_MESSAGE, Operation.SEND_STREAMING_MESSAGE):
        return False
    try:
        body = json.loads(entry.body.text or "null")
    except ValueError:
        return False
    params = body.get("params", body) if isinstance(body, dict) else {}
    config = params.get("configuration") if isinstance(params, dict) else None
    return isinstance(config, dict) and any("push" in key.lower() and config[key] for key in config)


def leaves(expected: Any, prefix: str = "") -> list[str]:
    """The dot-paths of an expect_parsed's leaves (an operator map is a leaf)."""
    if not isinstance(expected, dict) or not expected or all(k in _OPERATOR_KEYS for k in expected):
        return [prefix]
    out: list[str] = []
    for key, value in expected.items():
        out += leaves(value, f"{prefix}.{key}" if prefix else key)
    return out


def _operator_keys() -> frozenset[str]:
    from a2a_lab.harness.acts.document import OPERATORS

    return frozenset(OPERATORS)


_OPERATOR_KEYS = _operator_keys()


def client_steps(test: Test) -> list[Step]:
    return [s for s in test.steps if s.kind == "client"]
