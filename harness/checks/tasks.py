"""Following tasks (spec §3.1.1-§3.1.3, §3.2.2, §8): no polling after a message, bounded polling, interrupted states."""

from __future__ import annotations

from itertools import pairwise
from statistics import median

from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.server.journal_record import ResultKind

from ..journal_view import Call, RunView
from ..model import CheckResult, Level
from .base import Check, check

#: GetTask calls one task may get before polling counts as unbounded.
MAX_POLLS_PER_TASK = 30
#: Polls faster than this (median gap, seconds, over at least MIN_POLLS_FOR_RATE polls) are impolite.
MIN_POLL_GAP_S = 0.05
MIN_POLLS_FOR_RATE = 5
_FOLLOW_UPS = (Operation.GET_TASK, Operation.SUBSCRIBE_TO_TASK, Operation.CREATE_PUSH_CONFIG)


def _task_param(call: Call) -> str | None:
    route = call.entry.route.params if call.entry.route else {}
    if route.get("id") or route.get("taskId"):
        return route.get("id") or route.get("taskId")
    params = call.params()
    if not isinstance(params, dict):
        return None
    value = params.get("id") if call.operation is not Operation.CREATE_PUSH_CONFIG else params.get("taskId")
    return value if isinstance(value, str) else None


def _gets(view: RunView) -> list[Call]:
    return [c for c in view.a2a_calls if c.operation is Operation.GET_TASK]


@check(
    "NO-POLL-AFTER-MESSAGE",
    Level.MUST,
    "A2A 1.0 §3.1.1 (a Message answer creates no task); field note S1",
    "No GetTask after a direct message",
    "When SendMessage answers with a Message, no task exists: the exchange is complete and there is nothing to poll.",
    "graded MUST: a GetTask after a message can only ask for a task that does not exist",
)
def no_poll_after_message(view: RunView, c: Check) -> CheckResult:
    sends = [
        call for call in view.a2a_calls if call.operation in (Operation.SEND_MESSAGE, Operation.SEND_STREAMING_MESSAGE)
    ]
    messages = [call for call in sends if call.result_kind is ResultKind.MESSAGE]
    if not messages:
        return c.skipped("no send was answered with a message")
    task_ids = {o.task_id for o in view.observations() if o.task_id}
    polls = [g for g in _gets(view) if g.seq > messages[0].seq and _task_param(g) not in task_ids]
    if polls:
        return c.broken(
            "the client polled GetTask after the server answered with a message",
            "no GetTask: a message is the final answer",
            f"{len(polls)} GetTask call(s) after {messages[0].label()}",
            polls,
        )
    return c.passed("the client took the message as the answer")


@check(
    "POLL-BOUNDED",
    Level.MUST,
    "A2A 1.0 §3.1.3, §8 (terminal tasks never change), §3.2.2",
    "Polling is bounded and stops",
    f"Follow-up GetTask calls stop at a terminal or interrupted state, stay bounded in number (at most "
    f"{MAX_POLLS_PER_TASK} per task) and in rate (median gap at least {int(MIN_POLL_GAP_S * 1000)} ms).",
    "graded MUST: an unbounded or tight polling loop is a denial of service against the agent",
)
def poll_bounded(view: RunView, c: Check) -> CheckResult:
    gets = _gets(view)
    if not gets:
        return c.skipped("no GetTask")
    obs = view.observations()
    by_task: dict[str, list[Call]] = {}
    for g in gets:
        by_task.setdefault(_task_param(g) or "?", []).append(g)
    for task_id, calls in by_task.items():
        stop = next(
            ((o.seq, o.state) for o in obs if o.task_id == task_id and o.state is not None and o.state.stops), None
        )
        if stop is not None:
            stop_seq, stop_state = stop
            after = [g for g in calls if g.seq > stop_seq]
            if len(after) > 1:
                return c.broken(
                    "GetTask went on after the task reached a terminal or interrupted state",
                    f"no polling after {stop_state.short}",
                    f"{len(after)} GetTask calls after it",
                    after,
                )
        if len(calls) > MAX_POLLS_PER_TASK:
            return c.broken(
                "unbounded polling",
                f"at most {MAX_POLLS_PER_TASK} GetTask calls per task",
                f"{len(calls)} calls for task {task_id}",
                calls[-1:],
            )
        if len(calls) >= MIN_POLLS_FOR_RATE:
            gap = median(b.t - a.t for a, b in pairwise(calls))
            if gap < MIN_POLL_GAP_S:
                return c.broken(
                    "polling too fast",
                    f"a median gap of at least {int(MIN_POLL_GAP_S * 1000)} ms",
                    f"{gap * 1000:.1f} ms over {len(calls)} calls",
                    calls[-1:],
                )
    return c.passed(f"{len(gets)} GetTask call(s), bounded and stopped in time")


@check(
    "FOLLOW-UP-TO-END",
    Level.SHOULD,
    "A2A 1.0 §3.1.3, §3.2.2, §7.6.2 (C19)",
    "Non-terminal tasks are followed up",
    "A task answered in SUBMITTED or WORKING is not the result: the client follows it up (GetTask, SubscribeToTask or "
    "a push webhook) to learn how it ends.",
)
def follow_up_to_end(view: RunView, c: Check) -> CheckResult:
    obs = view.observations()
    open_tasks = {
        o.task_id
        for o in obs
        if o.kind is ResultKind.TASK and o.task_id and o.state in (TaskState.SUBMITTED, TaskState.WORKING)
    }
    if not open_tasks:
        return c.skipped("no task was left in SUBMITTED or WORKING")
    followed = {_task_param(call) for call in view.a2a_calls if call.operation in _FOLLOW_UPS}
    ended = {o.task_id for o in obs if o.state is not None and o.state.stops}
    missed = sorted(t for t in open_tasks if t not in followed and t not in ended)
    if missed:
        return c.broken(
            "a task was left unfinished without any follow-up",
            "GetTask, SubscribeToTask or a push config for the task",
            f"nothing for task {missed[0]}",
        )
    return c.passed("every open task was followed up")


@check(
    "INTERRUPTED-HANDLED",
    Level.SHOULD,
    "A2A 1.0 §3.2.2, §7.6, §8 (interrupted states)",
    "Interrupted is not failure",
    "INPUT_REQUIRED and AUTH_REQUIRED are interrupted states: the exchange pauses for the user. A client stops polling "
    "and reports the question (and, in its result, the interrupted state), not a failure.",
)
def interrupted_handled(view: RunView, c: Check) -> CheckResult:
    final = view.final_answer()
    if final is None or final.state not in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED):
        return c.skipped("the task did not end interrupted")
    result = view.client_result
    if result is None:
        return c.passed(f"the task ended {final.state.short}; the client wrote no result to judge further")
    from a2a_lab.protocol import states

    reported = states.parse(result.get("state"))
    if reported is not final.state:
        return c.broken(
            "the client's result does not report the interrupted state", final.state.short, repr(result.get("state"))
        )
    return c.passed(f"the client reported {final.state.short}")
