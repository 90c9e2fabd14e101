"""Operation parameters: every version's and binding's spelling read into the canonical form, and
invalid params (-32602) that name the field at fault."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_lab.protocol import params
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.forms import V03_HTTP_JSON, V03_JSONRPC, V1_HTTP_JSON, V1_JSONRPC, Form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

V1, V03 = Version.V1_0, Version.V0_3
Op = Operation

MSG_V1 = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
MSG_V03 = {"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
MSG_V03_REST = {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "hi"}]}
CANONICAL_MSG = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}


def invalid(
    op: Operation,
    version: Version,
    rest: bool,
    body: Any,
    path_params: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
) -> A2AError:
    with pytest.raises(A2AError) as info:
        params.read(op, Form(version, Binding.HTTP_JSON if rest else Binding.JSONRPC), body, path_params, query)
    assert info.value.type is ErrorType.INVALID_PARAMS and info.value.code == -32602, info.value
    return info.value


# ------------------------------------------------------------------------------------ SendMessage


def test_send_message_v1_jsonrpc() -> None:
    out = params.read(
        Op.SEND_MESSAGE,
        V1_JSONRPC,
        {
            "message": MSG_V1,
            "configuration": {
                "historyLength": 2,
                "returnImmediately": True,
                "taskPushNotificationConfig": {
                    "url": "http://127.0.0.1/h",
                    "authentication": {"scheme": "Bearer", "credentials": "c"},
                },
            },
            "metadata": {"a": 1},
            "tenant": "acme",
        },
    )
    assert out == {
        "tenant": "acme",
        "message": CANONICAL_MSG,
        "metadata": {"a": 1},
        "configuration": {
            "returnImmediately": True,
            "historyLength": 2,
            "taskPushNotificationConfig": {
                "url": "http://127.0.0.1/h",
                "authentication": {"scheme": "Bearer", "credentials": "c"},
            },
        },
    }


def test_send_message_defaults_to_blocking() -> None:
    assert params.read(Op.SEND_MESSAGE, V1_JSONRPC, {"message": MSG_V1})["configuration"] == {
        "returnImmediately": False
    }
    assert params.read(Op.SEND_MESSAGE, V03_JSONRPC, {"message": MSG_V03})["configuration"] == {
        "returnImmediately": False
    }


def test_send_message_v03_jsonrpc_blocking_and_push() -> None:
    out = params.read(
        Op.SEND_MESSAGE,
        V03_JSONRPC,
        {
            "message": MSG_V03,
            "configuration": {
                "blocking": False,
                "historyLength": 0,
                "pushNotificationConfig": {
                    "url": "http://127.0.0.1/h",
                    "token": "tok",
                    "authentication": {"schemes": ["Bearer"], "credentials": "c"},
                },
            },
        },
    )
    assert out["message"] == CANONICAL_MSG
    assert out["configuration"] == {
        "returnImmediately": True,
        "historyLength": 0,
        "taskPushNotificationConfig": {
            "url": "http://127.0.0.1/h",
            "token": "tok",
            "authentication": {"scheme": "Bearer", "credentials": "c"},
        },
    }


def test_send_message_v03_rest_uses_content_and_push_notification() -> None:
    out = params.read(
        Op.SEND_MESSAGE,
        V03_HTTP_JSON,
        {
            "message": MSG_V03_REST,
            "configuration": {"blocking": True, "pushNotification": {"url": "http://127.0.0.1/h"}},
        },
    )
    assert out["message"] == CANONICAL_MSG
    assert out["configuration"] == {
        "returnImmediately": False,
        "taskPushNotificationConfig": {"url": "http://127.0.0.1/h"},
    }
    # the 0.3 proto names the message `request`
    assert params.read(Op.SEND_MESSAGE, V03_HTTP_JSON, {"request": MSG_V03_REST})["message"] == CANONICAL_MSG


def test_send_message_v1_rest_body_without_params_prefix() -> None:
    assert params.read(Op.SEND_MESSAGE, V1_HTTP_JSON, {"message": MSG_V1})["message"] == CANONICAL_MSG
    err = invalid(Op.SEND_MESSAGE, V1, True, {"message": {**MSG_V1, "role": "user"}})
    assert err.field == "message.role"  # REST fields are named from the body, without `params.`


def test_lenient_kind_is_passed_through() -> None:
    raw = {k: v for k, v in MSG_V03.items() if k != "kind"}
    assert params.read(Op.SEND_MESSAGE, V03_JSONRPC, {"message": raw}, lenient_kind=True)["message"] == CANONICAL_MSG
    assert invalid(Op.SEND_MESSAGE, V03, False, {"message": raw}).field == "params.message.kind"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "params.message"),
        ({"message": "hi"}, "params.message"),
        ({"message": {**MSG_V1, "role": "user"}}, "params.message.role"),
        ({"message": {**MSG_V1, "role": "ROLE_UNSPECIFIED"}}, "params.message.role"),
        ({"message": {**MSG_V1, "messageId": None}}, "params.message.messageId"),
        ({"message": {**MSG_V1, "parts": []}}, "params.message.parts"),
        ({"message": {**MSG_V1, "parts": [{"text": "a", "url": "b"}]}}, "params.message.parts[0]"),
        ({"message": {**MSG_V1, "parts": [{"text": "a"}, {"raw": "%%%"}]}}, "params.message.parts[1].raw"),
        ({"message": {**MSG_V1, "contextId": 1}}, "params.message.contextId"),
        ({"message": MSG_V1, "configuration": []}, "params.configuration"),
        ({"message": MSG_V1, "configuration": {"returnImmediately": "yes"}}, "params.configuration.returnImmediately"),
        ({"message": MSG_V1, "configuration": {"historyLength": -1}}, "params.configuration.historyLength"),
        ({"message": MSG_V1, "configuration": {"historyLength": 1.5}}, "params.configuration.historyLength"),
        ({"message": MSG_V1, "configuration": {"historyLength": True}}, "params.configuration.historyLength"),
        (
            {"message": MSG_V1, "configuration": {"taskPushNotificationConfig": {}}},
            "params.configuration.taskPushNotificationConfig.url",
        ),
        (
            {
                "message": MSG_V1,
                "configuration": {"taskPushNotificationConfig": {"url": "http://h", "authentication": {}}},
            },
            "params.configuration.taskPushNotificationConfig.authentication.scheme",
        ),
        (
            {"message": MSG_V1, "configuration": {"taskPushNotificationConfig": {"url": "http://h", "id": 7}}},
            "params.configuration.taskPushNotificationConfig.id",
        ),
    ],
)
def test_send_message_v1_invalid_params_name_the_field(body: dict[str, Any], field: str) -> None:
    err = invalid(Op.SEND_MESSAGE, V1, False, body)
    assert err.field == field
    assert field in err.text
    assert err.details()[-1]["fieldViolations"][0]["field"] == field


def test_v03_blocking_must_be_boolean() -> None:
    assert (
        invalid(Op.SEND_MESSAGE, V03, False, {"message": MSG_V03, "configuration": {"blocking": 1}}).field
        == "params.configuration.blocking"
    )


@pytest.mark.parametrize("body", [[], "x", 3, [MSG_V1]])
def test_params_must_be_an_object(body: Any) -> None:
    assert invalid(Op.SEND_MESSAGE, V1, False, body).field == "params"
    assert invalid(Op.GET_TASK, V1, True, body).field == "body"


def test_absent_params_are_empty() -> None:
    assert params.read(Op.GET_EXTENDED_CARD, V1_JSONRPC, None) == {}
    assert invalid(Op.GET_TASK, V1, False, None).field == "params.id"


# ------------------------------------------------------------------------------------ task operations


@pytest.mark.parametrize("op", [Op.GET_TASK, Op.CANCEL_TASK, Op.SUBSCRIBE_TO_TASK])
def test_task_id_operations(op: Operation) -> None:
    assert params.read(op, V1_JSONRPC, {"id": "t-1"}) == {"id": "t-1"}
    assert params.read(op, V03_JSONRPC, {"id": "t-1", "metadata": {}}) == {"id": "t-1"}
    assert params.read(op, V1_HTTP_JSON, {}, {"id": "t-1"}) == {"id": "t-1"}
    assert params.read(op, V1_HTTP_JSON, {}, {"id": "t-1"}, {}) == {"id": "t-1"}
    assert params.read(op, V1_HTTP_JSON, {}, {"id": "t-1", "tenant": "acme"}) == {"id": "t-1", "tenant": "acme"}
    for bad in ({}, {"id": ""}, {"id": 5}, {"id": None}, {"id": ["t"]}):
        assert invalid(op, V1, False, bad).field == "params.id"


def test_get_task_history_length_from_params_and_query() -> None:
    assert params.read(Op.GET_TASK, V1_JSONRPC, {"id": "t", "historyLength": 0}) == {"id": "t", "historyLength": 0}
    assert params.read(Op.GET_TASK, V1_HTTP_JSON, {}, {"id": "t"}, {"historyLength": "3"}) == {
        "id": "t",
        "historyLength": 3,
    }
    assert params.read(Op.GET_TASK, V1_HTTP_JSON, {}, {"id": "t"}, {"history_length": "2"}) == {
        "id": "t",
        "historyLength": 2,
    }  # snake_case query
    assert invalid(Op.GET_TASK, V1, True, {}, {"id": "t"}, {"historyLength": "-1"}).field == "historyLength"
    assert invalid(Op.GET_TASK, V1, True, {}, {"id": "t"}, {"historyLength": "lots"}).field == "historyLength"
    assert invalid(Op.GET_TASK, V1, False, {"id": "t", "historyLength": "2x"}).field == "params.historyLength"


def test_the_path_wins_over_the_body() -> None:
    assert params.read(Op.CANCEL_TASK, V1_HTTP_JSON, {"id": "from-body"}, {"id": "from-path"})["id"] == "from-path"
    assert params.read(
        Op.CREATE_PUSH_CONFIG, V1_HTTP_JSON, {"url": "http://h", "taskId": "other"}, {"taskId": "t"}
    ) == {
        "taskId": "t",
        "url": "http://h",
    }


def test_v03_rest_resource_names() -> None:
    assert params.read(Op.GET_TASK, V03_HTTP_JSON, {"name": "tasks/t-9"}) == {"id": "t-9"}


@pytest.mark.parametrize("text", ["²", "٣", "1e3", "0x10", " 4", "+4", "--4", "1" * 5000, "9" * 20])
def test_odd_numbers_in_query_are_invalid_params_not_crashes(text: str) -> None:
    assert invalid(Op.GET_TASK, V1, True, {}, {"id": "t"}, {"historyLength": text}).field == "historyLength"
    assert invalid(Op.LIST_TASKS, V1, True, {}, {}, {"pageSize": text}).field == "pageSize"
    assert invalid(Op.LIST_TASKS, V1, True, {}, {}, {"pageToken": text}).field == "pageToken"


# ------------------------------------------------------------------------------------ ListTasks


def test_list_tasks_defaults() -> None:
    assert params.read(Op.LIST_TASKS, V1_JSONRPC, {}) == {
        "pageSize": 50,
        "offset": 0,
        "includeArtifacts": False,
        "statusTimestampAfter": None,
    }


def test_list_tasks_from_query() -> None:
    out = params.read(
        Op.LIST_TASKS,
        V1_HTTP_JSON,
        {},
        {},
        {
            "pageSize": "10",
            "status": "TASK_STATE_WORKING",
            "includeArtifacts": "true",
            "pageToken": "20",
            "contextId": "c",
            "historyLength": "0",
            "statusTimestampAfter": "2026-01-01T00:00:00Z",
        },
    )
    assert out == {
        "contextId": "c",
        "status": TaskState.WORKING,
        "pageSize": 10,
        "offset": 20,
        "historyLength": 0,
        "includeArtifacts": True,
        "statusTimestampAfter": "2026-01-01T00:00:00Z",
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"pageSize": 0}, "params.pageSize"),
        ({"pageSize": 101}, "params.pageSize"),
        ({"pageSize": "many"}, "params.pageSize"),
        ({"status": "working"}, "params.status"),  # the 0.3 spelling is not a 1.0 enum value
        ({"status": "TASK_STATE_CANCELLED"}, "params.status"),
        ({"status": 3}, "params.status"),
        ({"pageToken": "abc"}, "params.pageToken"),
        ({"pageToken": 5}, "params.pageToken"),
        ({"includeArtifacts": "yes"}, "params.includeArtifacts"),
        ({"historyLength": -2}, "params.historyLength"),
        ({"statusTimestampAfter": 5}, "params.statusTimestampAfter"),
    ],
)
def test_list_tasks_validation(body: dict[str, Any], field: str) -> None:
    assert invalid(Op.LIST_TASKS, V1, False, body).field == field


def test_list_tasks_page_size_bounds_are_inclusive() -> None:
    assert params.read(Op.LIST_TASKS, V1_JSONRPC, {"pageSize": 1})["pageSize"] == 1
    assert params.read(Op.LIST_TASKS, V1_JSONRPC, {"pageSize": 100})["pageSize"] == 100


# ------------------------------------------------------------------------------------ push configs


def test_create_push_config_v1() -> None:
    body = {
        "taskId": "t",
        "url": "http://127.0.0.1/h",
        "token": "x",
        "authentication": {"scheme": "Bearer", "credentials": "c"},
    }
    assert params.read(Op.CREATE_PUSH_CONFIG, V1_JSONRPC, body) == body
    assert invalid(Op.CREATE_PUSH_CONFIG, V1, False, {"url": "http://h"}).field == "params.taskId"
    assert invalid(Op.CREATE_PUSH_CONFIG, V1, False, {"taskId": "t"}).field == "params.url"


def test_create_push_config_v03_jsonrpc_and_rest() -> None:
    body = {
        "taskId": "t",
        "pushNotificationConfig": {
            "id": "p",
            "url": "http://127.0.0.1/h",
            "authentication": {"schemes": ["Bearer"], "credentials": "c"},
        },
    }
    expected = {
        "taskId": "t",
        "id": "p",
        "url": "http://127.0.0.1/h",
        "authentication": {"scheme": "Bearer", "credentials": "c"},
    }
    assert params.read(Op.CREATE_PUSH_CONFIG, V03_JSONRPC, body) == expected
    # 0.3 REST: the body may be wrapped in `config` or bare; the task comes from the path
    assert (
        params.read(Op.CREATE_PUSH_CONFIG, V03_HTTP_JSON, {"config": body["pushNotificationConfig"]}, {"taskId": "t"})
        == expected
    )
    assert (
        params.read(Op.CREATE_PUSH_CONFIG, V03_HTTP_JSON, body["pushNotificationConfig"], {"taskId": "t"}) == expected
    )
    err = invalid(
        Op.CREATE_PUSH_CONFIG,
        V03,
        False,
        {"taskId": "t", "pushNotificationConfig": {"url": "http://h", "authentication": {"schemes": "Bearer"}}},
    )
    assert err.field == "params.pushNotificationConfig.authentication.schemes"


def test_get_list_delete_push_config_params() -> None:
    assert params.read(Op.GET_PUSH_CONFIG, V1_JSONRPC, {"taskId": "t", "id": "p"}) == {"taskId": "t", "id": "p"}
    assert params.read(Op.LIST_PUSH_CONFIGS, V1_JSONRPC, {"taskId": "t"}) == {"taskId": "t"}
    assert params.read(Op.DELETE_PUSH_CONFIG, V1_HTTP_JSON, {}, {"taskId": "t", "id": "p"}) == {
        "taskId": "t",
        "id": "p",
    }
    assert invalid(Op.GET_PUSH_CONFIG, V1, False, {"taskId": "t"}).field == "params.id"
    assert invalid(Op.LIST_PUSH_CONFIGS, V1, False, {"id": "t"}).field == "params.taskId"
    # 0.3 JSON-RPC: `id` is the task, `pushNotificationConfigId` the config (optional for get, required for delete)
    assert params.read(Op.GET_PUSH_CONFIG, V03_JSONRPC, {"id": "t"}) == {"taskId": "t"}
    assert params.read(Op.GET_PUSH_CONFIG, V03_JSONRPC, {"id": "t", "pushNotificationConfigId": "p"}) == {
        "taskId": "t",
        "id": "p",
    }
    assert params.read(Op.LIST_PUSH_CONFIGS, V03_JSONRPC, {"id": "t"}) == {"taskId": "t"}
    assert params.read(Op.DELETE_PUSH_CONFIG, V03_JSONRPC, {"id": "t", "pushNotificationConfigId": "p"}) == {
        "taskId": "t",
        "id": "p",
    }
    assert invalid(Op.DELETE_PUSH_CONFIG, V03, False, {"id": "t"}).field == "params.pushNotificationConfigId"
    assert (
        invalid(Op.GET_PUSH_CONFIG, V03, False, {"id": "t", "pushNotificationConfigId": 3}).field
        == "params.pushNotificationConfigId"
    )
    # 0.3 REST: both from the path
    assert params.read(Op.GET_PUSH_CONFIG, V03_HTTP_JSON, {}, {"taskId": "t", "id": "p"}) == {"taskId": "t", "id": "p"}


def test_extended_card_takes_only_a_tenant() -> None:
    assert params.read(Op.GET_EXTENDED_CARD, V1_JSONRPC, {"tenant": "acme", "other": 1}) == {"tenant": "acme"}
    assert params.read(Op.GET_EXTENDED_CARD, V1_JSONRPC, {"tenant": ""}) == {}


def test_accepted_output_modes_are_kept() -> None:
    for form, msg in ((V1_JSONRPC, MSG_V1), (V03_JSONRPC, MSG_V03)):
        told = {"message": msg, "configuration": {"acceptedOutputModes": ["text/plain"]}}
        assert params.read(Op.SEND_MESSAGE, form, told)["configuration"]["acceptedOutputModes"] == ["text/plain"]
    with pytest.raises(A2AError) as bad:
        params.read(Op.SEND_MESSAGE, V1_JSONRPC, {"message": MSG_V1, "configuration": {"acceptedOutputModes": "x"}})
    assert bad.value.field == "params.configuration.acceptedOutputModes"


def test_unknown_members_refused_only_when_asked() -> None:
    """A member the 1.0 proto does not define is ignored (§5.7) unless `refuse_unknown`: then -32602 as protobuf's
    strict parser words it. 0.3 requests are never judged by the 1.0 proto."""
    extra = {"message": MSG_V1, "configuration": {"blocking": True}}
    assert params.read(Op.SEND_MESSAGE, V1_JSONRPC, extra)["message"] == CANONICAL_MSG
    for form in (V1_JSONRPC, V1_HTTP_JSON):
        with pytest.raises(A2AError) as refused:
            params.read(Op.SEND_MESSAGE, form, extra, refuse_unknown=True)
        assert refused.value.type is ErrorType.INVALID_PARAMS
        assert 'has no field named "blocking" at "SendMessageRequest.configuration"' in str(refused.value.message)
    assert params.read(Op.GET_TASK, V1_JSONRPC, {"id": "t-1", "historyLength": 2}, refuse_unknown=True)["id"] == "t-1"
    v03 = {"message": MSG_V03, "configuration": {"blocking": True}, "futureField": 1}
    assert (
        params.read(Op.SEND_MESSAGE, V03_JSONRPC, v03, refuse_unknown=True)["configuration"]["returnImmediately"]
        is False
    )


@pytest.mark.parametrize(
    ("form", "msg"),
    [(V1_JSONRPC, MSG_V1), (V1_HTTP_JSON, MSG_V1), (V03_JSONRPC, MSG_V03), (V03_HTTP_JSON, MSG_V03_REST)],
)
@pytest.mark.parametrize("configuration", [{}, {"configuration": None}, {"configuration": {}}])
def test_a_send_without_configuration_reads_as_an_empty_one(
    form: Form, msg: dict[str, Any], configuration: dict[str, Any]
) -> None:
    """No configuration, null and {} read alike (the common case takes a short path): blocking, nothing else; the
    message's metadata is still read."""
    sent = params.read(Op.SEND_MESSAGE, form, {"message": msg, "metadata": {"k": "v"}, **configuration})
    assert sent["configuration"] == {"returnImmediately": False}
    assert sent["metadata"] == {"k": "v"}
    assert sent["message"] == CANONICAL_MSG


@pytest.mark.parametrize("configuration", [[], "", 0, False])
def test_a_configuration_that_is_not_an_object_is_refused_even_when_empty(configuration: Any) -> None:
    err = invalid(Op.SEND_MESSAGE, V1, False, {"message": MSG_V1, "configuration": configuration})
    assert "configuration" in str(err)
