"""How a refusal by one of the scenario's budgets (`limits:`) reads: the one place that phrases it, so that every
answer names the limit, its value and the `limits:` key that raises it.

A request a budget refuses gets a protocol error, never a 5xx: too large on its own (a message with too many parts,
one that would not fit the task store even empty, a push config larger than a task's share) is -32602 Invalid
params naming the field; a per-task quota that is full (push configs) is -32004 Unsupported operation, like the
open-streams limit. Budgets that only keep memory bounded (journal, task store, card cache) refuse nothing: they
forget their oldest and count what they forgot.
"""

from __future__ import annotations

from a2a_lab.protocol.errors import A2AError, ErrorType, invalid_params


def raise_hint(key: str) -> str:
    """`limits.KEY; raise it ...`: where a limit comes from and how to allow more."""
    return f"limits.{key}; raise it in the scenario's `limits:` to allow more"


def setting(key: str, limit: int, unit: str = "") -> str:
    """`limits.KEY is N unit; raise it ...` for an error message."""
    amount = f"{limit:,} {unit}".rstrip()
    return f"limits.{key} is {amount}; raise it in the scenario's `limits:` to allow more"


def too_large(field: str, what: str, key: str, limit: int, unit: str = "bytes") -> A2AError:
    """A request too large for a budget on its own: -32602 naming the field (HTTP+JSON: 400)."""
    return invalid_params(field, f"{what}: more than this scenario accepts ({setting(key, limit, unit)})")


def exhausted(what: str, key: str, limit: int, unit: str, task_id: str) -> A2AError:
    """A task's quota is full: -32004 (HTTP+JSON: 400 FAILED_PRECONDITION), with the task named."""
    return A2AError(
        ErrorType.UNSUPPORTED_OPERATION,
        f"{what} ({setting(key, limit, unit)}, or delete one first)",
        metadata={"taskId": task_id},
    )
