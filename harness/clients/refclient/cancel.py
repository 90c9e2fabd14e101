"""The cancel action (A2A_LAB_ACTION cancel): CancelTask once for a task that has not stopped, and the task as the
agent then tells it. CancelTask may lose a race with the task's own completion (§3.1.5: TaskNotCancelableError for a
task that is no longer cancelable); the client then reads the task as it really ended, with GetTask, and reports
that state, never a cancel it did not get."""

from __future__ import annotations

from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.reading import TaskView, read_task
from a2a_lab.harness.clients.refclient.result import Result
from a2a_lab.harness.clients.refclient.transport import A2ATransport
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation


def refused_as(failure: ClientFailure, kind: ErrorType) -> bool:
    """The agent answered this A2A error: by its JSON-RPC code, or by the ErrorInfo reason (HTTP+JSON, gRPC)."""
    d = failure.details
    return failure.type == "remote" and (d.get("code") == kind.code or d.get("reason") == kind.kind.reason)


def cancel(transport: A2ATransport, task: TaskView, result: Result) -> TaskView:
    """CancelTask for `task` (it has an id and has not stopped); the task as the answer tells it. A task that is no
    longer cancelable comes back unchanged, for the caller's GetTask to read how it ended."""
    assert task.id is not None
    result.canceled = True
    try:
        body = transport.call(Operation.CANCEL_TASK, {"id": task.id}, result.warnings)
    except ClientFailure as failure:
        if refused_as(failure, ErrorType.TASK_NOT_CANCELABLE):
            result.warnings.append(
                f"CancelTask for task {task.id}: the agent says it can no longer be canceled ({failure.message}); "
                "reading how it ended with GetTask"
            )
            return task
        what = f"CancelTask for task {task.id}: {failure.message}"
        raise ClientFailure(failure.type, what, failure.details) from None
    fresh = read_task(body, transport.form, "CancelTask result", result.warnings)
    if fresh.id != task.id:
        result.warnings.append(f"CancelTask for {task.id!r} answered task {fresh.id!r}")
        fresh.id = fresh.id or task.id
    fresh.context_id = fresh.context_id or task.context_id
    return fresh
