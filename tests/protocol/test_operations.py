"""The operation table: JSON-RPC method names, HTTP+JSON routes (with /{tenant} twins and 0.3 /v1 paths),
and the JSON-RPC envelope rules."""

from __future__ import annotations

import pytest

from a2a_lab.protocol import jsonrpc, operations
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.operations import SPECS, Operation, Route, by_method, match_route, method_name, path_exists
from a2a_lab.protocol.versions import Version

V1, V03 = Version.V1_0, Version.V0_3

# ------------------------------------------------------------------------------------ JSON-RPC names

V1_METHODS = {
    "SendMessage": Operation.SEND_MESSAGE,
    "SendStreamingMessage": Operation.SEND_STREAMING_MESSAGE,
    "GetTask": Operation.GET_TASK,
    "ListTasks": Operation.LIST_TASKS,
    "CancelTask": Operation.CANCEL_TASK,
    "SubscribeToTask": Operation.SUBSCRIBE_TO_TASK,
    "CreateTaskPushNotificationConfig": Operation.CREATE_PUSH_CONFIG,
    "GetTaskPushNotificationConfig": Operation.GET_PUSH_CONFIG,
    "ListTaskPushNotificationConfigs": Operation.LIST_PUSH_CONFIGS,
    "DeleteTaskPushNotificationConfig": Operation.DELETE_PUSH_CONFIG,
    "GetExtendedAgentCard": Operation.GET_EXTENDED_CARD,
}
V03_METHODS = {
    "message/send": Operation.SEND_MESSAGE,
    "message/stream": Operation.SEND_STREAMING_MESSAGE,
    "tasks/get": Operation.GET_TASK,
    "tasks/cancel": Operation.CANCEL_TASK,
    "tasks/resubscribe": Operation.SUBSCRIBE_TO_TASK,
    "tasks/pushNotificationConfig/set": Operation.CREATE_PUSH_CONFIG,
    "tasks/pushNotificationConfig/get": Operation.GET_PUSH_CONFIG,
    "tasks/pushNotificationConfig/list": Operation.LIST_PUSH_CONFIGS,
    "tasks/pushNotificationConfig/delete": Operation.DELETE_PUSH_CONFIG,
    "agent/getAuthenticatedExtendedCard": Operation.GET_EXTENDED_CARD,
}


@pytest.mark.parametrize(("method", "op"), sorted(V1_METHODS.items()))
def test_v1_method_names_map_to_their_operation(method: str, op: Operation) -> None:
    assert by_method(method) == (op, V1)
    assert method_name(op, V1) == method


@pytest.mark.parametrize(("method", "op"), sorted(V03_METHODS.items()))
def test_v03_method_names_map_to_their_operation(method: str, op: Operation) -> None:
    assert by_method(method) == (op, V03)
    assert method_name(op, V03) == method


def test_every_operation_has_a_v1_name_and_list_tasks_has_no_v03_name() -> None:
    assert set(operations.all_method_names(V1)) == set(V1_METHODS)
    assert set(operations.all_method_names(V03)) == set(V03_METHODS)
    assert set(operations.all_method_names()) == set(V1_METHODS) | set(V03_METHODS)
    assert method_name(Operation.LIST_TASKS, V03) is None
    assert len(Operation) == 11 and set(SPECS) == set(Operation)


@pytest.mark.parametrize(
    "method",
    [
        "sendMessage",
        "SendMessages",
        "message/Send",
        "tasks/list",
        "ListTask",
        "ListTaskPushNotificationConfig",
        "tasks/subscribe",
        "",
        " SendMessage",
        "task/get",
    ],
)
def test_unknown_or_misspelled_methods_are_not_found(method: str) -> None:
    assert by_method(method) is None


def test_capabilities_and_streaming_flags() -> None:
    assert (
        SPECS[Operation.SEND_STREAMING_MESSAGE].streaming
        and SPECS[Operation.SEND_STREAMING_MESSAGE].capability == "streaming"
    )
    assert SPECS[Operation.SUBSCRIBE_TO_TASK].streaming and SPECS[Operation.SUBSCRIBE_TO_TASK].capability == "streaming"
    assert not SPECS[Operation.SEND_MESSAGE].streaming and SPECS[Operation.SEND_MESSAGE].capability is None
    for op in (
        Operation.CREATE_PUSH_CONFIG,
        Operation.GET_PUSH_CONFIG,
        Operation.LIST_PUSH_CONFIGS,
        Operation.DELETE_PUSH_CONFIG,
    ):
        assert SPECS[op].capability == "pushNotifications"
    assert SPECS[Operation.GET_EXTENDED_CARD].capability == "extendedAgentCard"


# ------------------------------------------------------------------------------------ HTTP+JSON routes

V1_ROUTES = [
    ("POST", "/message:send", Operation.SEND_MESSAGE, {}),
    ("POST", "/message:stream", Operation.SEND_STREAMING_MESSAGE, {}),
    ("GET", "/tasks/t-1", Operation.GET_TASK, {"id": "t-1"}),
    ("GET", "/tasks", Operation.LIST_TASKS, {}),
    ("POST", "/tasks/t-1:cancel", Operation.CANCEL_TASK, {"id": "t-1"}),
    ("POST", "/tasks/t-1:subscribe", Operation.SUBSCRIBE_TO_TASK, {"id": "t-1"}),
    ("GET", "/tasks/t-1:subscribe", Operation.SUBSCRIBE_TO_TASK, {"id": "t-1"}),
    ("POST", "/tasks/t-1/pushNotificationConfigs", Operation.CREATE_PUSH_CONFIG, {"taskId": "t-1"}),
    ("GET", "/tasks/t-1/pushNotificationConfigs/c-9", Operation.GET_PUSH_CONFIG, {"taskId": "t-1", "id": "c-9"}),
    ("GET", "/tasks/t-1/pushNotificationConfigs", Operation.LIST_PUSH_CONFIGS, {"taskId": "t-1"}),
    ("DELETE", "/tasks/t-1/pushNotificationConfigs/c-9", Operation.DELETE_PUSH_CONFIG, {"taskId": "t-1", "id": "c-9"}),
    ("GET", "/extendedAgentCard", Operation.GET_EXTENDED_CARD, {}),
]

V03_ROUTES = [
    ("POST", "/v1/message:send", Operation.SEND_MESSAGE, {}),
    ("POST", "/v1/message:stream", Operation.SEND_STREAMING_MESSAGE, {}),
    ("GET", "/v1/tasks/t-1", Operation.GET_TASK, {"id": "t-1"}),
    ("POST", "/v1/tasks/t-1:cancel", Operation.CANCEL_TASK, {"id": "t-1"}),
    ("POST", "/v1/tasks/t-1:subscribe", Operation.SUBSCRIBE_TO_TASK, {"id": "t-1"}),
    ("GET", "/v1/tasks/t-1:subscribe", Operation.SUBSCRIBE_TO_TASK, {"id": "t-1"}),
    ("POST", "/v1/tasks/t-1/pushNotificationConfigs", Operation.CREATE_PUSH_CONFIG, {"taskId": "t-1"}),
    ("GET", "/v1/tasks/t-1/pushNotificationConfigs/c-9", Operation.GET_PUSH_CONFIG, {"taskId": "t-1", "id": "c-9"}),
    ("GET", "/v1/tasks/t-1/pushNotificationConfigs", Operation.LIST_PUSH_CONFIGS, {"taskId": "t-1"}),
    (
        "DELETE",
        "/v1/tasks/t-1/pushNotificationConfigs/c-9",
        Operation.DELETE_PUSH_CONFIG,
        {"taskId": "t-1", "id": "c-9"},
    ),
    ("GET", "/v1/card", Operation.GET_EXTENDED_CARD, {}),
]


@pytest.mark.parametrize(("verb", "path", "op", "params"), V1_ROUTES)
def test_v1_routes(verb: str, path: str, op: Operation, params: dict[str, str]) -> None:
    assert match_route(verb, path) == (op, V1, params, None)


@pytest.mark.parametrize(("verb", "path", "op", "params"), V1_ROUTES)
def test_v1_routes_have_tenant_twins(verb: str, path: str, op: Operation, params: dict[str, str]) -> None:
    assert match_route(verb, "/acme" + path) == (op, V1, params, "acme")


@pytest.mark.parametrize(("verb", "path", "op", "params"), V03_ROUTES)
def test_v03_routes_live_under_v1(verb: str, path: str, op: Operation, params: dict[str, str]) -> None:
    assert match_route(verb, path) == (op, V03, params, None)


@pytest.mark.parametrize(("verb", "path", "op", "params"), V03_ROUTES)
def test_v03_routes_have_no_tenant_twins(verb: str, path: str, op: Operation, params: dict[str, str]) -> None:
    assert match_route(verb, "/acme" + path, (V03,)) is None


def test_v03_has_no_list_tasks_route() -> None:
    assert match_route("GET", "/v1/tasks", (V03,)) is None


def test_versions_restrict_and_order_the_match() -> None:
    # Only 1.0 served: /v1/... is then the 1.0 route under a tenant called "v1".
    assert match_route("GET", "/v1/tasks/abc", (V1,)) == (Operation.GET_TASK, V1, {"id": "abc"}, "v1")
    # Only 0.3 served: the unprefixed 1.0 path is not a route.
    assert match_route("POST", "/message:send", (V03,)) is None
    # Both served: the plain 0.3 path wins over a 1.0 tenant twin.
    assert match_route("GET", "/v1/tasks/abc", (V1, V03)) == (Operation.GET_TASK, V03, {"id": "abc"}, None)


@pytest.mark.parametrize(
    ("verb", "path"),
    [
        ("GET", "/message:send"),  # wrong verb
        ("PUT", "/tasks/t-1"),
        ("POST", "/tasks/t-1"),
        ("GET", "/tasks/t-1/extra"),
        ("GET", "/tasks/a/b/c/d"),
        ("POST", "/message:sendx"),
        ("POST", "/messages:send"),
        ("GET", "/"),
        ("GET", ""),
        ("GET", "/t/"),
        ("POST", "/tasks/:cancel"),  # an empty id is no id
        ("DELETE", "/tasks/t-1/pushNotificationConfigs"),
    ],
)
def test_non_routes(verb: str, path: str) -> None:
    assert match_route(verb, path) is None


def test_path_parameters_stop_at_slashes_and_colons() -> None:
    assert match_route("GET", "/tasks/a:b") is None
    found = match_route("POST", "/tasks/a-b_c.d~e:cancel")
    assert found is not None
    op, _, params, _ = found
    assert op is Operation.CANCEL_TASK and params == {"id": "a-b_c.d~e"}


def test_path_exists_lists_verbs_for_405() -> None:
    assert path_exists("/tasks/x") == ["GET"]
    assert set(path_exists("/tasks/x:subscribe")) == {"POST", "GET"}
    assert set(path_exists("/tasks/x/pushNotificationConfigs/y")) == {"GET", "DELETE"}
    assert path_exists("/nothing/here") == []
    assert path_exists("/v1/tasks/x", (V1,)) == []
    assert path_exists("/v1/tasks/x", (V03,)) == ["GET"]


def test_route_builds_paths() -> None:
    assert (
        Route("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}").path(taskId="t", id="c")
        == "/tasks/t/pushNotificationConfigs/c"
    )
    for spec in SPECS.values():
        for version, routes in spec.rest.items():
            for route in routes:
                filled = route.path(**{name: "x1" for name in route.regex.groupindex})
                found = match_route(route.verb, filled, (version,))
                assert found is not None and found[0] is spec.operation and found[1] is version, route


# ------------------------------------------------------------------------------------ JSON-RPC envelopes


def test_parse_request_accepts_a_valid_envelope() -> None:
    req = jsonrpc.parse_request({"jsonrpc": "2.0", "id": "r-1", "method": "GetTask", "params": {"id": "t"}})
    assert (req.id, req.method, req.params, req.has_id) == ("r-1", "GetTask", {"id": "t"}, True)
    no_params = jsonrpc.parse_request({"jsonrpc": "2.0", "id": 0, "method": "GetExtendedAgentCard"})
    assert no_params.params == {} and no_params.id == 0
    notification = jsonrpc.parse_request({"jsonrpc": "2.0", "method": "GetTask"})
    assert notification.has_id is False and notification.id is None
    null_id = jsonrpc.parse_request({"jsonrpc": "2.0", "id": None, "method": "GetTask"})
    assert null_id.has_id is True and null_id.id is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ([{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}], None),
        ("GetTask", None),
        (None, None),
        ({"id": 1, "method": "GetTask"}, "jsonrpc"),
        ({"jsonrpc": "1.0", "id": 1, "method": "GetTask"}, "jsonrpc"),
        ({"jsonrpc": 2.0, "id": 1, "method": "GetTask"}, "jsonrpc"),
        ({"jsonrpc": "2.0", "id": True, "method": "GetTask"}, "id"),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "GetTask"}, "id"),
        ({"jsonrpc": "2.0", "id": [1], "method": "GetTask"}, "id"),
        ({"jsonrpc": "2.0", "id": 1}, "method"),
        ({"jsonrpc": "2.0", "id": 1, "method": ""}, "method"),
        ({"jsonrpc": "2.0", "id": 1, "method": 7}, "method"),
        ({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": "x"}, "params"),
        ({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": 3}, "params"),
    ],
)
def test_parse_request_rejects_invalid_envelopes(body: object, field: str | None) -> None:
    with pytest.raises(A2AError) as info:
        jsonrpc.parse_request(body)
    assert info.value.type is ErrorType.INVALID_REQUEST and info.value.code == -32600
    assert info.value.field == field


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"id": 5}, 5),
        ({"id": "x"}, "x"),
        ({"id": 1.5}, 1.5),
        ({"id": None}, None),
        ({}, None),
        ({"id": True}, None),
        ({"id": [1]}, None),
        ({"id": {"a": 1}}, None),
        ([{"id": 1}], None),
        ("x", None),
    ],
)
def test_request_id_of_echoes_only_usable_ids(body: object, expected: object) -> None:
    assert jsonrpc.request_id_of(body) == expected


def test_error_bodies_by_version() -> None:
    err = A2AError(ErrorType.TASK_NOT_FOUND, "Task not found: t", metadata={"taskId": "t"})
    v1 = jsonrpc.error(3, err, V1)
    assert v1["jsonrpc"] == "2.0" and v1["id"] == 3 and "result" not in v1
    assert v1["error"]["code"] == -32001 and v1["error"]["message"] == "Task not found: t"
    (info,) = v1["error"]["data"]
    assert info == {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "TASK_NOT_FOUND",
        "domain": "a2a-protocol.org",
        "metadata": {"taskId": "t"},
    }
    v03 = jsonrpc.error(3, err, V03)
    assert v03["error"] == {"code": -32001, "message": "Task not found: t"}  # 0.3 data is free-form; none needed
    bad = A2AError(ErrorType.INVALID_PARAMS, "Invalid parameters: params.x: nope", field="params.x")
    assert jsonrpc.error(None, bad, V03)["error"]["data"] == {"field": "params.x"}
    v1_bad = jsonrpc.error(None, bad, V1)["error"]["data"]
    assert v1_bad[0]["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    assert v1_bad[0]["fieldViolations"][0]["field"] == "params.x"
    assert jsonrpc.result(9, {"a": 1}) == {"jsonrpc": "2.0", "id": 9, "result": {"a": 1}}
    assert jsonrpc.envelope("GetTask", {"id": "t"}, 4) == {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "GetTask",
        "params": {"id": "t"},
    }
