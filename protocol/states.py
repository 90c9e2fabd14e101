"""Task states and roles, with every version's spelling (spec §4.1.3, notes §4)."""

from __future__ import annotations

from enum import Enum

from .forms import Form
from .versions import Version


class TaskState(str, Enum):
    """Task states by their 1.0 ProtoJSON names."""

    UNSPECIFIED = "TASK_STATE_UNSPECIFIED"
    SUBMITTED = "TASK_STATE_SUBMITTED"
    WORKING = "TASK_STATE_WORKING"
    COMPLETED = "TASK_STATE_COMPLETED"
    FAILED = "TASK_STATE_FAILED"
    CANCELED = "TASK_STATE_CANCELED"
    INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
    REJECTED = "TASK_STATE_REJECTED"
    AUTH_REQUIRED = "TASK_STATE_AUTH_REQUIRED"

    @property
    def short(self) -> str:
        """The name without prefix, as scenario files write it: `COMPLETED`."""
        return self.value.removeprefix("TASK_STATE_")

    @property
    def terminal(self) -> bool:
        return self in TERMINAL

    @property
    def interrupted(self) -> bool:
        return self in INTERRUPTED

    @property
    def stops(self) -> bool:
        """A blocking SendMessage returns at this state (§3.2.2)."""
        return self in TERMINAL or self in INTERRUPTED


TERMINAL = frozenset({TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED})
INTERRUPTED = frozenset({TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED})

#: 0.3 JSON-RPC spellings (T03).
_V03_JSONRPC: dict[TaskState, str] = {
    TaskState.UNSPECIFIED: "unknown",
    TaskState.SUBMITTED: "submitted",
    TaskState.WORKING: "working",
    TaskState.COMPLETED: "completed",
    TaskState.FAILED: "failed",
    TaskState.CANCELED: "canceled",
    TaskState.INPUT_REQUIRED: "input-required",
    TaskState.REJECTED: "rejected",
    TaskState.AUTH_REQUIRED: "auth-required",
}
#: 0.3 REST (ProtoJSON of the 0.3 proto) differs only in the British CANCELLED.
_V03_REST_CANCELED = "TASK_STATE_CANCELLED"

_FROM_ANY: dict[str, TaskState] = {}
for _state in TaskState:
    _FROM_ANY[_state.value] = _state
    _FROM_ANY[_state.short] = _state
    _FROM_ANY[_V03_JSONRPC[_state]] = _state
_FROM_ANY[_V03_REST_CANCELED] = TaskState.CANCELED
_FROM_ANY["CANCELLED"] = TaskState.CANCELED


def spell(state: TaskState, form: Form) -> str:
    """The wire spelling of a state in a version (and, for 0.3, binding)."""
    version, rest = form.version, form.rest
    if version is Version.V1_0:
        return state._value_  # _value_: `.value` is a property call, and this runs for every state on the wire
    if rest:
        return _V03_REST_CANCELED if state is TaskState.CANCELED else state._value_
    return _V03_JSONRPC[state]


#: The states by their 1.0 values: `TaskState(value)` costs ~1 µs (the enum's own lookup), a dict look-up ~30 ns, and
#: the server asks a task's state several times a call and at every event of a stream.
_BY_VALUE: dict[str, TaskState] = {_state.value: _state for _state in TaskState}


def by_value(value: str) -> TaskState:
    """`TaskState(value)`, as cheap as a dict look-up: a value that is not a 1.0 state fails as the enum fails."""
    return _BY_VALUE.get(value) or TaskState(value)


def parse(text: object) -> TaskState | None:
    """A state from any spelling a2a-lab knows (1.0, 0.3, short); None when unknown."""
    return _FROM_ANY.get(text) if isinstance(text, str) else None


def parse_strict(text: object, form: Form) -> TaskState | None:
    """A state only when spelled exactly as the version (and binding) spells it."""
    state = parse(text)
    return state if state is not None and spell(state, form) == text else None


class Role(str, Enum):
    USER = "ROLE_USER"
    AGENT = "ROLE_AGENT"


_ROLE_V03 = {Role.USER: "user", Role.AGENT: "agent"}
_ROLE_FROM_V03 = {v: k for k, v in _ROLE_V03.items()}
_ROLE_BY_VALUE = {Role.USER.value: Role.USER, Role.AGENT.value: Role.AGENT}


def spell_role(role: Role, form: Form) -> str:
    version, rest = form.version, form.rest
    if version is Version.V1_0 or rest:
        return role._value_
    return _ROLE_V03[role]


def parse_role(text: object, form: Form) -> Role | None:
    """A role only when spelled as the version and binding spell it."""
    version, rest = form.version, form.rest
    if not isinstance(text, str):
        return None
    if version is Version.V1_0 or rest:
        return _ROLE_BY_VALUE.get(text)
    return _ROLE_FROM_V03.get(text)
