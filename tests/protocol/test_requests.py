"""protocol.requests: wire requests from canonical params, checked by reading them back with params.read."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest

from a2a_lab.protocol import operations, params, requests
from a2a_lab.protocol.bindings import A2A_JSON, JSON, Binding
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.requests import RestRequest, RpcRequest, UnsupportedRequest
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import HEADER, Version

V1, V03 = Version.V1_0, Version.V0_3
MESSAGE = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}, {"data": {"k": 1}}]}


def send_params(**extra: Any) -> dict[str, Any]:
    return {"message": MESSAGE, "configuration": {"returnImmediately": False}, **extra}


def read_back(op: Operation, version: Version, binding: Binding, canonical: dict[str, Any]) -> dict[str, Any]:
    """Build the wire request and read it as the server does."""
    wire = requests.build(op, version, binding, canonical)
    if isinstance(wire, RpcRequest):
        assert operations.by_method(wire.method) == (op, version)
        return params.read(op, Form(version, Binding.JSONRPC), wire.params)
    found = operations.match_route(wire.verb, wire.path, (version,))
    assert found is not None, wire
    got_op, got_version, path_params, tenant = found
    assert (got_op, got_version) == (op, version)
    path_params = {k: unquote(v) for k, v in path_params.items()}
    if tenant:
        path_params["tenant"] = unquote(tenant)
    return params.read(op, Form(version, Binding.HTTP_JSON), wire.body or {}, path_params, wire.query)


# ----------------------------------------------------------------------------- JSON-RPC, SendMessage


def test_jsonrpc_1_0_send_message_is_canonical() -> None:
    wire = requests.build(Operation.SEND_MESSAGE, V1, Binding.JSONRPC, send_params())
    assert wire == RpcRequest("SendMessage", {"message": MESSAGE, "configuration": {"returnImmediately": False}})


def test_jsonrpc_0_3_send_message_has_kind_and_blocking() -> None:
    wire = requests.build(Operation.SEND_MESSAGE, V03, Binding.JSONRPC, send_params())
    assert isinstance(wire, RpcRequest)
    assert wire.method == "message/send"
    assert wire.params["message"] == {
        "kind": "message",
        "messageId": "m-1",
        "role": "user",
        "parts": [{"kind": "text", "text": "hi"}, {"kind": "data", "data": {"k": 1}}],
    }
    assert wire.params["configuration"] == {"blocking": True}


def test_jsonrpc_0_3_return_immediately_becomes_blocking_false() -> None:
    wire = requests.build(
        Operation.SEND_MESSAGE,
        V03,
        Binding.JSONRPC,
        {"message": MESSAGE, "configuration": {"returnImmediately": True, "historyLength": 2}},
    )
    assert isinstance(wire, RpcRequest)
    assert wire.params["configuration"] == {"blocking": False, "historyLength": 2}


def test_streaming_method_names() -> None:
    v1 = requests.build(Operation.SEND_STREAMING_MESSAGE, V1, Binding.JSONRPC, send_params())
    v03 = requests.build(Operation.SEND_STREAMING_MESSAGE, V03, Binding.JSONRPC, send_params())
    assert isinstance(v1, requests.RpcRequest) and isinstance(v03, requests.RpcRequest)
    assert v1.method == "SendStreamingMessage"
    assert v03.method == "message/stream"


def test_tenant_goes_into_jsonrpc_params() -> None:
    wire = requests.build(Operation.GET_TASK, V1, Binding.JSONRPC, {"id": "t-1", "tenant": "acme"})
    assert wire == RpcRequest("GetTask", {"id": "t-1", "tenant": "acme"})


def test_no_configuration_when_none_given() -> None:
    wire = requests.build(Operation.SEND_MESSAGE, V03, Binding.JSONRPC, {"message": MESSAGE})
    assert isinstance(wire, RpcRequest)
    assert "configuration" not in wire.params


# ----------------------------------------------------------------------------- JSON-RPC, tasks


def test_get_task_both_versions() -> None:
    assert requests.build(Operation.GET_TASK, V1, Binding.JSONRPC, {"id": "t-1", "historyLength": 0}) == RpcRequest(
        "GetTask", {"id": "t-1", "historyLength": 0}
    )
    assert requests.build(Operation.GET_TASK, V03, Binding.JSONRPC, {"id": "t-1"}) == RpcRequest(
        "tasks/get", {"id": "t-1"}
    )


def test_push_config_params_0_3_use_old_names() -> None:
    wire = requests.build(Operation.GET_PUSH_CONFIG, V03, Binding.JSONRPC, {"taskId": "t", "id": "c"})
    assert wire == RpcRequest("tasks/pushNotificationConfig/get", {"id": "t", "pushNotificationConfigId": "c"})
    create = requests.build(
        Operation.CREATE_PUSH_CONFIG,
        V03,
        Binding.JSONRPC,
        {"taskId": "t", "url": "https://hook", "authentication": {"scheme": "Bearer", "credentials": "x"}},
    )
    assert create == RpcRequest(
        "tasks/pushNotificationConfig/set",
        {
            "taskId": "t",
            "pushNotificationConfig": {
                "url": "https://hook",
                "authentication": {"schemes": ["Bearer"], "credentials": "x"},
            },
        },
    )


def test_list_tasks_has_no_0_3_jsonrpc_method() -> None:
    with pytest.raises(UnsupportedRequest, match="ListTasks"):
        requests.build(Operation.LIST_TASKS, V03, Binding.JSONRPC, {})


def test_missing_required_params_are_refused() -> None:
    with pytest.raises(UnsupportedRequest, match="`id`"):
        requests.build(Operation.GET_TASK, V1, Binding.JSONRPC, {})
    with pytest.raises(UnsupportedRequest, match="`message`"):
        requests.build(Operation.SEND_MESSAGE, V1, Binding.HTTP_JSON, {})


def test_grpc_is_not_built_as_a_json_request() -> None:
    with pytest.raises(UnsupportedRequest, match="GRPC"):
        requests.build(Operation.SEND_MESSAGE, V1, Binding.GRPC, send_params())


def test_grpc_request_is_the_v1_params_message_at_the_method_path() -> None:
    wire = requests.grpc_request(Operation.SEND_MESSAGE, V1, {**send_params(), "tenant": "acme"})
    rpc = requests.build(Operation.SEND_MESSAGE, V1, Binding.JSONRPC, {**send_params(), "tenant": "acme"})
    assert isinstance(wire, requests.GrpcRequest) and isinstance(rpc, RpcRequest)
    assert wire.path == "/lf.a2a.v1.A2AService/SendMessage"
    assert wire.message == rpc.params and wire.message["tenant"] == "acme"
    got = requests.grpc_request(Operation.GET_TASK, V1, {"id": "t1"})
    assert got.path.endswith("/GetTask") and got.message == {"id": "t1"}
    with pytest.raises(UnsupportedRequest, match=r"gRPC in A2A 1\.0"):
        requests.grpc_request(Operation.SEND_MESSAGE, V03, send_params())


# ----------------------------------------------------------------------------- HTTP+JSON


def test_rest_1_0_send_message() -> None:
    wire = requests.build(Operation.SEND_MESSAGE, V1, Binding.HTTP_JSON, send_params())
    assert wire == RestRequest(
        "POST", "/message:send", {}, {"message": MESSAGE, "configuration": {"returnImmediately": False}}
    )


def test_rest_1_0_tenant_is_a_path_prefix_not_a_body_field() -> None:
    wire = requests.build(Operation.SEND_MESSAGE, V1, Binding.HTTP_JSON, send_params(tenant="acme corp"))
    assert isinstance(wire, RestRequest)
    assert wire.path == "/acme%20corp/message:send"
    assert wire.body is not None and "tenant" not in wire.body


def test_rest_0_3_send_message_uses_content_and_v1_prefix() -> None:
    wire = requests.build(Operation.SEND_MESSAGE, V03, Binding.HTTP_JSON, send_params(tenant="ignored"))
    assert isinstance(wire, RestRequest)
    assert (wire.verb, wire.path) == ("POST", "/v1/message:send")
    assert wire.body == {
        "message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "hi"}, {"data": {"data": {"k": 1}}}]},
        "configuration": {"blocking": True},
    }


def test_rest_get_task_query_and_encoded_id() -> None:
    wire = requests.build(Operation.GET_TASK, V1, Binding.HTTP_JSON, {"id": "a/b", "historyLength": 3})
    assert wire == RestRequest("GET", "/tasks/a%2Fb", {"historyLength": "3"}, None)
    assert requests.build(Operation.GET_TASK, V03, Binding.HTTP_JSON, {"id": "t"}) == RestRequest(
        "GET", "/v1/tasks/t", {}, None
    )


def test_rest_list_tasks_query_spelling() -> None:
    wire = requests.build(
        Operation.LIST_TASKS,
        V1,
        Binding.HTTP_JSON,
        {"status": TaskState.WORKING, "includeArtifacts": True, "pageSize": 5},
    )
    assert wire == RestRequest(
        "GET", "/tasks", {"status": "TASK_STATE_WORKING", "pageSize": "5", "includeArtifacts": "true"}, None
    )


def test_rest_cancel_body_is_an_empty_object() -> None:
    assert requests.build(Operation.CANCEL_TASK, V1, Binding.HTTP_JSON, {"id": "t"}) == RestRequest(
        "POST", "/tasks/t:cancel", {}, {}
    )


def test_rest_subscribe_uses_post() -> None:
    wire = requests.build(Operation.SUBSCRIBE_TO_TASK, V1, Binding.HTTP_JSON, {"id": "t"})
    assert isinstance(wire, RestRequest) and wire.verb == "POST"


def test_rest_extended_card_paths() -> None:
    assert requests.build(Operation.GET_EXTENDED_CARD, V1, Binding.HTTP_JSON, {}) == RestRequest(
        "GET", "/extendedAgentCard", {}, None
    )
    assert requests.build(Operation.GET_EXTENDED_CARD, V03, Binding.HTTP_JSON, {}) == RestRequest(
        "GET", "/v1/card", {}, None
    )


# ----------------------------------------------------------------------------- service parameters


def test_content_types() -> None:
    assert requests.content_type(Binding.JSONRPC, V1) == JSON
    assert requests.content_type(Binding.JSONRPC, V03) == JSON
    assert requests.content_type(Binding.HTTP_JSON, V1) == A2A_JSON
    assert requests.content_type(Binding.HTTP_JSON, V03) == JSON


def test_version_header_only_for_1_0() -> None:
    assert requests.version_headers(V1) == {HEADER: "1.0"}
    assert requests.version_headers(V03) == {}


# ----------------------------------------------------------------------------- round trips


ROUND_TRIPS: list[tuple[Operation, dict[str, Any]]] = [
    (Operation.SEND_MESSAGE, send_params()),
    (
        Operation.SEND_MESSAGE,
        {
            "message": {**MESSAGE, "contextId": "c-1"},
            "configuration": {"returnImmediately": True, "historyLength": 1},
            "metadata": {"a": 1},
        },
    ),
    (Operation.SEND_STREAMING_MESSAGE, send_params()),
    (Operation.GET_TASK, {"id": "t-1", "historyLength": 2}),
    (Operation.CANCEL_TASK, {"id": "t-1"}),
    (Operation.SUBSCRIBE_TO_TASK, {"id": "t-1"}),
    (Operation.GET_PUSH_CONFIG, {"taskId": "t-1", "id": "c-1"}),
    (Operation.DELETE_PUSH_CONFIG, {"taskId": "t-1", "id": "c-1"}),
    (Operation.LIST_PUSH_CONFIGS, {"taskId": "t-1"}),
    (Operation.CREATE_PUSH_CONFIG, {"taskId": "t-1", "url": "https://hook.example/x", "token": "tok"}),
]


@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.HTTP_JSON], ids=["jsonrpc", "rest"])
@pytest.mark.parametrize("version", [V1, V03], ids=["1.0", "0.3"])
@pytest.mark.parametrize(
    ("op", "canonical"), ROUND_TRIPS, ids=[f"{op.value}-{i}" for i, (op, _) in enumerate(ROUND_TRIPS)]
)
def test_round_trip_through_params_read(
    op: Operation, canonical: dict[str, Any], version: Version, binding: Binding
) -> None:
    got = read_back(op, version, binding, canonical)
    for key, value in canonical.items():
        assert got[key] == value, key


@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.HTTP_JSON], ids=["jsonrpc", "rest"])
def test_round_trip_keeps_tenant_in_1_0(binding: Binding) -> None:
    got = read_back(Operation.GET_TASK, V1, binding, {"id": "t-1", "tenant": "acme"})
    assert got == {"id": "t-1", "tenant": "acme"}


def test_round_trip_list_tasks_rest() -> None:
    got = read_back(
        Operation.LIST_TASKS,
        V1,
        Binding.HTTP_JSON,
        {"contextId": "c", "status": "TASK_STATE_COMPLETED", "pageSize": 7, "includeArtifacts": True},
    )
    assert (
        got["contextId"] == "c"
        and got["status"] is TaskState.COMPLETED
        and got["pageSize"] == 7
        and got["includeArtifacts"] is True
    )
