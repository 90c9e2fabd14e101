"""The reference client's two actions of issue 29, against real a2a-lab servers on loopback: `new_message` (an
unrelated message once the first answer stopped: no taskId, the contextId kept) and `cancel` (CancelTask for the
open task; after a refused cancel, GetTask says how the task ended)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from a2a_lab.contract import handshake
from a2a_lab.contract.handshake import ResultKind
from a2a_lab.harness.clients.refclient import render_text, run
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState

from .test_refclient_actions import (
    HTTP_JSON,
    INTERRUPTED_SCRIPT,
    JSONRPC,
    WIRE,
    Served,
    card,
    cli,
    iface,
    message_of,
    options,
    scenario_data,
    serve,
    write_scenario,
)

__all__ = ["serve", "write_scenario"]  # the fixtures, shared with test_refclient_actions.py

SEND, CANCEL, GET = Operation.SEND_MESSAGE.value, Operation.CANCEL_TASK.value, Operation.GET_TASK.value
#: A task that answers at once (SUBMITTED) and moves on only when asked (GetTask).
OPEN = {"steps": ["SUBMITTED", "WORKING", "COMPLETED"], "returns": "first", "advance": "get_task"}
#: The first message is asked a question; any later message gets a finished task of its own.
QUESTION_THEN_NEW = {
    "SendMessage": [
        {"when": {"call": 1}, "reply": {"task": INTERRUPTED_SCRIPT}},
        {"reply": {"task": {"steps": ["COMPLETED"], "artifacts": [{"text": "the new answer"}]}}},
    ]
}


@WIRE
def test_new_message_names_no_task_and_keeps_the_context(
    serve: Callable[..., Served], version: str, binding: str
) -> None:
    data = scenario_data("Asks first", card(iface(binding, version)), behaviour=QUESTION_THEN_NEW)
    served = serve("new-message", data)
    result = run(served.card_url, "clean up", options(new_message="the weather?"))
    assert result.exit_code == 0, result.to_json()
    assert (result.kind, result.state, result.text, result.new_message) == (
        ResultKind.TASK,
        TaskState.COMPLETED,
        "the new answer",
        True,
    )
    first, second = served.calls()
    assert served.operations() == [SEND, SEND]
    sent = message_of(second)
    assert "taskId" not in sent and "task_id" not in sent
    first_task, new_task = first["answer"]["task_id"], second["answer"]["task_id"]
    assert first_task and new_task == result.task_id != first_task
    assert (sent.get("contextId") or sent.get("context_id")) == result.context_id
    assert "taskId" not in message_of(first)
    assert "unrelated new message" in render_text(result)


def test_new_message_is_not_sent_after_an_error(serve: Callable[..., Served]) -> None:
    failing = {"SendMessage": [{"reply": {"error": "InternalError"}}]}
    served = serve("refused", scenario_data("Refuses", card(), behaviour=failing))
    result = run(served.card_url, "x", options(new_message="and now?"))
    assert result.kind is ResultKind.ERROR and not result.new_message
    assert served.operations() == [SEND]


@pytest.mark.parametrize(
    ("version", "binding"), [("1.0", JSONRPC), ("0.3", JSONRPC), ("1.0", HTTP_JSON)], ids=["rpc-1.0", "rpc-0.3", "rest"]
)
def test_cancel_cancels_the_open_task(serve: Callable[..., Served], version: str, binding: str) -> None:
    served = serve("cancel", scenario_data("Cancelable", card(iface(binding, version)), task=OPEN))
    result = run(served.card_url, "render", options(cancel=True))
    assert result.exit_code == 0, result.to_json()
    assert (result.kind, result.state, result.canceled) == (ResultKind.TASK, TaskState.CANCELED, True)
    assert served.operations() == [SEND, CANCEL]
    assert "CancelTask was sent" in render_text(result)


def test_a_cancel_that_lost_the_race_reports_how_the_task_ended(serve: Callable[..., Served]) -> None:
    """TaskNotCancelable (-32002): the task finished first; GetTask reads COMPLETED, which the client reports."""
    refused = {"CancelTask": [{"reply": {"error": "TaskNotCancelable"}}]}
    served = serve("lost-race", scenario_data("Finishes first", card(), task=OPEN, behaviour=refused))
    result = run(served.card_url, "render", options(cancel=True))
    assert (result.kind, result.state, result.error) == (ResultKind.TASK, TaskState.COMPLETED, None), result.to_json()
    assert served.operations()[:2] == [SEND, CANCEL] and set(served.operations()[2:]) == {GET}
    assert any("can no longer be canceled" in w for w in result.warnings)


def test_a_cancel_refused_otherwise_is_the_error(serve: Callable[..., Served]) -> None:
    refused = {"CancelTask": [{"reply": {"error": "TaskNotFound"}}]}
    served = serve("cancel-refused", scenario_data("Forgets", card(), task=OPEN, behaviour=refused))
    result = run(served.card_url, "render", options(cancel=True))
    assert result.kind is ResultKind.ERROR and result.error is not None
    assert result.error["code"] == ErrorType.TASK_NOT_FOUND.code and "CancelTask for task" in result.error["message"]


def test_no_cancel_for_a_task_that_already_stopped(serve: Callable[..., Served]) -> None:
    served = serve("done", scenario_data("Done at once", card(), task={"steps": ["COMPLETED"]}))
    result = run(served.card_url, "x", options(cancel=True))
    assert (result.state, result.canceled) == (TaskState.COMPLETED, False)
    assert served.operations() == [SEND]
    assert any("the cancel was not sent" in w for w in result.warnings)


def test_the_command_line_flags(serve: Callable[..., Served]) -> None:
    """`a2a-lab client --cancel` in a real process; `--new-message TEXT` read as the action would ask it."""
    import argparse

    from a2a_lab.harness.clients.refclient import command_line as client_command

    served = serve("cli-cancel", scenario_data("Cancelable", card(), task=OPEN))
    canceled = json.loads(cli(served.card_url, "--json", "--cancel").stdout)
    assert (canceled["state"], canceled["canceled"]) == (TaskState.CANCELED.value, True)
    parser = argparse.ArgumentParser()
    client_command.add_arguments(parser)
    args = parser.parse_args(["--new-message", "the weather?", "http://127.0.0.1:1"])
    chosen, _ = client_command.options_from(args, {handshake.ENV_ACTION: json.dumps({"new_message": "ignored"})})
    assert (chosen.new_message, chosen.cancel) == ("the weather?", False)
