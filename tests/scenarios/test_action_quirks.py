"""Quirks reported in public trackers that need more than one message (issue 29): a new message after a stopped task,
a follow-up's contextId, a cancel racing completion, and bare unsuccessful or SUBMITTED tasks. Each cites its report,
answers as its description says over real HTTP, a correct fake client passes it (so does the reference client, in
tests/shared_runs.py), and a fake client with the reported defect misses the named check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.operations import Operation

from . import catalogue_runs
from .action_runs import message, message03, rpc_json
from .catalogue_runs import Miss, Run, defect, run
from .test_grpc import GRPC_ONLY, MESSAGE, Dial, details, refused

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
PLAIN = {"Content-Type": "application/json"}
RACE = "quirks/cancel-races-completion"
GRPC = "quirks/grpc-failed-precondition-error-info"
GRPC_ARGS = ("--binding", "grpc")

#: Each quirk, the defect it exists for, and the check that defect misses.
MISSES = {
    "quirks/input-required-then-unrelated-message": Miss(
        defect("quirks/input-required-then-unrelated-message", "new-message-bound"), "NEW-TASK", says="INPUT_REQUIRED"
    ),
    "quirks/v03-new-request-reuses-completed-task": Miss(
        defect("quirks/v03-new-request-reuses-completed-task", "new-message-bound"), "NEW-TASK", says="COMPLETED"
    ),
    "quirks/follow-up-without-context-refused": Miss(
        defect("quirks/follow-up-without-context-refused", "follow-up-no-context"), "RESULT-EXPECTED", says="error"
    ),
    "quirks/submitted-status-message-empty-parts": Miss(
        defect("quirks/submitted-status-message-empty-parts", "first-status-part"), "CLIENT-SURVIVES", says="IndexError"
    ),
    "quirks/task-failed-without-message": Miss(
        defect("quirks/task-failed-without-message", "failure-as-empty-success"), "RESULT-EXPECTED", says="message"
    ),
    "quirks/task-canceled-without-message": Miss(
        defect("quirks/task-canceled-without-message", "failure-as-empty-success"), "RESULT-EXPECTED", says="message"
    ),
    "quirks/task-rejected-without-message": Miss(
        defect("quirks/task-rejected-without-message", "failure-as-empty-success"), "RESULT-EXPECTED", says="message"
    ),
    # The cancel loses the race (sent after the task completed), and the client says it won.
    RACE: Miss(defect(RACE, "assume-canceled", "--cancel-after", "1.0"), "RESULT-MATCHES", says="canceled"),
    # The status read alone: FAILED_PRECONDITION taken for TaskNotCancelable (-32002) instead of the -32004 sent.
    GRPC: Miss(defect(GRPC, "grpc-status-only", *GRPC_ARGS, supports=GRPC_ONLY), "RESULT-MATCHES", says="-32002"),
}
#: More misses of the same scenarios, on their other named checks (CANCEL-TASK's and NEW-TASK's own proofs are in
#: tests/harness/test_checks.py).
MORE = [
    Miss(defect("quirks/input-required-then-unrelated-message", "new-message-bound"), "RESULT-EXPECTED"),
    Miss(defect("quirks/v03-new-request-reuses-completed-task", "new-message-bound"), "RESULT-EXPECTED", says="error"),
    Miss(defect("quirks/task-rejected-without-message", "failure-as-empty-success"), "RESULT-MATCHES"),
    # A state outside the choice a race allows misses it, naming both.
    Miss(defect(RACE, "wrong-result"), "RESULT-EXPECTED", says="CANCELED or COMPLETED"),
]
CORRECT = {sid: run(sid) for sid in MISSES if sid != GRPC} | {GRPC: run(GRPC, *GRPC_ARGS, supports=GRPC_ONLY)}
#: The cancel that loses the race, by a correct client: it reads how the task ended and reports COMPLETED.
LOST_RACE = run(RACE, "--cancel-after", "1.0")


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return catalogue_runs.run_cases(
        catalogue, [*CORRECT.values(), LOST_RACE, *(m.run for m in [*MISSES.values(), *MORE])]
    )


def test_every_quirk_cites_its_report_and_names_its_checks(catalogue: Catalogue) -> None:
    for sid, miss in MISSES.items():
        scenario = catalogue.get(sid)
        assert scenario.observed and "#" in str(scenario.observed.get("where")), f"{sid}: cite repo#number"
        assert scenario.expect.stated and miss.check in scenario.checks, sid
    for extra in MORE:
        assert extra.check in catalogue.get(extra.run.scenario).checks, extra


@pytest.mark.parametrize("sid", sorted(MISSES))
def test_a_correct_client_passes(sid: str, results: dict[Run, ScenarioResult]) -> None:
    catalogue_runs.assert_passes(results[CORRECT[sid]])


@pytest.mark.parametrize("miss", [*MISSES.values(), *MORE], ids=str)
def test_the_defect_misses_the_named_check(miss: Miss, results: dict[Run, ScenarioResult]) -> None:
    catalogue_runs.assert_misses(miss, results[miss.run])


def test_either_end_of_the_race_passes_when_reported_as_got(results: dict[Run, ScenarioResult]) -> None:
    """The expected state is a choice (CANCELED or COMPLETED): a client that lost the race reports COMPLETED, the
    one the agent gave, and passes as the one that won it does."""
    lost = results[LOST_RACE]
    catalogue_runs.assert_passes(lost)
    assert lost.client is not None and lost.client.result is not None
    assert lost.client.result["state"].lower().endswith("completed")
    ops = [(e.get("operation"), (e.get("answer") or {}).get("code")) for e in lost.journal]
    assert ("CancelTask", -32002) in ops and ops[-1][0] == "GetTask", ops
    won = results[CORRECT[RACE]]
    assert won.client is not None and won.client.result is not None
    assert won.client.result["state"].lower().endswith(("canceled", "completed"))


def test_the_bound_message_is_refused_by_the_finished_task(results: dict[Run, ScenarioResult]) -> None:
    bound = results[MISSES["quirks/v03-new-request-reuses-completed-task"].run]
    codes = [(e.get("answer") or {}).get("code") for e in bound.journal if e.get("operation") == "SendMessage"]
    assert codes == [None, -32004], codes


def test_the_new_message_started_a_new_task(results: dict[Run, ScenarioResult]) -> None:
    check = results[CORRECT["quirks/input-required-then-unrelated-message"]].check("NEW-TASK")
    assert check is not None and check.outcome is Outcome.PASS and "named no task" in check.message


# ------------------------------------------------------------------------------------ served as described


def _send(served: Any, msg: dict[str, Any], req_id: int = 1) -> dict[str, Any]:
    reply: dict[str, Any] = served.http.post(
        "/a2a", content=rpc_json("SendMessage", {"message": msg}, req_id), headers=V1
    ).json()
    return reply


def test_submitted_status_message_has_an_empty_parts_list(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/submitted-status-message-empty-parts")
    task = _send(served, message())["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert task["status"]["message"]["parts"] == [] and task["status"]["message"]["role"] == "ROLE_AGENT"


@pytest.mark.parametrize("state", ["failed", "canceled", "rejected"])
def test_unsuccessful_tasks_carry_nothing_else(state: str, serve: Callable[[str], Any]) -> None:
    task = _send(serve(f"quirks/task-{state}-without-message"), message())["result"]["task"]
    assert task["status"]["state"] == f"TASK_STATE_{state.upper()}"
    assert "message" not in task["status"] and not task.get("artifacts")


def test_an_unrelated_message_bound_to_the_waiting_task_is_taken_as_its_answer(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/input-required-then-unrelated-message")
    first = _send(served, message("clean up"))["result"]["task"]
    assert first["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    ctx = first["contextId"]
    bound = _send(served, message("weather?", "m-2", taskId=first["id"], contextId=ctx), 2)["result"]["task"]
    assert bound["id"] == first["id"] and bound["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    new = _send(served, message("weather?", "m-3", contextId=ctx), 3)["result"]["task"]
    assert new["id"] != first["id"] and new["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "light snow" in new["artifacts"][0]["parts"][0]["text"]


def test_a_follow_up_without_the_context_is_refused(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/follow-up-without-context-refused")
    first = _send(served, message())["result"]["task"]
    refused = _send(served, message("savings", "m-2", taskId=first["id"]), 2)
    assert refused["error"]["code"] == -32602 and "contextId" in refused["error"]["message"]
    answered = _send(served, message("savings", "m-3", taskId=first["id"], contextId=first["contextId"]), 3)
    assert answered["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_v03_second_request_on_the_finished_task_is_refused(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/v03-new-request-reuses-completed-task")
    post = served.http.post
    first = post("/a2a", content=rpc_json("message/send", {"message": message03()}), headers=PLAIN).json()["result"]
    assert first["status"]["state"] == "completed"
    again = {"message": message03("next", "m-2", taskId=first["id"])}
    assert post("/a2a", content=rpc_json("message/send", again, 2), headers=PLAIN).json()["error"]["code"] == -32004
    fresh = post("/a2a", content=rpc_json("message/send", {"message": message03("next", "m-3")}, 3), headers=PLAIN)
    assert fresh.json()["result"]["id"] != first["id"]


def test_a_prompt_cancel_wins_the_race(serve: Callable[[str], Any]) -> None:
    served = serve(RACE)
    task = _send(served, message())["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    canceled = served.http.post("/a2a", content=rpc_json("CancelTask", {"id": task["id"]}, 2), headers=V1).json()
    assert canceled["result"]["status"]["state"] == "TASK_STATE_CANCELED"


def test_grpc_failed_precondition_names_the_error_in_its_error_info(serve: Callable[[str], Any]) -> None:
    dial = Dial(serve(GRPC))
    task = dial.unary(Operation.SEND_MESSAGE, MESSAGE)["task"]
    again = {"message": {**MESSAGE["message"], "messageId": "m-2", "taskId": task["id"]}}
    error = refused(lambda: dial.unary(Operation.SEND_MESSAGE, again))
    assert error.code().name == "FAILED_PRECONDITION"
    status = details(error)
    assert status is not None
    assert [d["reason"] for d in status["details"] if d.get("@type", "").endswith("ErrorInfo")] == [
        "UNSUPPORTED_OPERATION"
    ]


def test_the_client_that_reads_the_error_info_reports_its_code(results: dict[Run, ScenarioResult]) -> None:
    correct = results[CORRECT[GRPC]]
    assert correct.client is not None and correct.client.result is not None
    assert correct.client.result["error"] == {"code": -32004}
