"""The ACTS 0.1.0 grammar as data (Appendix A): field names, choices, operators and aliases. A later ACTS version is
mostly a change here."""

from __future__ import annotations

import re

from a2a_lab.harness.acts.defaults import LEVELS as LEVELS  # re-exported: the document's grammar

#: The ACTS text this reader follows, and the format major versions it accepts (§17: reject another major).
ACTS_SPEC = "0.1.0"
ACTS_MAJORS = ("0", "1")

#: Bounds on what a file may ask of the runner (docs/explanation/reliability-and-security.md lists them). One
#: resolution of `{{...}}` (a step's params, headers, an expectation) produces at most RESOLVED_CHARS characters,
#: counting every reference's expansion on the way, follows at most RESOLVED_REFERENCES references and variables
#: VARIABLE_DEPTH deep: the reader refuses document variables past them, the run holds what only it knows (captures,
#: the environment).
RESOLVED_CHARS = 1 << 20
RESOLVED_REFERENCES = 100_000
VARIABLE_DEPTH = 8
#: A repeat's attempts, and any wait a file asks for (`delay_ms`, a repeat's delay, an expect-stream's `timeout_ms`).
MAX_ATTEMPTS = 1000
MAX_WAIT_MS = 300_000

TRANSPORTS = ("jsonrpc", "grpc", "rest")
OPERATIONS = (
    "send_message",
    "send_streaming_message",
    "get_task",
    "list_tasks",
    "cancel_task",
    "subscribe_to_task",
    "get_agent_card",
    "get_extended_agent_card",
    "create_push_config",
    "get_push_config",
    "list_push_configs",
    "delete_push_config",
)
#: The official files' spellings (see the module docstring).
OPERATION_ALIASES = {
    "set_push_notification_config": "create_push_config",
    "create_push_notification_config": "create_push_config",
    "get_push_notification_config": "get_push_config",
    "list_push_notification_configs": "list_push_configs",
    "delete_push_notification_config": "delete_push_config",
}
STREAMING_OPERATIONS = frozenset({"send_streaming_message", "subscribe_to_task"})
ERROR_TYPES = (
    "TaskNotFoundError",
    "TaskNotCancelableError",
    "UnsupportedOperationError",
    "ContentTypeNotSupportedError",
    "InvalidParamsError",
    "VersionNotSupportedError",
    "PushNotificationNotSupportedError",
    "StreamingNotSupportedError",
    "ExtensionSupportRequiredError",
    "ExtendedCardNotSupportedError",
    "JSONParseError",
    "MethodNotFoundError",
    "InternalError",
)
RUNNER_REQUIREMENTS = (
    "webhook_endpoint",
    "concurrent_streams",
    "stream_disconnect",
    "auth_credentials",
    "header_inspection",
)
RAW_METHODS = ("GET", "POST", "PUT", "DELETE")
BACKOFFS = ("none", "linear", "exponential")
ORDERINGS = ("monotonic_state",)
TYPES = ("string", "number", "boolean", "array", "object", "null")
#: §5.1's operators, by the kind of value each takes.
OPERATORS: dict[str, str] = {
    "type": "type",
    "exists": "true",
    "absent": "true",
    "contains": "text",
    "matches": "regex",
    "starts_with": "text",
    "ends_with": "text",
    "gte": "number",
    "lte": "number",
    "gt": "number",
    "lt": "number",
    "count": "int",
    "count_gte": "int",
    "count_lte": "int",
    "one_of": "list",
    "all_of": "assertions",
    "any_of": "assertions",
    "not": "assertion",
    #: Not in the 0.1.0 text; the official files' spelling for "every element of the array matches".
    "items": "assertion",
}
EVENT_KINDS = {
    "status_update": "statusUpdate",
    "artifact_update": "artifactUpdate",
    "task": "task",
    "message": "message",
}
#: The value is stripped after the match (a lazy `.+?` before `\s*$` is quadratic in a run of spaces).
UNTIL = re.compile(r"^\s*(?P<path>[^\s=!]+)\s*(?P<op>==|!=|\bin\b)(?P<value>.+)$", re.DOTALL)
PATH = re.compile(r"^[^.\[\]]+(\[(\d+|\*)\])*(\.[^.\[\]]+(\[(\d+|\*)\])*)*$")

TEST_FIELDS = (
    "id",
    "name",
    "description",
    "spec_ref",
    "level",
    "tags",
    "transport",
    "preconditions",
    "requires_behaviors",
    "origin",
    "runner_requirements",
    "steps",
    "assertions",
)


SERVER_STEP = (
    "id",
    "description",
    "operation",
    "params",
    "expect",
    "expect_error",
    "expect_stream",
    "capture",
    "assertions",
    "repeat",
    "delay_ms",
)
RAW_STEP = (
    "id",
    "description",
    "raw",
    "expect",
    "expect_error",
    "expect_stream",
    "capture",
    "assertions",
)
CLIENT_STEP = ("id", "description", "client_response", "expect_parsed", "assertions")
ASSERTION_STEP = ("id", "description", "assertion")
STEP_KINDS = (
    ("operation", SERVER_STEP),
    ("raw", RAW_STEP),
    ("client_response", CLIENT_STEP),
    ("assertion", ASSERTION_STEP),
)
