"""Following a task that has not stopped yet to its end, within bounds, in one of three ways:

- GetTask, at most `follow` times per turn, waiting a little longer each time (the default);
- SubscribeToTask after a stream broke off or closed early (when asked to resubscribe), then GetTask;
- the client's own webhook (when one is registered), with GetTask as the fallback whenever no
  notification arrives in time; and, once the task stops, the webhook waits (bounded) for the
  notification of that state, so the agent is not cut off mid-delivery.
"""

from __future__ import annotations

import copy
import time

from a2a_lab.contract.handshake import ResultKind
from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.options import ClientOptions
from a2a_lab.harness.clients.refclient.reading import (
    Answer,
    StreamFold,
    TaskView,
    parsed_answer,
    parsed_error,
    read_task,
)
from a2a_lab.harness.clients.refclient.result import Result
from a2a_lab.harness.clients.refclient.streaming import StreamEnd, consume
from a2a_lab.harness.clients.refclient.transport import A2ATransport
from a2a_lab.harness.clients.refclient.webhook import Notification, WebhookReceiver
from a2a_lab.protocol import revisions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.forms import Form, push_form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version


def _stops(note: Notification) -> bool:
    return note.state is not None and note.state.stops


class Follower:
    """One turn's follow-up of one task. `task` is always the latest view the client has of it."""

    def __init__(
        self,
        transport: A2ATransport,
        options: ClientOptions,
        result: Result,
        task: TaskView,
        receiver: WebhookReceiver | None = None,
        since: int = 0,
    ) -> None:
        self.transport, self.options, self.result = transport, options, result
        self.task = task
        self.receiver = receiver
        #: The receiver's cursor when this turn's message was sent: older notifications belong to earlier turns.
        self.since = since
        self.polls = 0

    @property
    def warnings(self) -> list[str]:
        return self.result.warnings

    def follow(self, streamed: bool, may_subscribe: bool) -> TaskView:
        """Follow the task up until it stops or the bounds are reached; returns the latest view."""
        if not self.task.stops and self.task.id is not None:
            if streamed and self.options.resubscribe and may_subscribe:
                self.resubscribe()
            elif self.receiver is not None:
                self.await_push()
            else:
                self.poll()
        self.drain()
        return self.task

    # ------------------------------------------------------------------------------- GetTask

    def poll(self) -> TaskView:
        delays = self.options.delays()
        while not self.task.stops and self.task.id is not None and self.polls < len(delays):
            self.options.sleep(delays[self.polls])
            self.get_task()
        return self.task

    def get_task(self) -> TaskView:
        """One GetTask for the task, counted against this turn's budget."""
        task = self.task
        self.polls += 1
        self.result.follow_ups += 1
        try:
            body = self.transport.call(Operation.GET_TASK, self._get_params(task), self.warnings)
        except ClientFailure as failure:
            self.result.parsed_answers["get_task"] = parsed_error(failure.as_dict())
            raise ClientFailure(
                failure.type, f"GetTask follow-up #{self.result.follow_ups}: {failure.message}", failure.details
            ) from None
        fresh = read_task(body, self.transport.form, "GetTask result", self.warnings)
        self.result.parsed_answers["get_task"] = parsed_answer(Answer(ResultKind.TASK, task=fresh))["task"]
        if fresh.id != task.id:
            self.warnings.append(f"GetTask for {task.id!r} answered task {fresh.id!r}")
            fresh.id = fresh.id or task.id
        fresh.context_id = fresh.context_id or task.context_id
        self.task = fresh
        return fresh

    def _get_params(self, task: TaskView) -> dict[str, object]:
        """GetTask's params: a long-poll (`currentGeneration`, spec 1.1 §3.2.7) when the agent gave the task a
        generation, so the answer comes when the task moves; never for an agent that gave none (§3.2.7: MUST NOT),
        nor over gRPC, whose 1.0 request message has no such field."""
        params: dict[str, object] = {"id": task.id}
        transport = self.transport
        if task.generation >= 1 and transport.version is Version.V1_0 and transport.binding is not Binding.GRPC:
            params[revisions.CURRENT_GENERATION] = str(task.generation)
        return params

    # ------------------------------------------------------------------------------- SubscribeToTask

    def resubscribe(self) -> TaskView:
        """SubscribeToTask for the task (once); GetTask when that fails or ends before the task stops."""
        task = self.task
        self.result.resubscribed = True
        try:
            end = self._subscribe(task)
        except ClientFailure as failure:
            self.warnings.append(
                f"SubscribeToTask for task {task.id} failed ({failure.message}); following up with GetTask"
            )
            return self.poll()
        fresh = end.answer.task
        if end.answer.kind is not ResultKind.TASK or fresh is None:
            self.warnings.append("SubscribeToTask answered a message, not the task; following up with GetTask")
            return self.poll()
        if fresh.id != task.id:
            if fresh.id is not None:
                self.warnings.append(f"SubscribeToTask for {task.id!r} streamed task {fresh.id!r}")
            fresh.id = fresh.id or task.id
        fresh.context_id = fresh.context_id or task.context_id
        self.task = fresh
        if end.broken is not None:
            self.warnings.append(f"the subscription broke off too ({end.broken.message}); following up with GetTask")
        if not fresh.stops:
            return self.poll()
        return fresh

    def _subscribe(self, task: TaskView) -> StreamEnd:
        """SubscribeToTask; while it reaches no server at all, again after a polite delay, for at most the connect
        timeout: the connection the stream broke on may still be going down (a gRPC channel fails calls at once until
        it has reconnected, and on a busy machine that takes more than one try)."""
        deadline = time.monotonic() + self.options.connect_timeout
        while True:
            try:
                return consume(self.transport, Operation.SUBSCRIBE_TO_TASK, {"id": task.id}, self.warnings)
            except ClientFailure as failure:
                remaining = deadline - time.monotonic()
                if failure.type != "transport" or remaining <= 0:
                    raise
                self.warnings.append(f"SubscribeToTask for task {task.id} reached no server ({failure.message}); again")
                self.options.sleep(min(self.options.poll_start, remaining))
                self.transport.wait_ready(max(0.0, deadline - time.monotonic()))  # gRPC: the channel reconnecting

    # ------------------------------------------------------------------------------- push

    def _push_form(self) -> Form:
        """Push bodies: 1.0 uses the HTTP+JSON payload form whatever the binding (§3.5.1); 0.3 posts the Task."""
        return push_form(self.transport.version)

    def await_push(self) -> TaskView:
        """Wait for a notification that the task stopped; when none comes within the next polite delay, GetTask.

        A stop announced by a notification is read whole with one GetTask (artifacts, status message), or
        folded from the notifications when the GetTask budget is spent. Bounded by the read timeout.
        """
        receiver = self.receiver
        assert receiver is not None
        delays = self.options.delays()
        deadline = time.monotonic() + self.options.read_timeout
        since = self.since
        while not self.task.stops and self.task.id is not None:
            remaining = deadline - time.monotonic()
            budget = self.polls < len(delays)
            wait = min(delays[self.polls], remaining) if budget else remaining
            note = receiver.wait(self.task.id, since, _stops, wait)
            if note is not None:
                since = note.index + 1
                if budget:
                    self.get_task()
                else:
                    self.fold_notifications()
                continue
            if not budget or time.monotonic() >= deadline:
                self.warnings.append(
                    f"no push notification said task {self.task.id} stopped within {self.options.read_timeout:g} s"
                )
                break
            self.get_task()
        return self.task

    def fold_notifications(self) -> TaskView:
        """The task as this turn's notifications tell it (1.0 StreamResponses or 0.3 Tasks), applied in order; a
        repeated delivery was kept once, and a stale one (it would move the task back) is left out."""
        assert self.receiver is not None and self.task.id is not None
        fold = StreamFold(self._push_form(), answer=Answer(ResultKind.TASK, task=copy.deepcopy(self.task)))
        for note in self.receiver.notifications(self.task.id, self.since):
            if note.stale:
                continue
            try:
                fold.apply(note.body, self.warnings)
            except ClientFailure as failure:
                self.warnings.append(f"push notification #{note.index + 1}: {failure.message}")
        if fold.answer is not None and fold.answer.task is not None:
            fresh = fold.answer.task
            fresh.id = fresh.id or self.task.id
            fresh.context_id = fresh.context_id or self.task.context_id
            self.task = fresh
        return self.task

    def drain(self) -> None:
        """Once the task stops, keep the webhook up until it has heard of that state (bounded by push_wait)."""
        task, receiver = self.task, self.receiver
        if receiver is None or task.id is None or task.state is None or not task.stops:
            return
        if receiver.wait(task.id, self.since, lambda note: note.state is task.state, self.options.push_wait) is None:
            self.warnings.append(
                f"no push notification reported task {task.id} {task.state.short} within {self.options.push_wait:g} s"
            )
