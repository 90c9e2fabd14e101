"""Object shapes: canonical (1.0 ProtoJSON) <-> 0.3 JSON-RPC (`kind`, lowercase states) and 0.3 REST
(`content`, TASK_STATE_CANCELLED), states and roles in every spelling, and incoming messages with
problems named by field path."""

from __future__ import annotations

import copy

import pytest

from a2a_lab.protocol import params as params_core
from a2a_lab.protocol import requests, shapes, states
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.forms import V03_HTTP_JSON, V03_JSONRPC, V1_JSONRPC, Form
from a2a_lab.protocol.json_types import Message, Part, StreamResponse, Task
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.shapes import Problem
from a2a_lab.protocol.states import Role, TaskState
from a2a_lab.protocol.versions import Version

V1, V03 = Version.V1_0, Version.V0_3

USER_MSG: Message = {
    "messageId": "m-1",
    "role": "ROLE_USER",
    "parts": [{"text": "hi"}],
    "contextId": "c-1",
    "taskId": "t-1",
    "referenceTaskIds": ["t-0"],
    "metadata": {"k": "v"},
}
FILE_BYTES: Part = {"raw": "aGk=", "mediaType": "text/plain", "filename": "a.txt"}
FILE_URL: Part = {"url": "https://x/y.pdf", "mediaType": "application/pdf"}
TASK: Task = {
    "id": "t-1",
    "contextId": "c-1",
    "status": {
        "state": "TASK_STATE_CANCELED",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"messageId": "m-2", "role": "ROLE_AGENT", "parts": [{"text": "stopped"}]},
    },
    "history": [USER_MSG],
    "artifacts": [{"artifactId": "a-1", "name": "r", "parts": [{"text": "x"}, {"data": {"ok": True}}, FILE_BYTES]}],
    "metadata": {"m": 1},
}


# ------------------------------------------------------------------------------------ states and roles


@pytest.mark.parametrize(
    ("state", "v03"),
    [
        (TaskState.SUBMITTED, "submitted"),
        (TaskState.WORKING, "working"),
        (TaskState.COMPLETED, "completed"),
        (TaskState.FAILED, "failed"),
        (TaskState.CANCELED, "canceled"),
        (TaskState.INPUT_REQUIRED, "input-required"),
        (TaskState.REJECTED, "rejected"),
        (TaskState.AUTH_REQUIRED, "auth-required"),
        (TaskState.UNSPECIFIED, "unknown"),
    ],
)
def test_state_spellings(state: TaskState, v03: str) -> None:
    assert states.spell(state, V1_JSONRPC) == state.value
    assert states.spell(state, V03_JSONRPC) == v03
    rest = "TASK_STATE_CANCELLED" if state is TaskState.CANCELED else state.value
    assert states.spell(state, V03_HTTP_JSON) == rest
    for text in (state.value, v03, rest, state.short):
        assert states.parse(text) is state
    assert states.parse_strict(v03, V03_JSONRPC) is state
    assert states.parse_strict(state.value, V1_JSONRPC) is state
    assert states.parse_strict(rest, V03_HTTP_JSON) is state


def test_strict_state_parsing_refuses_other_versions_spellings() -> None:
    assert states.parse_strict("completed", V1_JSONRPC) is None
    assert states.parse_strict("TASK_STATE_COMPLETED", V03_JSONRPC) is None
    assert states.parse_strict("TASK_STATE_CANCELLED", V1_JSONRPC) is None
    assert states.parse_strict("TASK_STATE_CANCELED", V03_HTTP_JSON) is None
    assert states.parse("TASK_STATE_CANCELLED") is TaskState.CANCELED  # lenient parse knows the British spelling
    assert states.parse("COMPLETE") is None and states.parse(3) is None and states.parse(None) is None


def test_state_classes() -> None:
    assert {s for s in TaskState if s.terminal} == {
        TaskState.COMPLETED,
        TaskState.FAILED,
        TaskState.CANCELED,
        TaskState.REJECTED,
    }
    assert {s for s in TaskState if s.interrupted} == {TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED}
    assert {s for s in TaskState if s.stops} == {s for s in TaskState if s.terminal or s.interrupted}
    assert not TaskState.SUBMITTED.stops and not TaskState.WORKING.stops


def test_roles() -> None:
    assert (
        states.spell_role(Role.USER, V1_JSONRPC) == "ROLE_USER"
        and states.spell_role(Role.AGENT, V03_JSONRPC) == "agent"
    )
    assert states.spell_role(Role.AGENT, V03_HTTP_JSON) == "ROLE_AGENT"
    assert (
        states.parse_role("user", V03_JSONRPC) is Role.USER and states.parse_role("ROLE_USER", V1_JSONRPC) is Role.USER
    )
    assert states.parse_role("ROLE_USER", V03_HTTP_JSON) is Role.USER
    assert states.parse_role("user", V1_JSONRPC) is None and states.parse_role("ROLE_USER", V03_JSONRPC) is None
    assert states.parse_role("user", V03_HTTP_JSON) is None
    assert (
        states.parse_role("ROLE_UNSPECIFIED", V1_JSONRPC) is None
        and states.parse_role(None, V1_JSONRPC) is None
        and states.parse_role(1, V1_JSONRPC) is None
    )


# ------------------------------------------------------------------------------------ output: 1.0 is canonical


def test_v1_output_is_the_canonical_form_unchanged() -> None:
    assert shapes.message_out(USER_MSG, V1_JSONRPC) == USER_MSG
    assert shapes.task_out(TASK, V1_JSONRPC) == TASK
    assert shapes.send_result_out({"task": TASK}, V1_JSONRPC) == {"task": TASK}
    event: StreamResponse = {
        "statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}
    }
    assert shapes.stream_response_out(event, V1_JSONRPC) == event
    assert "final" not in shapes.stream_response_out(event, V1_JSONRPC)["statusUpdate"]  # removed in 1.0 (#1308)


# ------------------------------------------------------------------------------------ output: 0.3 JSON-RPC


def test_v03_jsonrpc_parts_have_kind() -> None:
    assert shapes.part_out({"text": "hi", "metadata": {"a": 1}}, V03_JSONRPC) == {
        "kind": "text",
        "text": "hi",
        "metadata": {"a": 1},
    }
    assert shapes.part_out({"data": {"ok": True}}, V03_JSONRPC) == {"kind": "data", "data": {"ok": True}}
    assert shapes.part_out({"data": [1, 2]}, V03_JSONRPC) == {
        "kind": "data",
        "data": {"value": [1, 2]},
    }  # 0.3 data holds an object
    assert shapes.part_out(FILE_BYTES, V03_JSONRPC) == {
        "kind": "file",
        "file": {"bytes": "aGk=", "mimeType": "text/plain", "name": "a.txt"},
    }
    assert shapes.part_out(FILE_URL, V03_JSONRPC) == {
        "kind": "file",
        "file": {"uri": "https://x/y.pdf", "mimeType": "application/pdf"},
    }


def test_v03_jsonrpc_message() -> None:
    out = shapes.message_out(USER_MSG, V03_JSONRPC)
    assert out == {
        "kind": "message",
        "messageId": "m-1",
        "role": "user",
        "parts": [{"kind": "text", "text": "hi"}],
        "contextId": "c-1",
        "taskId": "t-1",
        "referenceTaskIds": ["t-0"],
        "metadata": {"k": "v"},
    }
    assert shapes.message_out({**USER_MSG, "role": "ROLE_AGENT"}, V03_JSONRPC)["role"] == "agent"


def test_v03_jsonrpc_task() -> None:
    before = copy.deepcopy(TASK)
    out = shapes.task_out(TASK, V03_JSONRPC)
    assert before == TASK  # conversion never mutates the canonical task
    assert out["kind"] == "task" and out["id"] == "t-1" and out["contextId"] == "c-1" and out["metadata"] == {"m": 1}
    assert out["status"]["state"] == "canceled" and out["status"]["timestamp"] == "2026-01-01T00:00:00.000Z"
    assert out["status"]["message"]["kind"] == "message" and out["status"]["message"]["role"] == "agent"
    assert out["history"][0]["role"] == "user" and out["history"][0]["parts"] == [{"kind": "text", "text": "hi"}]
    assert out["artifacts"][0]["parts"] == [
        {"kind": "text", "text": "x"},
        {"kind": "data", "data": {"ok": True}},
        {"kind": "file", "file": {"bytes": "aGk=", "mimeType": "text/plain", "name": "a.txt"}},
    ]
    assert out["artifacts"][0]["artifactId"] == "a-1" and out["artifacts"][0]["name"] == "r"


def test_v03_jsonrpc_send_result_is_bare_with_kind() -> None:
    assert shapes.send_result_out({"task": TASK}, V03_JSONRPC)["kind"] == "task"
    msg = shapes.send_result_out({"message": {**USER_MSG, "role": "ROLE_AGENT"}}, V03_JSONRPC)
    assert msg["kind"] == "message" and msg["role"] == "agent" and "message" not in msg


@pytest.mark.parametrize(
    ("state", "final"),
    [
        ("TASK_STATE_WORKING", False),
        ("TASK_STATE_SUBMITTED", False),
        ("TASK_STATE_COMPLETED", True),
        ("TASK_STATE_FAILED", True),
        ("TASK_STATE_CANCELED", True),
        ("TASK_STATE_REJECTED", True),
        ("TASK_STATE_INPUT_REQUIRED", True),
        ("TASK_STATE_AUTH_REQUIRED", True),
    ],
)
def test_v03_status_updates_carry_final(state: str, final: bool) -> None:
    event: StreamResponse = {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": state}}}
    out = shapes.stream_response_out(event, V03_JSONRPC)
    assert out["kind"] == "status-update" and out["final"] is final
    assert out["status"]["state"] == states.spell(TaskState(state), V03_JSONRPC)
    rest = shapes.stream_response_out(event, V03_HTTP_JSON)
    assert (
        set(rest) == {"statusUpdate"} and rest["statusUpdate"]["final"] is final and "kind" not in rest["statusUpdate"]
    )
    assert event["statusUpdate"].get("final") is None  # not written back into the canonical event


def test_v03_stream_events() -> None:
    art: StreamResponse = {
        "artifactUpdate": {
            "taskId": "t",
            "contextId": "c",
            "artifact": {"artifactId": "a", "parts": [{"text": "x"}]},
            "lastChunk": True,
        }
    }
    out = shapes.stream_response_out(art, V03_JSONRPC)
    assert out == {
        "kind": "artifact-update",
        "taskId": "t",
        "contextId": "c",
        "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "x"}]},
        "lastChunk": True,
    }
    assert shapes.stream_response_out({"task": TASK}, V03_JSONRPC)["kind"] == "task"
    assert shapes.stream_response_out({"message": USER_MSG}, V03_JSONRPC)["kind"] == "message"


# ------------------------------------------------------------------------------------ output: 0.3 REST


def test_v03_rest_parts() -> None:
    assert shapes.part_out({"text": "hi"}, V03_HTTP_JSON) == {"text": "hi"}
    assert shapes.part_out({"data": {"ok": True}}, V03_HTTP_JSON) == {"data": {"data": {"ok": True}}}
    assert shapes.part_out(FILE_BYTES, V03_HTTP_JSON) == {
        "file": {"fileWithBytes": "aGk=", "mimeType": "text/plain", "name": "a.txt"}
    }
    assert shapes.part_out(FILE_URL, V03_HTTP_JSON) == {
        "file": {"fileWithUri": "https://x/y.pdf", "mimeType": "application/pdf"}
    }


def test_v03_rest_message_uses_content_and_proto_roles() -> None:
    out = shapes.message_out(USER_MSG, V03_HTTP_JSON)
    assert "kind" not in out and "parts" not in out and "referenceTaskIds" not in out
    assert out["content"] == [{"text": "hi"}] and out["role"] == "ROLE_USER"


def test_v03_rest_task_uses_cancelled_and_wraps_results() -> None:
    out = shapes.task_out(TASK, V03_HTTP_JSON)
    assert "kind" not in out
    assert out["status"]["state"] == "TASK_STATE_CANCELLED"
    assert out["status"]["message"]["role"] == "ROLE_AGENT" and out["status"]["message"]["content"] == [
        {"text": "stopped"}
    ]
    assert out["history"][0]["content"] == [{"text": "hi"}]
    assert out["artifacts"][0]["parts"][1] == {"data": {"data": {"ok": True}}}
    wrapped = shapes.send_result_out({"task": TASK}, V03_HTTP_JSON)
    assert set(wrapped) == {"task"} and wrapped["task"]["status"]["state"] == "TASK_STATE_CANCELLED"
    assert (
        shapes.stream_response_out({"task": TASK}, V03_HTTP_JSON)["task"]["status"]["state"] == "TASK_STATE_CANCELLED"
    )


def test_push_config_shapes() -> None:
    cfg = {
        "id": "p-1",
        "taskId": "t-1",
        "url": "https://hook",
        "token": "tok",
        "authentication": {"scheme": "Bearer", "credentials": "s"},
        "tenant": "x",
    }
    assert shapes.push_config_out(cfg, V1_JSONRPC) == cfg
    assert shapes.push_config_out(cfg, V03_JSONRPC) == {
        "taskId": "t-1",
        "pushNotificationConfig": {
            "id": "p-1",
            "url": "https://hook",
            "token": "tok",
            "authentication": {"schemes": ["Bearer"], "credentials": "s"},
        },
    }
    rest = shapes.push_config_out(cfg, V03_HTTP_JSON)
    assert (
        rest["name"] == "tasks/t-1/pushNotificationConfigs/p-1"
        and rest["pushNotificationConfig"]["url"] == "https://hook"
    )


@pytest.mark.parametrize(
    ("form", "key"),
    [
        (V1_JSONRPC, "taskPushNotificationConfig"),
        (V03_JSONRPC, "pushNotificationConfig"),
        (V03_HTTP_JSON, "pushNotification"),
    ],
)
def test_inline_webhook_member_per_form(form: Form, key: str) -> None:
    """A send's inline webhook: the request builder writes it, the server's reader and the checks find it there."""
    assert shapes.inline_push_key(form) == key
    hook = requests.push_config("https://hook.example/a2a", token="tok")
    params = {"message": USER_MSG, "configuration": requests.send_configuration(push=hook)}
    wire = requests.build(Operation.SEND_MESSAGE, form.version, form.binding, params)
    sent = wire.params if isinstance(wire, requests.RpcRequest) else wire.body
    assert isinstance(sent, dict) and isinstance(sent["configuration"], dict) and key in sent["configuration"]
    assert shapes.inline_push(sent["configuration"]) is not None
    read = params_core.read(Operation.SEND_MESSAGE, form, sent)
    assert read["configuration"]["taskPushNotificationConfig"]["url"] == "https://hook.example/a2a"


def test_inline_webhook_absent() -> None:
    assert shapes.inline_push({"returnImmediately": True}) is None
    assert shapes.inline_push({"pushNotificationConfig": None}) is None
    assert shapes.inline_push(None) is None
    assert shapes.INLINE_PUSH_KEYS == ("taskPushNotificationConfig", "pushNotificationConfig", "pushNotification")


# ------------------------------------------------------------------------------------ input


def test_parse_v1_message() -> None:
    msg, problems = shapes.parse_message(
        {**USER_MSG, "parts": [{"text": "a"}, FILE_BYTES, FILE_URL, {"data": 3}]}, V1_JSONRPC
    )
    assert problems == []
    assert msg is not None and msg["parts"] == [{"text": "a"}, FILE_BYTES, FILE_URL, {"data": 3}]
    assert msg["contextId"] == "c-1" and msg["taskId"] == "t-1" and msg["referenceTaskIds"] == ["t-0"]


def test_parse_v03_jsonrpc_message_into_canonical_form() -> None:
    raw = {
        "kind": "message",
        "messageId": "m",
        "role": "user",
        "parts": [
            {"kind": "text", "text": "a"},
            {"kind": "file", "file": {"bytes": "aGk=", "mimeType": "text/plain", "name": "a.txt"}},
            {"kind": "file", "file": {"uri": "https://x/y.pdf"}},
            {"kind": "data", "data": {"k": 1}},
        ],
    }
    msg, problems = shapes.parse_message(raw, V03_JSONRPC)
    assert problems == []
    assert msg == {
        "messageId": "m",
        "role": "ROLE_USER",
        "parts": [{"text": "a"}, FILE_BYTES, {"url": "https://x/y.pdf"}, {"data": {"k": 1}}],
    }


def test_parse_v03_rest_message_with_content() -> None:
    raw = {
        "messageId": "m",
        "role": "ROLE_USER",
        "content": [
            {"text": "a"},
            {"file": {"fileWithBytes": "aGk=", "mimeType": "text/plain", "name": "a.txt"}},
            {"data": {"data": {"k": 1}}},
        ],
    }
    msg, problems = shapes.parse_message(raw, V03_HTTP_JSON)
    assert problems == []
    assert msg == {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}, FILE_BYTES, {"data": {"k": 1}}]}
    # `parts` is tolerated under 0.3 REST too
    msg2, _ = shapes.parse_message({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}]}, V03_HTTP_JSON)
    assert msg2 is not None and msg2["parts"] == [{"text": "a"}]


def test_round_trip_through_every_form() -> None:
    canonical: Message = {
        "messageId": "m",
        "role": "ROLE_USER",
        "parts": [{"text": "a"}, FILE_BYTES, FILE_URL, {"data": {"k": 1}}],
    }
    for form in (V03_JSONRPC, V03_HTTP_JSON):
        wire = shapes.message_out(canonical, form)
        back, problems = shapes.parse_message(wire, form)
        assert problems == [] and back == canonical


def paths(problems: list[Problem]) -> list[str]:
    return [p.path for p in problems if not p.foreign]


def test_message_problems_name_their_fields() -> None:
    msg, problems = shapes.parse_message({"role": "user", "parts": []}, V1_JSONRPC, path="params.message")
    assert msg is None
    assert paths(problems) == ["params.message.messageId", "params.message.role", "params.message.parts"]
    role = next(p for p in problems if p.path == "params.message.role")
    assert "ROLE_USER or ROLE_AGENT" in role.message and "'user' is the 0.3 spelling" in role.message
    assert str(role).startswith("params.message.role: ")


def test_part_problems_name_their_index() -> None:
    raw = {
        "messageId": "m",
        "role": "ROLE_USER",
        "parts": [{"text": "a", "raw": "b"}, 5, {"raw": "!!!"}, {"text": 3}, {}, {"url": 9}],
    }
    msg, problems = shapes.parse_message(raw, V1_JSONRPC)
    assert msg is None
    assert paths(problems) == [
        "message.parts[0]",
        "message.parts[1]",
        "message.parts[2].raw",
        "message.parts[3].text",
        "message.parts[4]",
        "message.parts[5].url",
    ]


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ({"messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "a"}]}, "message.kind"),
        ({"kind": "msg", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "a"}]}, "message.kind"),
        (
            {"kind": "message", "messageId": "m", "role": "ROLE_USER", "parts": [{"kind": "text", "text": "a"}]},
            "message.role",
        ),
        ({"kind": "message", "messageId": "m", "role": "user", "parts": [{"text": "a"}]}, "message.parts[0].kind"),
        (
            {"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "image", "image": "a"}]},
            "message.parts[0].kind",
        ),
        ({"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text"}]}, "message.parts[0].text"),
        (
            {"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "data", "data": [1]}]},
            "message.parts[0].data",
        ),
        (
            {
                "kind": "message",
                "messageId": "m",
                "role": "user",
                "parts": [{"kind": "file", "file": {"bytes": "a", "uri": "b"}}],
            },
            "message.parts[0].file",
        ),
        (
            {"kind": "message", "messageId": "", "role": "user", "parts": [{"kind": "text", "text": "a"}]},
            "message.messageId",
        ),
        (
            {
                "kind": "message",
                "messageId": "m",
                "role": "user",
                "parts": [{"kind": "text", "text": "a"}],
                "taskId": 5,
            },
            "message.taskId",
        ),
        (
            {
                "kind": "message",
                "messageId": "m",
                "role": "user",
                "parts": [{"kind": "text", "text": "a"}],
                "metadata": [],
            },
            "message.metadata",
        ),
    ],
)
def test_v03_jsonrpc_problems(raw: dict, path: str) -> None:
    msg, problems = shapes.parse_message(raw, V03_JSONRPC)
    assert msg is None and path in paths(problems)


def test_v03_rest_problems() -> None:
    msg, problems = shapes.parse_message(
        {"messageId": "m", "role": "user", "content": [{"text": "a", "data": {}}]}, V03_HTTP_JSON
    )
    assert msg is None and paths(problems) == ["message.role", "message.content[0]"]
    _, problems = shapes.parse_message({"messageId": "m", "role": "ROLE_USER"}, V03_HTTP_JSON)
    assert paths(problems) == ["message.content"]


def test_lenient_kind_accepts_a_v03_message_without_kind() -> None:
    raw = {"messageId": "m", "role": "user", "parts": [{"text": "a"}]}
    msg, problems = shapes.parse_message(raw, V03_JSONRPC, lenient_kind=True)
    assert msg == {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}]}
    assert paths(problems) == []
    strict, problems = shapes.parse_message(raw, V03_JSONRPC)
    assert strict is None and "message.kind" in paths(problems)


def test_foreign_spellings_are_reported_but_tolerated() -> None:
    raw = {
        "message_id": "m",
        "role": "ROLE_USER",
        "kind": "message",
        "parts": [{"kind": "text", "text": "a", "mimeType": "text/plain"}],
    }
    msg, problems = shapes.parse_message(raw, V1_JSONRPC)
    assert msg is not None and msg["messageId"] == "m"
    foreign = {p.path for p in problems if p.foreign}
    assert foreign == {"message.message_id", "message.kind", "message.parts[0].kind", "message.parts[0].mimeType"}
    assert all(p.foreign for p in problems)


def test_parse_message_or_raise_gives_invalid_params_with_the_field() -> None:
    with pytest.raises(A2AError) as info:
        shapes.parse_message_or_raise(
            {"messageId": "m", "role": "user", "parts": [{"text": "a"}]}, V1_JSONRPC, path="params.message"
        )
    err = info.value
    assert err.type is ErrorType.INVALID_PARAMS and err.code == -32602 and err.field == "params.message.role"
    assert "params.message.role" in err.text
    assert (
        shapes.parse_message_or_raise({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}]}, V1_JSONRPC)[
            "role"
        ]
        == "ROLE_USER"
    )
    with pytest.raises(A2AError):
        shapes.parse_message_or_raise("nope", V1_JSONRPC)


def test_parse_push_config_from_each_version() -> None:
    v1, problems = shapes.parse_push_config(
        {
            "url": "http://h/x",
            "token": "t",
            "authentication": {"scheme": "Bearer", "credentials": "c"},
            "taskId": "t-1",
        },
        V1_JSONRPC,
        "params",
    )
    assert problems == [] and v1 == {
        "taskId": "t-1",
        "url": "http://h/x",
        "token": "t",
        "authentication": {"scheme": "Bearer", "credentials": "c"},
    }
    v03, problems = shapes.parse_push_config(
        {
            "taskId": "t-1",
            "pushNotificationConfig": {
                "id": "p",
                "url": "http://h/x",
                "authentication": {"schemes": ["Bearer"], "credentials": "c"},
            },
        },
        V03_JSONRPC,
        "params",
    )
    assert problems == [] and v03 == {
        "id": "p",
        "url": "http://h/x",
        "authentication": {"scheme": "Bearer", "credentials": "c"},
        "taskId": "t-1",
    }
    _, problems = shapes.parse_push_config({"taskId": "t"}, V1_JSONRPC, "params")
    assert paths(problems) == ["params.url"]
    _, problems = shapes.parse_push_config(
        {"url": "http://h", "authentication": {"credentials": "c"}}, V1_JSONRPC, "params"
    )
    assert paths(problems) == ["params.authentication.scheme"]


@pytest.mark.parametrize(
    ("raw", "version", "path"),
    [
        ({"url": "http://h", "id": ["x"]}, V1, "params.id"),
        ({"url": "http://h", "taskId": {"a": 1}}, V1, "params.taskId"),
        ({"url": "http://h", "token": 5}, V1, "params.token"),
        (
            {"url": "http://h", "authentication": {"scheme": "Bearer", "credentials": 5}},
            V1,
            "params.authentication.credentials",
        ),
        (
            {"taskId": "t", "pushNotificationConfig": {"url": "http://h", "authentication": {"schemes": 5}}},
            V03,
            "params.pushNotificationConfig.authentication.schemes",
        ),
        (
            {"taskId": "t", "pushNotificationConfig": {"url": "http://h", "authentication": {"schemes": [{}]}}},
            V03,
            "params.pushNotificationConfig.authentication.schemes",
        ),
        (
            {"taskId": "t", "pushNotificationConfig": {"url": "http://h", "id": [1]}},
            V03,
            "params.pushNotificationConfig.id",
        ),
        ({"taskId": 5, "pushNotificationConfig": {"url": "http://h"}}, V03, "params.taskId"),
    ],
)
def test_push_config_field_types_are_checked(raw: dict, version: Version, path: str) -> None:
    cfg, problems = shapes.parse_push_config(raw, Form(version, Binding.JSONRPC), "params")
    assert cfg is None and path in paths(problems)


def test_stream_event_kind_and_state() -> None:
    assert shapes.stream_event_kind({"statusUpdate": {}}, V1_JSONRPC) == "statusUpdate"
    assert shapes.stream_event_kind({"task": {}, "message": {}}, V1_JSONRPC) is None  # a oneof holds one member
    assert shapes.stream_event_kind({"kind": "artifact-update"}, V03_JSONRPC) == "artifactUpdate"
    assert shapes.stream_event_kind({"kind": "nope"}, V03_JSONRPC) is None
    assert shapes.stream_event_kind({"artifactUpdate": {}}, V03_HTTP_JSON) == "artifactUpdate"
    assert shapes.stream_event_kind([], V1_JSONRPC) is None
    assert shapes.event_state({"task": {"status": {"state": "TASK_STATE_WORKING"}}}, V1_JSONRPC) is TaskState.WORKING
    assert (
        shapes.event_state({"kind": "status-update", "status": {"state": "input-required"}}, V03_JSONRPC)
        is TaskState.INPUT_REQUIRED
    )
    assert (
        shapes.event_state({"statusUpdate": {"status": {"state": "TASK_STATE_CANCELLED"}}}, V03_HTTP_JSON)
        is TaskState.CANCELED
    )
    assert shapes.event_state({"artifactUpdate": {"artifact": {}}}, V1_JSONRPC) is None
    assert shapes.camel("push_notification_config") == "pushNotificationConfig"


def test_proto_field_names_are_tolerated_only_in_0_3_http_json() -> None:
    """0.3 HTTP+JSON is plain ProtoJSON, whose parsers accept proto (snake_case) names: a real client (a2a-handler
    0.4.0) sends `message_id` there. In 1.0 (§5.5 MUST camelCase) and the 0.3 JSON-RPC schema it stays a problem."""
    rest03 = {"message_id": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]}
    _, problems = shapes.parse_message(rest03, V03_HTTP_JSON)
    assert [p.path for p in problems] == ["message.message_id"] and problems[0].tolerated
    v1 = {"message_id": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    _, problems = shapes.parse_message(v1, V1_JSONRPC)
    assert any(p.path == "message.message_id" and not p.tolerated for p in problems)
    rpc03 = {"message_id": "m", "role": "user", "kind": "message", "parts": [{"kind": "text", "text": "hi"}]}
    _, problems = shapes.parse_message(rpc03, V03_JSONRPC)
    assert any(p.path == "message.message_id" and not p.tolerated for p in problems)
