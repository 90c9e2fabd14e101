"""The runner's own streams: ACTS §3.2's runner requirements `concurrent_streams` (open several streams at once) and
`stream_disconnect` (hang up mid-stream and subscribe again), carried out on a test's streaming steps.

concurrent_streams, as A2A 1.0 §3.5.2 states what it tests (several streams on one task each get the same events in
the same order, and closing one does not affect the others): the step's own stream (A) runs as usual; once its first
event names the task, the runner opens two SubscribeToTask streams on that task (B and C) and hangs C up after its
first event. B, after its snapshot (§3.1.6: a subscription starts with the task), must get the events A got from
the moment it joined: its events are the end of A's, in the same order; A and B must each go on to the end the task
reaches (a final state, or a message), not be cut off when C closes. The step's own expectations judge A.

stream_disconnect: the step's stream is hung up after its first event (mid-flight) and the task subscribed again
(SubscribeToTask on the task its first event names); the new stream must be accepted, start with the task
(§3.1.6) and go on to the end; the step's own expectations judge it.

When the task ends before the runner could take its part (a SubscribeToTask refused with UnsupportedOperationError and
GetTask then showing the task terminal; C closed after the task's last event), the SUT did nothing wrong and the
requirement was not tested: the test ends in `error` (NotJudged), never `pass`. The draft declares neither requirement
on its own tests: a `runner-special` test tagged `concurrent` or `resubscribe` is read as declaring
it (docs/how-to/acts.md).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from a2a_lab.harness.acts.document import Test
from a2a_lab.harness.acts.exchange import OnEvent, Reply
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.states import TaskState

CONCURRENT = "concurrent_streams"
DISCONNECT = "stream_disconnect"
#: The requirements this module carries out, and the draft's tags that stand for them on a `runner-special` test.
PROVIDED = (CONCURRENT, DISCONNECT)
RUNNER_SPECIAL = "runner-special"
REQUIREMENT_TAGS = {"concurrent": CONCURRENT, "resubscribe": DISCONNECT}
STREAMING = ("send_streaming_message", "subscribe_to_task")
SECOND = "the second stream (SubscribeToTask)"
THIRD = "the third stream (SubscribeToTask, hung up after its first event)"
_FINAL = frozenset(s.value for s in TaskState if s.terminal or s.interrupted)
_TERMINAL = frozenset(s.value for s in TaskState if s.terminal)


class Sender(Protocol):
    """What the runner's exchangers offer (exchange.Exchanger, exchange.GrpcExchanger)."""

    deadline: float

    def operation(
        self,
        operation: str,
        params: Mapping[str, Any],
        stream_timeout: float | None = None,
        on_event: OnEvent | None = None,
    ) -> Reply: ...


class NotJudged(LabError):
    """The requirement could not be carried out through no fault of the server (the task ended first)."""


@dataclass(frozen=True)
class Miss:
    """What the server did wrong with the runner's streams."""

    message: str
    expected: str
    actual: str


@dataclass
class Outcome:
    """The stream the step's expectations judge, and the verdict on the runner's own streams."""

    reply: Reply
    miss: Miss | None = None
    not_judged: str = ""


def requirements(test: Test) -> tuple[str, ...]:
    """The runner requirements `test` declares, with those the draft's tags stand for on a runner-special test."""
    out = list(test.runner_requirements)
    if RUNNER_SPECIAL in test.tags:
        out += [req for tag, req in REQUIREMENT_TAGS.items() if tag in test.tags and req not in out]
    return tuple(out)


def applies(test: Test, operation: str) -> str:
    """The requirement this module carries out on a step of `operation` in `test` ("" for none)."""
    if operation not in STREAMING:
        return ""
    needs = requirements(test)
    return next((req for req in PROVIDED if req in needs), "")


@dataclass
class _Tap:
    """One stream read in a thread of its own: its events and when each arrived; hangs up after `keep` events."""

    keep: int | None = None
    events: list[Any] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    first: threading.Event = field(default_factory=threading.Event)
    closed_at: float | None = None
    reply: Reply | None = None
    fault: BaseException | None = None
    #: The task's state GetTask showed right after this stream was refused (the task it follows; None: not asked).
    state_after: str | None = None

    def __call__(self, event: Any) -> bool:
        self.events.append(event)
        self.times.append(time.monotonic())
        self.first.set()
        if self.keep is not None and len(self.events) >= self.keep:
            self.closed_at = time.monotonic()
            return False
        return True

    def start(
        self, sender: Sender, operation: str, params: Mapping[str, Any], timeout: float | None, follows: str = ""
    ) -> threading.Thread:
        def read() -> None:
            try:
                self.reply = sender.operation(operation, params, timeout, self)
                if follows and not self.reply.events and self.reply.error is not None:
                    self.state_after = task_state(sender, follows)
            except BaseException as exc:  # handed to the runner's thread, which reports it as a runner error
                self.fault = exc
            finally:
                self.first.set()

        thread = threading.Thread(target=read, name=f"acts-stream-{operation}", daemon=True)
        thread.start()
        return thread

    def result(self, thread: threading.Thread, ends: float) -> Reply:
        thread.join(max(0.0, ends - time.monotonic()) + 1.0)
        if self.fault is not None:
            raise self.fault
        if self.reply is None:
            raise NotJudged("a stream did not end by the test's deadline")
        return self.reply


def concurrent(sender: Sender, operation: str, params: Mapping[str, Any], timeout: float | None) -> Outcome:
    """The step's stream with two more on its task (concurrent_streams, as the module says)."""
    ends = sender.deadline
    a = _Tap()
    thread = a.start(sender, operation, params, timeout)
    a.first.wait(max(0.0, ends - time.monotonic()))
    tid = task_id(a.events[0]) if a.events else None
    if tid is None:
        reply = a.result(thread, ends)
        said = "got no event" if not reply.events else "names no task (a message answers it)"
        return Outcome(reply, not_judged=f"the step's stream {said}: no second stream can follow a task")
    b, c = _Tap(), _Tap(keep=1)
    threads = [b.start(sender, "subscribe_to_task", {"id": tid}, timeout, tid)]
    threads.append(c.start(sender, "subscribe_to_task", {"id": tid}, timeout, tid))
    ra, rb, rc = a.result(thread, ends), b.result(threads[0], ends), c.result(threads[1], ends)
    try:
        for name, tap, reply in ((SECOND, b, rb), (THIRD, c, rc)):
            if not reply.events:
                return Outcome(ra, _refused(name, reply, tap.state_after))
        return Outcome(ra, _went_on(ra, rb) or _same_events(ra, rb) or _closed_in_time(a, b, c))
    except NotJudged as exc:
        return Outcome(ra, not_judged=str(exc))


def _same_events(ra: Reply, rb: Reply) -> Miss | None:
    """B's events after its snapshot are the end of A's, in the same order."""
    first = rb.events[0]
    if not (isinstance(first, dict) and "task" in first):
        return Miss(f"{SECOND} began with {_shown([first])} (§3.1.6: the task first)", "a task", _shown([first]))
    rest = rb.events[1:]
    if not rest:
        if state(first) in _FINAL:
            raise NotJudged(f"the task was at {state(first)} when {SECOND} joined: no event was left to compare")
        return _cut(SECOND, rb)
    got, want = [_canonical(e) for e in rest], [_canonical(e) for e in ra.events]
    if len(got) > len(want) or want[len(want) - len(got) :] != got:
        return Miss(
            f"{SECOND} did not get the same events as the step's stream after its snapshot (A2A §3.5.2)",
            _shown(ra.events[-len(rest) :]),
            _shown(rest),
        )
    return None


def _went_on(ra: Reply, rb: Reply) -> Miss | None:
    """A and B went on to the task's end after C was hung up."""
    miss = _cut("the step's stream", ra) or _cut(SECOND, rb)
    if miss is not None:
        return Miss(f"{miss.message}, after {THIRD} was closed (A2A §3.5.2)", miss.expected, miss.actual)
    return None


def _closed_in_time(a: _Tap, b: _Tap, c: _Tap) -> Miss | None:
    """NotJudged when C was closed after the task's last event (its closing could affect nothing)."""
    closed = c.closed_at
    if closed is None or max(a.times[-1], b.times[-1]) < closed:
        raise NotJudged(f"the task's last event came before {THIRD} was closed: closing it could affect nothing")
    return None


def disconnect(sender: Sender, operation: str, params: Mapping[str, Any], timeout: float | None) -> Outcome:
    """The step's stream hung up after its first event, the task subscribed again (stream_disconnect)."""
    first = _Tap(keep=1)
    reply = sender.operation(operation, params, timeout, first)
    if not reply.events:
        return Outcome(reply, not_judged="the step's stream got no event: nothing to hang up")
    tid = task_id(reply.events[0])
    if tid is None or state(reply.events[0]) in _TERMINAL or not reply.hung_up:
        said = "names no task" if tid is None else f"is the task at {state(reply.events[0])}"
        return Outcome(reply, not_judged=f"the step's stream's first event {said}: no stream to resubscribe mid-flight")
    again = sender.operation("subscribe_to_task", {"id": tid}, timeout)
    name = "the stream subscribed again after the hang-up"
    if not again.events:  # the step's expectations judge the first stream, the verdict says what the second got
        try:
            at = task_state(sender, tid) if again.error is not None else None
            return Outcome(reply, _refused(name, again, at))
        except NotJudged as exc:
            return Outcome(reply, not_judged=str(exc))
    head = again.events[0]
    if task_id(head) != tid or not (isinstance(head, dict) and "task" in head):
        return Outcome(again, Miss(f"{name} began with {_shown([head])} (§3.1.6: the task first)", "the task", ""))
    return Outcome(again, _cut(name, again))


def task_state(sender: Sender, tid: str) -> str | None:
    """The task's state as GetTask answers it now (None: no state in the answer)."""
    now = sender.operation("get_task", {"id": tid})
    root = now.root if isinstance(now.root, dict) else {}
    status = root.get("status")
    return str(status["state"]) if isinstance(status, dict) and isinstance(status.get("state"), str) else None


def _refused(name: str, reply: Reply, at: str | None) -> Miss:
    """A SubscribeToTask that got no event: the server's fault, unless it was refused as A2A says for a task that had
    ended (UnsupportedOperationError, §3.1.6) and GetTask, asked right after, shows the task terminal (`at`; then
    NotJudged: states only move on, so a task live after the refusal was live at it)."""
    err = reply.error
    said = f"{err.name or err.code}: {err.message}" if err is not None else (reply.problem or "no event")
    if err is None:
        return Miss(f"{name} got no event ({said}; §3.1.6: a subscription starts with the task)", "a task", said)
    if err.name == "UnsupportedOperationError":
        if at in _TERMINAL:
            raise NotJudged(
                f"{name} was refused ({said}): the task ({at}) had ended before the runner could open it; the SUT's "
                "stream must last long enough for a second stream to join it"
            )
        said += f"; GetTask then showed the task at {at or 'no state'}"
    return Miss(f"{name} was refused with {said} while the task went on", "the task's events", said)


def task_id(event: Any) -> str | None:
    """The id of the task a StreamResponse is about."""
    if not isinstance(event, dict):
        return None
    task = event.get("task")
    if isinstance(task, dict) and isinstance(task.get("id"), str):
        return str(task["id"])
    for kind in ("statusUpdate", "artifactUpdate"):
        update = event.get(kind)
        if isinstance(update, dict) and isinstance(update.get("taskId"), str):
            return str(update["taskId"])
    return None


def state(event: Any) -> str | None:
    """The task state a StreamResponse carries (a task's or a status update's)."""
    if not isinstance(event, dict):
        return None
    for kind in ("task", "statusUpdate"):
        holder = event.get(kind)
        status = holder.get("status") if isinstance(holder, dict) else None
        if isinstance(status, dict) and isinstance(status.get("state"), str):
            return str(status["state"])
    return None


def _shown(events: Sequence[Any]) -> str:
    kinds = [next(iter(e), "?") if isinstance(e, dict) and e else "?" for e in events]
    states = [state(e) for e in events]
    return ", ".join(f"{k}({s})" if s else k for k, s in zip(kinds, states, strict=True)) or "no event"


def _canonical(event: Any) -> str:
    return json.dumps(event, sort_keys=True, default=str)


def _cut(name: str, reply: Reply) -> Miss | None:
    """A stream that did not go on to the task's end."""
    if reply.error is not None:
        said = f"{reply.error.name or reply.error.code}: {reply.error.message}"
        return Miss(f"{name} ended with an error ({said})", "the task's events to its end", said)
    if reply.problem or not reply.stream_ended:
        return Miss(f"{name} broke off: {reply.problem or 'it did not end'}", "the task's events to its end", "")
    last = reply.events[-1] if reply.events else None
    if isinstance(last, dict) and "message" in last:
        return None
    if state(last) not in _FINAL:
        return Miss(
            f"{name} ended at {state(last) or 'no state'} ({_shown(reply.events)}): a stream ends at a final state",
            "a final state",
            str(state(last)),
        )
    return None
