"""Following tasks (spec §3.1.1-§3.1.3, §3.2.2, §4.1.3): no polling after a message, bounded polling, interruptions."""

from __future__ import annotations

from itertools import pairwise
from statistics import median

from a2a_lab.contract.journal_record import ResultKind, SentKind
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.protocol.operations import MESSAGE_SENDS, Operation
from a2a_lab.protocol.states import TaskState

#: GetTask calls one task may get before polling counts as unbounded.
MAX_POLLS_PER_TASK = 30
#: Polls faster than this (median gap, seconds, over at least MIN_POLLS_FOR_RATE polls) are impolite.
MIN_POLL_GAP_S = 0.05
MIN_POLLS_FOR_RATE = 5
_FOLLOW_UPS = (Operation.GET_TASK, Operation.SUBSCRIBE_TO_TASK, Operation.CREATE_PUSH_CONFIG)


def task_param(call: Call) -> str | None:
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
    Level.SHOULD,
    "A2A 1.0 §3.1.1, §3.1.2 (a Message answer creates no task); field note S1",
    "No GetTask after a direct message",
    "When SendMessage answers with a Message, no task exists: the exchange is complete and there is nothing to poll.",
    "the spec states this without a keyword; graded SHOULD (a GetTask after a message asks for a task that does not "
    "exist, and breaks no MUST)",
    rule=("A client takes a `message` answer to SendMessage as the whole reply, and does not call GetTask after it."),
    fix=("Branch on the SendMessage result: a `message` ends the exchange, and only a `task` is followed up."),
)
def no_poll_after_message(view: RunView, c: Check) -> CheckResult:
    sends = [call for call in view.a2a_calls if call.operation in MESSAGE_SENDS]
    messages = [call for call in sends if call.result_kind is ResultKind.MESSAGE]
    if not messages:
        return c.skipped("no send was answered with a message")
    task_ids = {o.task_id for o in view.observations() if o.task_id}
    polls = [g for g in _gets(view) if g.seq > messages[0].seq and task_param(g) not in task_ids]
    if polls:
        return c.broken(
            "the client polled GetTask after the server answered with a message",
            "no GetTask: a message is the final answer",
            f"{len(polls)} GetTask call(s) after {messages[0].label()}",
            polls,
        )
    return c.passed("the client took the message as the answer")


def _stops_polling(state: TaskState) -> bool:
    """Polling ends at a terminal state or INPUT_REQUIRED; at AUTH_REQUIRED §7.6.2 asks the client to follow the task
    (poll, subscribe or push) while the credentials are obtained out of band."""
    return state.stops and state is not TaskState.AUTH_REQUIRED


@check(
    "POLL-BOUNDED",
    Level.SHOULD,
    "A2A 1.0 §3.1.3, §3.2.2, §4.1.3 (terminal tasks never change); §7.6.2 (polling on at AUTH_REQUIRED)",
    "Polling is bounded and stops",
    "Follow-up GetTask calls stop at a terminal state or INPUT_REQUIRED (AUTH_REQUIRED may be polled on: §7.6.2), "
    f"stay bounded in number (at most {MAX_POLLS_PER_TASK} per task) and in rate (median gap at least "
    f"{int(MIN_POLL_GAP_S * 1000)} ms).",
    "the spec sets no keyword and no bound on polling; graded SHOULD, the lab's politeness bound. After AUTH_REQUIRED "
    "a client SHOULD poll, subscribe or register a webhook (§7.6.2), so polling on there is never a miss",
    rule=(
        "A client polls GetTask with pauses between calls, a bounded number of times, and stops at a "
        "terminal state or `INPUT_REQUIRED`."
    ),
    fix=(
        "Stop polling once the task is COMPLETED, FAILED, CANCELED, REJECTED or INPUT_REQUIRED; wait "
        "between polls (back off from about 100 ms) and cap the polls per task."
    ),
)
def poll_bounded(view: RunView, c: Check) -> CheckResult:
    gets = _gets(view)
    if not gets:
        return c.skipped("no GetTask")
    obs = view.observations()
    by_task: dict[str, list[Call]] = {}
    for g in gets:
        by_task.setdefault(task_param(g) or "?", []).append(g)
    for task_id, calls in by_task.items():
        stopped = [(o.seq, o.state) for o in obs if o.task_id == task_id and o.state and _stops_polling(o.state)]
        if stopped:
            seq, state = stopped[0]
            after = [g for g in calls if g.seq > seq]
            if len(after) > 1:
                return c.broken(
                    "GetTask went on after the task reached a terminal state or INPUT_REQUIRED",
                    f"no polling after {state.short}",
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


def _ended_by_stream(call: Call) -> bool:
    """A stream that ended in an error event (which answers the call: the exchange is over, §9.4.2) or broke
    (RESUBSCRIBE judges what the client does then): the tasks it reported are no open task left to FOLLOW-UP-TO-END."""
    events = call.entry.events or []
    return bool(events) and events[-1].kind in (SentKind.ERROR, SentKind.DROPPED)


def _followed_up(call: Call) -> bool:
    """A follow-up that can tell the client how its task ends: a SubscribeToTask (0.3 tasks/resubscribe) refused with an
    error (UnsupportedOperationError: the task was terminal already, §3.1.6) told it nothing; GetTask does (§3.1.3)."""
    if call.operation not in _FOLLOW_UPS:
        return False
    return not (call.operation is Operation.SUBSCRIBE_TO_TASK and call.result_kind is ResultKind.ERROR)


@check(
    "FOLLOW-UP-TO-END",
    Level.SHOULD,
    "A2A 1.0 §3.2.2, §3.3.3 (the caller polls, subscribes or receives push), §3.1.3, §3.1.6; 0.3 §7.3, §7.9",
    "Non-terminal tasks are followed up",
    "A task answered in SUBMITTED or WORKING is not the result: the client follows it up (GetTask, SubscribeToTask or "
    "a push webhook) to learn how it ends. A SubscribeToTask refused because the task has ended meanwhile "
    "(UnsupportedOperationError) is no follow-up: GetTask then tells the outcome.",
    'the spec makes following a task "the caller\'s responsibility" without a keyword (§3.2.2); graded SHOULD',
    rule=(
        "A client that gets a task in SUBMITTED or WORKING follows it (GetTask, SubscribeToTask or a push"
        " webhook) until it ends or is interrupted."
    ),
    fix=(
        "Treat SUBMITTED and WORKING as not done yet: poll GetTask, subscribe or register a webhook until"
        " the task reaches a terminal or interrupted state. When SubscribeToTask is refused because the "
        "task ended, call GetTask."
    ),
)
def follow_up_to_end(view: RunView, c: Check) -> CheckResult:
    obs = view.observations()
    ended_streams = {call.seq for call in view.a2a_calls if _ended_by_stream(call)}
    open_tasks = {
        o.task_id
        for o in obs
        if o.kind is ResultKind.TASK
        and o.task_id
        and o.state in (TaskState.SUBMITTED, TaskState.WORKING)
        and o.seq not in ended_streams
    }
    if not open_tasks:
        return c.skipped("no task was left in SUBMITTED or WORKING")
    calls = [call for call in view.a2a_calls if call.operation in _FOLLOW_UPS]
    followed = {task_param(call) for call in calls if _followed_up(call)}
    ended = {o.task_id for o in obs if o.state is not None and o.state.stops}
    missed = sorted(t for t in open_tasks if t not in followed and t not in ended)
    if missed:
        refused = [call for call in calls if task_param(call) == missed[0] and not _followed_up(call)]
        if refused:
            return c.broken(
                "the client subscribed to a task that had ended meanwhile, was refused, and did not ask GetTask",
                "GetTask for the task after SubscribeToTask was refused (the task is terminal: §3.1.6)",
                f"{refused[-1].label()} answered error {refused[-1].error_code}, then nothing for task {missed[0]}",
                refused,
            )
        return c.broken(
            "a task was left unfinished without any follow-up",
            "GetTask, SubscribeToTask or a push config for the task",
            f"nothing for task {missed[0]}",
        )
    return c.passed("every open task was followed up")


@check(
    "INTERRUPTED-HANDLED",
    Level.SHOULD,
    "A2A 1.0 §3.2.2, §7.6, §4.1.3 (interrupted states)",
    "Interrupted is not failure",
    "INPUT_REQUIRED and AUTH_REQUIRED are interrupted states: the exchange pauses for the user. A client stops polling "
    "and reports the question (and, in its result, the interrupted state), not a failure.",
    rule=(
        "A client treats `INPUT_REQUIRED` and `AUTH_REQUIRED` as a pause for the user, reporting the "
        "agent's question and the interrupted state, never a failure."
    ),
    fix=(
        "On INPUT_REQUIRED or AUTH_REQUIRED stop waiting for completion, show the agent's message and "
        "report the interrupted state; do not turn it into an error."
    ),
)
def interrupted_handled(view: RunView, c: Check) -> CheckResult:
    final = view.final_answer()
    state = final.state if final is not None else None
    if state not in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED):
        return c.skipped("the task did not end interrupted")
    assert state is not None
    result = view.client_result
    if result is None:
        # Whether the client took the pause for a failure is its conclusion: no request shows it.
        return c.result(
            Outcome.UNIMPLEMENTED, f"the task ended {state.short}; the client wrote no A2A_LAB_RESULT to judge"
        )
    from a2a_lab.protocol import states

    reported = states.parse(result.get("state"))
    if reported is not state:
        return c.broken(
            "the client's result does not report the interrupted state", state.short, repr(result.get("state"))
        )
    return c.passed(f"the client reported {state.short}")


def message_ids(call: Call) -> tuple[str | None, str | None]:
    """The (taskId, contextId) a sent message carries (0.3 HTTP+JSON spells them in snake_case)."""
    message = call.message()
    if not isinstance(message, dict):
        return None, None
    task_id = message.get("taskId") or message.get("task_id")
    context_id = message.get("contextId") or message.get("context_id")
    return (task_id if isinstance(task_id, str) else None), (context_id if isinstance(context_id, str) else None)


@check(
    "CONTEXT-ID-INVENTED",
    Level.SHOULD,
    "A2A 1.0 §3.4.1 (SHOULD NOT); 0.3 §6.4 Message.contextId (optional, no rule)",
    "No contextId of the client's own",
    "Clients SHOULD NOT provide a client-generated contextId unless they understand how the server will process it: a "
    "message that starts a task carries no contextId, or one the server issued earlier in the run. (A follow-up's "
    "contextId, sent with a taskId, is MULTI-TURN's to judge.)",
    "spec keyword SHOULD NOT (§3.4.1): a miss is NON_STRICT. No scenario's agent says it accepts client contextIds. "
    "0.3 states no such rule; the same message means the same to a server, so 0.3 clients are judged by it too",
    rule="A client starting a task sends no `contextId`, or only one the agent issued earlier.",
    fix=(
        "Leave `contextId` out of a message that starts a task, and reuse only a `contextId` the agent "
        "returned; do not generate one on the client."
    ),
)
def context_id_invented(view: RunView, c: Check) -> CheckResult:
    sends = [call for call in view.a2a_calls if call.operation in MESSAGE_SENDS]
    if not sends:
        return c.skipped("no message was sent")
    obs = view.observations()
    judged = 0
    for call in sends:
        task_id, context_id = message_ids(call)
        if task_id:
            continue
        judged += 1
        issued = {o.context_id for o in obs if o.seq < call.seq and o.context_id}
        if context_id and context_id not in issued:
            return c.broken(
                "the client sent a contextId the server never gave it",
                "no contextId on a message that starts a task, or one the server issued"
                + (f" ({', '.join(sorted(issued)[:3])})" if issued else ""),
                f"contextId {context_id!r}",
                [call],
            )
    if not judged:
        return c.skipped("every message continued a task (MULTI-TURN judges its contextId)")
    return c.passed(f"{judged} message(s) started a task without a contextId of the client's own")
