"""The eleven A2A operations and how each version and binding spells them (spec §5.3, §3.7 of the notes).

One table; servers dispatch with it, clients build requests with it, checks judge with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from .cards import EXTENDED_CARD, PUSH_NOTIFICATIONS, STREAMING
from .versions import Version


class Operation(str, Enum):
    """Operations by their 1.0 JSON-RPC name, which scenario files use as the key."""

    SEND_MESSAGE = "SendMessage"
    SEND_STREAMING_MESSAGE = "SendStreamingMessage"
    GET_TASK = "GetTask"
    LIST_TASKS = "ListTasks"
    CANCEL_TASK = "CancelTask"
    SUBSCRIBE_TO_TASK = "SubscribeToTask"
    CREATE_PUSH_CONFIG = "CreateTaskPushNotificationConfig"
    GET_PUSH_CONFIG = "GetTaskPushNotificationConfig"
    LIST_PUSH_CONFIGS = "ListTaskPushNotificationConfigs"
    DELETE_PUSH_CONFIG = "DeleteTaskPushNotificationConfig"
    GET_EXTENDED_CARD = "GetExtendedAgentCard"


@dataclass(frozen=True)
class Route:
    """One HTTP+JSON route: verb and a path template relative to the interface URL."""

    verb: str
    template: str
    regex: re.Pattern[str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        pattern = re.sub(
            r"\{(\w+)\}", r"(?P<\1>[^/:]+)", re.escape(self.template).replace(r"\{", "{").replace(r"\}", "}")
        )
        object.__setattr__(self, "regex", re.compile("^" + pattern + "$"))

    def path(self, **params: str) -> str:
        return self.template.format(**params)


#: The operations that carry a message from the client (SendMessage and its streaming twin).
MESSAGE_SENDS = frozenset({Operation.SEND_MESSAGE, Operation.SEND_STREAMING_MESSAGE})


@dataclass(frozen=True)
class OperationSpec:
    operation: Operation
    jsonrpc: dict[Version, str]
    rest: dict[Version, tuple[Route, ...]]
    streaming: bool = False
    #: The card capability that must be true for the operation (§3.3.4), if any.
    capability: str | None = None
    #: Operations that take or reach a task id in params.
    task_scoped: bool = False


V1, V03 = Version.V1_0, Version.V0_3

SPECS: dict[Operation, OperationSpec] = {
    spec.operation: spec
    for spec in (
        OperationSpec(
            Operation.SEND_MESSAGE,
            {V1: "SendMessage", V03: "message/send"},
            {V1: (Route("POST", "/message:send"),), V03: (Route("POST", "/v1/message:send"),)},
        ),
        OperationSpec(
            Operation.SEND_STREAMING_MESSAGE,
            {V1: "SendStreamingMessage", V03: "message/stream"},
            {V1: (Route("POST", "/message:stream"),), V03: (Route("POST", "/v1/message:stream"),)},
            streaming=True,
            capability=STREAMING,
        ),
        OperationSpec(
            Operation.GET_TASK,
            {V1: "GetTask", V03: "tasks/get"},
            {V1: (Route("GET", "/tasks/{id}"),), V03: (Route("GET", "/v1/tasks/{id}"),)},
            task_scoped=True,
        ),
        OperationSpec(
            Operation.LIST_TASKS,
            {V1: "ListTasks"},
            {V1: (Route("GET", "/tasks"),)},
        ),
        OperationSpec(
            Operation.CANCEL_TASK,
            {V1: "CancelTask", V03: "tasks/cancel"},
            {V1: (Route("POST", "/tasks/{id}:cancel"),), V03: (Route("POST", "/v1/tasks/{id}:cancel"),)},
            task_scoped=True,
        ),
        OperationSpec(
            Operation.SUBSCRIBE_TO_TASK,
            {V1: "SubscribeToTask", V03: "tasks/resubscribe"},
            {
                # The spec says POST, the proto says GET (notes §11 D1): serve both.
                V1: (Route("POST", "/tasks/{id}:subscribe"), Route("GET", "/tasks/{id}:subscribe")),
                V03: (Route("POST", "/v1/tasks/{id}:subscribe"), Route("GET", "/v1/tasks/{id}:subscribe")),
            },
            streaming=True,
            capability=STREAMING,
            task_scoped=True,
        ),
        OperationSpec(
            Operation.CREATE_PUSH_CONFIG,
            {V1: "CreateTaskPushNotificationConfig", V03: "tasks/pushNotificationConfig/set"},
            {
                V1: (Route("POST", "/tasks/{taskId}/pushNotificationConfigs"),),
                V03: (Route("POST", "/v1/tasks/{taskId}/pushNotificationConfigs"),),
            },
            capability=PUSH_NOTIFICATIONS,
            task_scoped=True,
        ),
        OperationSpec(
            Operation.GET_PUSH_CONFIG,
            {V1: "GetTaskPushNotificationConfig", V03: "tasks/pushNotificationConfig/get"},
            {
                V1: (Route("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}"),),
                V03: (Route("GET", "/v1/tasks/{taskId}/pushNotificationConfigs/{id}"),),
            },
            capability=PUSH_NOTIFICATIONS,
            task_scoped=True,
        ),
        OperationSpec(
            Operation.LIST_PUSH_CONFIGS,
            {V1: "ListTaskPushNotificationConfigs", V03: "tasks/pushNotificationConfig/list"},
            {
                V1: (Route("GET", "/tasks/{taskId}/pushNotificationConfigs"),),
                V03: (Route("GET", "/v1/tasks/{taskId}/pushNotificationConfigs"),),
            },
            capability=PUSH_NOTIFICATIONS,
            task_scoped=True,
        ),
        OperationSpec(
            Operation.DELETE_PUSH_CONFIG,
            {V1: "DeleteTaskPushNotificationConfig", V03: "tasks/pushNotificationConfig/delete"},
            {
                V1: (Route("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}"),),
                V03: (Route("DELETE", "/v1/tasks/{taskId}/pushNotificationConfigs/{id}"),),
            },
            capability=PUSH_NOTIFICATIONS,
            task_scoped=True,
        ),
        OperationSpec(
            Operation.GET_EXTENDED_CARD,
            {V1: "GetExtendedAgentCard", V03: "agent/getAuthenticatedExtendedCard"},
            {V1: (Route("GET", "/extendedAgentCard"),), V03: (Route("GET", "/v1/card"),)},
            capability=EXTENDED_CARD,
        ),
    )
}

_BY_METHOD: dict[str, tuple[Operation, Version]] = {
    name: (spec.operation, version) for spec in SPECS.values() for version, name in spec.jsonrpc.items()
}


def by_method(method: str) -> tuple[Operation, Version] | None:
    """The operation and version a JSON-RPC method name belongs to (the names never collide)."""
    return _BY_METHOD.get(method)


def method_name(operation: Operation, version: Version) -> str | None:
    return SPECS[operation].jsonrpc.get(version)


def all_method_names(version: Version | None = None) -> list[str]:
    return [m for m, (_, v) in _BY_METHOD.items() if version is None or v is version]


def match_route(
    verb: str, path: str, versions: tuple[Version, ...] = tuple(Version), tenants: frozenset[str] | None = None
) -> tuple[Operation, Version, dict[str, str], str | None] | None:
    """Match an HTTP+JSON request path (relative to the interface URL) to an operation.

    Returns (operation, version, path params, tenant). The 1.0 `/{tenant}/...` twins are tried after
    the plain paths, with any first segment as the tenant, or (`tenants`) only one of these. Versions are tried in
    the order given.
    """
    for tenant_first in (False, True):
        candidate, tenant = path, None
        if tenant_first:
            head, sep, rest = path.lstrip("/").partition("/")
            if not sep or not head or (tenants is not None and head not in tenants):
                return None
            candidate, tenant = "/" + rest, head
        for version in versions:
            if tenant is not None and version is not Version.V1_0:
                continue
            for spec in SPECS.values():
                for route in spec.rest.get(version, ()):
                    m = route.regex.match(candidate)
                    if m and route.verb == verb:
                        return spec.operation, version, m.groupdict(), tenant
    return None


def path_exists(path: str, versions: tuple[Version, ...] = tuple(Version)) -> list[str]:
    """The verbs that some route accepts for this path (for 405 answers)."""
    verbs: list[str] = []
    for version in versions:
        for spec in SPECS.values():
            for route in spec.rest.get(version, ()):
                if route.regex.match(path) and route.verb not in verbs:
                    verbs.append(route.verb)
    return verbs
