"""A2A and JSON-RPC errors: codes, ErrorInfo reasons, HTTP and gRPC mappings (spec §3.3.2, §5.4, §9.5, §11.6)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .exceptions import LabError
from .revisions import DEFAULT, GENERATIONS, SpecRevision

ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
ERROR_DOMAIN = "a2a-protocol.org"


@dataclass(frozen=True)
class ErrorKind:
    name: str
    code: int
    message: str
    http_status: int
    grpc_status: str
    #: The ErrorInfo reason; None for the plain JSON-RPC errors.
    reason: str | None = None
    #: HTTP status on the 0.3 REST binding: the 0.3 SDKs' (notes §5.3), except that "not supported" answers
    #: 400 rather than their 501, so the conformant server never answers a 5xx to a well-formed refusal.
    http_status_v03: int | None = None
    #: Where spec revision v1.0.0 mapped the error otherwise (notes §5.2, D3): its HTTP and gRPC status.
    #: `http_status` and `grpc_status` are v1.0.1's; read a revision's with `http_status()` / `grpc_status()`.
    http_status_v1_0_0: int | None = None
    grpc_status_v1_0_0: str | None = None


class ErrorType(Enum):
    """Every error a2a-lab can answer, by name."""

    PARSE_ERROR = ErrorKind("JSONParseError", -32700, "Invalid JSON payload", 400, "INVALID_ARGUMENT", None, 400)
    INVALID_REQUEST = ErrorKind(
        "InvalidRequestError", -32600, "Request payload validation error", 400, "INVALID_ARGUMENT", None, 400
    )
    METHOD_NOT_FOUND = ErrorKind("MethodNotFoundError", -32601, "Method not found", 404, "NOT_FOUND", None, 404)
    INVALID_PARAMS = ErrorKind("InvalidParamsError", -32602, "Invalid parameters", 400, "INVALID_ARGUMENT", None, 422)
    INTERNAL_ERROR = ErrorKind("InternalError", -32603, "Internal error", 500, "INTERNAL", None, 500)
    TASK_NOT_FOUND = ErrorKind("TaskNotFoundError", -32001, "Task not found", 404, "NOT_FOUND", "TASK_NOT_FOUND", 404)
    TASK_NOT_CANCELABLE = ErrorKind(
        "TaskNotCancelableError",
        -32002,
        "Task cannot be canceled",
        400,
        "FAILED_PRECONDITION",
        "TASK_NOT_CANCELABLE",
        409,
        http_status_v1_0_0=409,
    )
    PUSH_NOT_SUPPORTED = ErrorKind(
        "PushNotificationNotSupportedError",
        -32003,
        "Push Notification is not supported",
        400,
        "FAILED_PRECONDITION",
        "PUSH_NOTIFICATION_NOT_SUPPORTED",
        400,
        grpc_status_v1_0_0="UNIMPLEMENTED",
    )
    UNSUPPORTED_OPERATION = ErrorKind(
        "UnsupportedOperationError",
        -32004,
        "This operation is not supported",
        400,
        "FAILED_PRECONDITION",
        "UNSUPPORTED_OPERATION",
        400,
        grpc_status_v1_0_0="UNIMPLEMENTED",
    )
    CONTENT_TYPE_NOT_SUPPORTED = ErrorKind(
        "ContentTypeNotSupportedError",
        -32005,
        "Incompatible content types",
        400,
        "INVALID_ARGUMENT",
        "CONTENT_TYPE_NOT_SUPPORTED",
        415,
        http_status_v1_0_0=415,
    )
    INVALID_AGENT_RESPONSE = ErrorKind(
        "InvalidAgentResponseError",
        -32006,
        "Invalid agent response",
        500,
        "INTERNAL",
        "INVALID_AGENT_RESPONSE",
        502,
        http_status_v1_0_0=502,
    )
    EXTENDED_CARD_NOT_CONFIGURED = ErrorKind(
        "ExtendedAgentCardNotConfiguredError",
        -32007,
        "Extended agent card is not configured",
        400,
        "FAILED_PRECONDITION",
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        404,
    )
    EXTENSION_SUPPORT_REQUIRED = ErrorKind(
        "ExtensionSupportRequiredError",
        -32008,
        "Extension support required",
        400,
        "FAILED_PRECONDITION",
        "EXTENSION_SUPPORT_REQUIRED",
        None,
    )
    VERSION_NOT_SUPPORTED = ErrorKind(
        "VersionNotSupportedError",
        -32009,
        "Version not supported",
        400,
        "FAILED_PRECONDITION",
        "VERSION_NOT_SUPPORTED",
        None,
        grpc_status_v1_0_0="UNIMPLEMENTED",
    )
    # dev-1.1 only (§3.2.2, §3.3.2, §5.4): a SendMessage whose configuration.ifGenerationMatch is not the task's
    # generation. Its code, -32010, is also the one a2a-lab gave UNAUTHENTICATED below before 1.1 took it:
    # `by_code(-32010)` stays UNAUTHENTICATED, `by_code(-32010, SpecRevision.V1_1)` is this one.
    TASK_GENERATION_MISMATCH = ErrorKind(
        "TaskGenerationMismatchError",
        -32010,
        "Task generation mismatch",
        409,
        "ABORTED",
        "TASK_GENERATION_MISMATCH",
        409,
    )
    # Not A2A errors, but answers a server gives: authentication (§3.3.2 generic categories).
    UNAUTHENTICATED = ErrorKind(
        "UnauthenticatedError", -32010, "Authentication required", 401, "UNAUTHENTICATED", "UNAUTHENTICATED", 401
    )

    @property
    def kind(self) -> ErrorKind:
        return self.value

    @property
    def code(self) -> int:
        return self.value.code


_BY_CODE = {e.value.code: e for e in ErrorType if e is not ErrorType.TASK_GENERATION_MISMATCH}
_BY_NAME: dict[str, ErrorType] = {}
for _e in ErrorType:
    _BY_NAME[_e.name] = _e
    _BY_NAME[_e.value.name] = _e
    _BY_NAME[_e.value.name.removesuffix("Error")] = _e
    if _e.value.reason:
        _BY_NAME[_e.value.reason] = _e


def by_code(code: int, revision: SpecRevision = DEFAULT) -> ErrorType | None:
    """The error a code names; -32010 is TaskGenerationMismatch in a revision with generations (1.1), a2a-lab's
    Unauthenticated otherwise."""
    kind = ErrorType.TASK_GENERATION_MISMATCH
    if code == kind.code and revision in GENERATIONS:
        return kind
    return _BY_CODE.get(code)


def by_name(name: str) -> ErrorType | None:
    """Accepts `TaskNotFound`, `TaskNotFoundError`, `TASK_NOT_FOUND` and the enum name."""
    return _BY_NAME.get(name)


def names() -> list[str]:
    return [e.value.name.removesuffix("Error") for e in ErrorType]


def http_status(error: ErrorType, revision: SpecRevision = DEFAULT) -> int:
    """The HTTP status an A2A 1.0 error answers on the HTTP+JSON binding, as a spec revision maps it (§5.4; v1.0.0
    answered 409, 415 and 502 where v1.0.1 answers 400 and 500: notes D3)."""
    kind = error.kind
    if revision is SpecRevision.V1_0_0 and kind.http_status_v1_0_0 is not None:
        return kind.http_status_v1_0_0
    return kind.http_status


def grpc_status(error: ErrorType, revision: SpecRevision = DEFAULT) -> str:
    """The gRPC status name an A2A 1.0 error answers, as a spec revision maps it (§5.4; v1.0.0 answered UNIMPLEMENTED
    where v1.0.1 answers FAILED_PRECONDITION: notes D3)."""
    kind = error.kind
    if revision is SpecRevision.V1_0_0 and kind.grpc_status_v1_0_0 is not None:
        return kind.grpc_status_v1_0_0
    return kind.grpc_status


#: HTTP statuses of the generic authentication and authorization errors (§3.3.2): the caller lacks credentials.
AUTH_HTTP_STATUSES = frozenset({401, 403})

_GRPC_FOR_HTTP = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    413: "INVALID_ARGUMENT",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def grpc_status_for_http(status: int) -> str:
    return _GRPC_FOR_HTTP.get(status, "UNKNOWN")


@dataclass
class A2AError(LabError):
    """An error to answer with. `field` names the offending parameter for validation errors."""

    type: ErrorType
    message: str | None = None
    field: str | None = None
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    #: A numeric code that overrides the type's (scenarios may answer arbitrary codes).
    code_override: int | None = None
    #: The ErrorInfo carries `metadata` (`style.error_metadata`: some servers never send it).
    info_metadata: bool = True
    #: An ErrorInfo reason to carry where the error's own kind names none (`error_messages[].reason`).
    reason_override: str | None = None

    def __post_init__(self) -> None:
        Exception.__init__(self, self.text)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its fields (an exception pickles as its args, here the text, which __init__ cannot take)."""
        return self.__class__, tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    @property
    def code(self) -> int:
        return self.code_override if self.code_override is not None else self.type.code

    @property
    def text(self) -> str:
        base = self.message or self.type.kind.message
        if self.field and self.field not in base:
            return f"{base}: {self.field}"
        return base

    def details(self) -> list[dict[str, Any]]:
        """google.rpc detail objects: ErrorInfo for A2A errors, BadRequest for a named field."""
        out: list[dict[str, Any]] = []
        reason = self.reason_override or self.type.kind.reason
        if reason:
            info: dict[str, Any] = {"@type": ERROR_INFO_TYPE, "reason": reason, "domain": ERROR_DOMAIN}
            if self.info_metadata:
                info["metadata"] = dict(self.metadata)
            out.append(info)
        if self.field:
            out.append(
                {"@type": BAD_REQUEST_TYPE, "fieldViolations": [{"field": self.field, "description": self.text}]}
            )
        return out


def invalid_params(field_path: str, problem: str) -> A2AError:
    return A2AError(ErrorType.INVALID_PARAMS, f"Invalid parameters: {field_path}: {problem}", field=field_path)


# ------------------------------------------------------------------------------ validating error answers


@dataclass(frozen=True)
class EnvelopeProblem:
    """Something wrong with an error answer someone else sent. `should` marks a SHOULD (a v1.0.1 recommendation,
    or a MUST of v1.0.0 that v1.0.1 relaxed: notes D4, D5) rather than a MUST."""

    text: str
    should: bool = False


def error_info(details: object) -> dict[str, Any] | None:
    """The google.rpc.ErrorInfo in a details list (JSON-RPC `data`, HTTP+JSON `error.details`), if any."""
    if isinstance(details, list):
        for item in details:
            if isinstance(item, dict) and item.get("@type") == ERROR_INFO_TYPE:
                return item
    return None


def detail_problems(details: object, path: str) -> list[EnvelopeProblem]:
    """A google.rpc details list: objects that each name their `@type` (ProtoJSON Any, §9.5, §11.6); an ErrorInfo
    carries a `reason` and a `domain`."""
    if not isinstance(details, list):
        return [EnvelopeProblem(f"{path} must be a list of objects with @type, not {type(details).__name__}")]
    out: list[EnvelopeProblem] = []
    for i, item in enumerate(details):
        if not isinstance(item, dict) or not isinstance(item.get("@type"), str) or not item["@type"]:
            out.append(EnvelopeProblem(f"{path}[{i}] is not an object with a string @type"))
        elif item["@type"] == ERROR_INFO_TYPE:
            out.extend(
                EnvelopeProblem(f"{path}[{i}] (ErrorInfo) has no string `{name}`")
                for name in ("reason", "domain")
                if not isinstance(item.get(name), str) or not item[name]
            )
    return out
