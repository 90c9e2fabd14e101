"""Task generations (spec revision 1.1, the `dev-1.1` draft, §3.2.7): how a client uses them, judged from the journal.

A client may long-poll GetTask with `currentGeneration` and guard a follow-up with `ifGenerationMatch`, but only
with an agent that gave the task a generation (>= 1): one that gave none (0, or no member: every 1.0 server) does
not implement them, and the client MUST NOT use them there. A precondition the agent refuses
(TaskGenerationMismatchError) SHOULD be followed by a fresh GetTask before the client decides to send again.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.checks.tasks import task_param
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.protocol import revisions
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import MESSAGE_SENDS, Operation


@dataclass(frozen=True)
class _Use:
    """A call that used a generation: which member, the value, the task it is about."""

    call: Call
    member: str
    value: object
    task_id: str | None


def _members(call: Call) -> dict[str, object]:
    """The generation members a call sent: GetTask's `currentGeneration` (JSON-RPC params, HTTP+JSON query) and a
    send's `configuration.ifGenerationMatch`."""
    params = call.params()
    params = params if isinstance(params, dict) else {}
    if call.operation is Operation.GET_TASK:
        queried = parse_qs(call.entry.query).get(revisions.CURRENT_GENERATION)
        value = params.get(revisions.CURRENT_GENERATION, queried[0] if queried else None)
        return {revisions.CURRENT_GENERATION: value} if value is not None else {}
    if call.operation in MESSAGE_SENDS:
        cfg = params.get("configuration")
        if isinstance(cfg, dict) and cfg.get(revisions.IF_GENERATION_MATCH) is not None:
            return {revisions.IF_GENERATION_MATCH: cfg[revisions.IF_GENERATION_MATCH]}
    return {}


def _uses(view: RunView) -> list[_Use]:
    out: list[_Use] = []
    for call in view.a2a_calls:
        for member, value in _members(call).items():
            msg = call.message() if member == revisions.IF_GENERATION_MATCH else None
            task_id = msg.get("taskId") if isinstance(msg, dict) else task_param(call)
            out.append(_Use(call, member, value, task_id if isinstance(task_id, str) else None))
    return out


def _about(call: Call) -> str | None:
    """The task a call is about: a message's taskId, or the task a task operation names."""
    msg = call.message() if call.operation in MESSAGE_SENDS else None
    value = msg.get("taskId") if isinstance(msg, dict) else task_param(call)
    return value if isinstance(value, str) else None


def _given(view: RunView, task_id: str | None, before: int) -> int:
    """The latest generation the agent gave a task before a call (0: none)."""
    given = [o.generation for o in view.observations() if o.task_id == task_id and o.seq < before and o.generation]
    return given[-1] if given else 0


@check(
    "GENERATION-UNKNOWN-NOT-USED",
    Level.MUST,
    f"{revisions.GENERATION_SECTION} (dev-1.1 draft, Backwards Compatibility)",
    "Generations are used only where the agent gave one",
    "A client that sees no generation (0, or no `generation` member) on a task MUST conclude that the agent does not "
    "implement generations and MUST NOT use them: no GetTask `currentGeneration` and no "
    "`configuration.ifGenerationMatch` about that task until the agent gave it a generation >= 1.",
    rule=(
        "A client uses task generations (`currentGeneration`, `ifGenerationMatch`) only on a task the "
        "agent gave a generation of 1 or more."
    ),
    fix=(
        "Read `generation` from the task: when it is absent or 0, send GetTask without "
        "`currentGeneration` and messages without `configuration.ifGenerationMatch`."
    ),
)
def generation_unknown_not_used(view: RunView, c: Check) -> CheckResult:
    uses = _uses(view)
    if not uses:
        return c.skipped("the client used no generation")
    for use in uses:
        if not _given(view, use.task_id, use.call.seq):
            return c.broken(
                f"{use.member} sent about a task the agent gave no generation (a server without generations)",
                "no currentGeneration or ifGenerationMatch before the agent gives the task a generation >= 1",
                f"{use.member} {use.value!r} about task {use.task_id!r}",
                [use.call],
            )
    first = uses[0]
    return c.passed(
        f"{len(uses)} call(s) used a generation, each about a task the agent gave one (first: {first.member} "
        f"{first.value!r}, the agent had given {_given(view, first.task_id, first.call.seq)})",
        [first.call],
    )


@check(
    "GENERATION-LONG-POLL",
    Level.MAY,
    f"{revisions.GENERATION_SECTION} (dev-1.1 draft, Long-Polling)",
    "GetTask long-polls on a task with a generation",
    "Following up a task the agent gave a generation (>= 1), the client may long-poll: GetTask with "
    "`currentGeneration` set to the latest generation it was given, which the agent answers when the task moves past "
    "it. A value above every generation the agent gave waits for a change that has not been announced.",
    "the draft offers long-polling without a keyword for clients; graded MAY: a client that polls plainly is "
    "UNIMPLEMENTED, never a miss",
    rule=(
        "A client may long-poll a task that has a generation, with GetTask's `currentGeneration` set to "
        "the latest generation the agent gave."
    ),
    fix=(
        "To long-poll, set `currentGeneration` to the newest `generation` you received for the task, "
        "never a value the agent has not announced."
    ),
)
def generation_long_poll(view: RunView, c: Check) -> CheckResult:
    gets = [g for g in view.a2a_calls if g.operation is Operation.GET_TASK and _given(view, task_param(g), g.seq)]
    if not gets:
        return c.skipped("no GetTask about a task the agent gave a generation")
    polls = [u for u in _uses(view) if u.member == revisions.CURRENT_GENERATION and u.call in gets]
    if not polls:
        return c.result(
            Outcome.UNIMPLEMENTED,
            f"{len(gets)} GetTask call(s) on a task with a generation, none with currentGeneration (plain polling)",
        )
    for poll in polls:
        given = _given(view, poll.task_id, poll.call.seq)
        if revisions.read_generation(poll.value) > given:
            return c.broken(
                "currentGeneration above every generation the agent gave the task",
                f"currentGeneration at most {given}, the latest generation given",
                f"currentGeneration {poll.value!r}",
                [poll.call],
            )
    first = polls[0]
    return c.passed(
        f"{len(polls)} of {len(gets)} GetTask call(s) long-polled (first: currentGeneration {first.value!r}, the "
        "latest generation the agent had given)",
        [first.call],
    )


def _refused_for_generation(call: Call) -> bool:
    """A send the agent refused with TaskGenerationMismatchError: its ErrorInfo reason, in the JSON-RPC error's
    `data` or the HTTP+JSON error's `details` (the code, -32010, is also a2a-lab's Unauthenticated)."""
    if call.operation not in MESSAGE_SENDS:
        return False
    reason = ErrorType.TASK_GENERATION_MISMATCH.kind.reason
    for body in call.responses():
        error = body.get("error") if isinstance(body, dict) else None
        details = (error.get("data") or error.get("details")) if isinstance(error, dict) else None
        if isinstance(details, list) and any(isinstance(d, dict) and d.get("reason") == reason for d in details):
            return True
    return False


@check(
    "GENERATION-MISMATCH-REFETCH",
    Level.SHOULD,
    f"{revisions.GENERATION_SECTION}, §11.6 (dev-1.1 draft: Generation Mismatch Error)",
    "A refused precondition is followed by a fresh read of the task",
    "After the agent refuses a message's `ifGenerationMatch` with TaskGenerationMismatchError (the task moved since "
    "the client read it), the client SHOULD re-fetch the task with GetTask before it decides whether to send again: "
    "its next call about that task is a GetTask, not the same send again.",
    rule=(
        "After TaskGenerationMismatchError refuses its `ifGenerationMatch`, a client re-reads the task "
        "with GetTask before it decides whether to send again."
    ),
    fix=(
        "On TaskGenerationMismatchError call GetTask for the task and decide from its current state; do "
        "not resend the same message straight away."
    ),
)
def generation_mismatch_refetch(view: RunView, c: Check) -> CheckResult:
    refused = [call for call in view.a2a_calls if _refused_for_generation(call)]
    if not refused:
        return c.skipped("no message refused with TaskGenerationMismatchError")
    for call in refused:
        task_id = _about(call)
        after = [n for n in view.a2a_calls if n.seq > call.seq and _about(n) == task_id]
        if after and after[0].operation is not Operation.GET_TASK:
            return c.broken(
                "sent about the task again without re-reading it after TaskGenerationMismatchError",
                "GetTask for the task before another message about it",
                f"{after[0].operation.value if after[0].operation else '?'} next",
                [call, after[0]],
            )
        if not after:
            return c.broken(
                "gave up on the task after TaskGenerationMismatchError without re-reading it",
                "GetTask for the task after the refusal",
                "no further call about the task",
                [call],
            )
    return c.passed(f"{len(refused)} refusal(s), each followed by a GetTask for the task", refused[:1])
