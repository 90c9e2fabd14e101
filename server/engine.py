"""The in-memory task engine: scripted lifecycles, history, artifacts, cancel rules, deterministic ids.

Version-neutral and I/O-free: tasks and events are kept in canonical (1.0 ProtoJSON) form; the
endpoints convert them for the wire.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from a2a_lab.contract.journal_record import Entry
from a2a_lab.contract.placeholders import Template
from a2a_lab.contract.scenario import Step, TaskScript
from a2a_lab.protocol.errors import A2AError, ErrorType, invalid_params
from a2a_lab.protocol.revisions import FIRST_GENERATION, GENERATION
from a2a_lab.protocol.states import Role, TaskState, by_value

from . import budgets

#: The variant (RFC 4122) and version (4) bits of a random UUID, as uuid.UUID(int=..., version=4) sets them.
_UUID_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_UUID_V4 = (0x8000 << 48) | (4 << 76)
#: Ids drawn at a time (Engine.new_id).
ID_BATCH = 32
_AGENT = Role.AGENT.value

Event = dict[str, Any]  # a canonical StreamResponse: {"task": ...} | {"statusUpdate": ...} | ...


_second: tuple[int, str] = (-1, "")
_last_stamp: tuple[int, str] = (-1, "")


def now_iso() -> str:
    """The current UTC time as ISO 8601 with milliseconds (`2026-12-03T22:47:25.387Z`); the date and time of day are
    formatted once per second, the whole once per millisecond (a busy server stamps thousands of tasks a second:
    formatting each with datetime cost ~4 µs)."""
    global _second, _last_stamp
    ms = time.time_ns() // 1_000_000
    if ms == _last_stamp[0]:
        return _last_stamp[1]
    seconds, millis = divmod(ms, 1000)
    if seconds != _second[0]:
        _second = (seconds, time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(seconds)))
    _last_stamp = (ms, f"{_second[1]}{millis:03d}Z")
    return _last_stamp[1]


def message_text(message: dict[str, Any]) -> str:
    return " ".join([p["text"] for p in message.get("parts", ()) if isinstance(p.get("text"), str)])


@dataclass(frozen=True, slots=True)
class Caller:
    """Whose tasks a call may see when the scenario keeps tasks apart by user (`auth.tasks_per_user`): the identity
    that authenticated it (server/auth.py Verdict.identity; None for a call that authenticated as no one, where the
    scenario lets such calls in). A2A 1.0 §13.1 (Data Access and Authorization Scoping): GetTask, ListTasks, and the
    task's other operations are scoped to the caller; §3.3.2 (Error Handling, Resource Errors): a task the caller may
    not access is answered as one that does not exist, the two not told apart."""

    identity: str | None

    def sees(self, rec: TaskRecord) -> bool:
        return rec.owner == self.identity


def task_not_found(task_id: Any) -> A2AError:
    """The answer to a task id the store does not have, or has for another user (§3.3.2: the same answer)."""
    return A2AError(ErrorType.TASK_NOT_FOUND, f"Task not found: {task_id}", metadata={"taskId": str(task_id)})


@dataclass(slots=True)
class TaskRecord:
    task: dict[str, Any]
    script: TaskScript
    text: str
    pos: int = 0
    moved_at: float = 0.0
    gets_since_move: int = 0
    push_configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    listeners: list[asyncio.Queue[Event | None]] = field(default_factory=list)
    push_deliveries: int = 0
    #: The journal entry (kind `push-limit`) counting notifications dropped once limits.push_deliveries_per_task
    #: was reached.
    push_limit_entry: Entry | None = None
    #: The bytes this task is estimated to keep (see Engine.create), counted against limits.task_bytes.
    size: int = 0
    #: Of those, its push configs' (as JSON), counted against limits.push_config_bytes.
    push_bytes: int = 0
    #: The task's generation (spec 1.1 §3.2.7): 1 at creation, +1 per event; 0 where the revision has none.
    generation: int = 0
    #: What long-polling GetTasks wait on (made by the first of them): set, and dropped, when the generation moves.
    moved: asyncio.Event | None = None
    #: Who created the task (Caller.identity), where the scenario keeps tasks apart by user.
    owner: str | None = None

    @property
    def state(self) -> TaskState:
        value = self.task["status"]["state"]
        return by_value(value)

    @property
    def id(self) -> str:
        return str(self.task["id"])

    @property
    def at_last_step(self) -> bool:
        return self.pos >= len(self.script.steps) - 1

    @property
    def followed(self) -> bool:
        """A client follows the task without GetTask: it is subscribed to it or has a webhook registered."""
        return bool(self.listeners or self.push_configs)

    @property
    def pace_ms(self) -> int | None:
        """Milliseconds time takes to move the task one step now: `advance.after_ms`, or, for a task that moves on
        GetTask, the GetTasks it waits for at `advance.follow_ms` each while it is followed; None when time does not."""
        if self.script.advance_after_ms:
            return self.script.advance_after_ms
        if self.script.advance_on_get and self.followed:
            return self.script.advance_on_get * self.script.follow_ms
        return None


#: What a task keeps besides its messages' bytes, measured (tracemalloc): its dicts, status, ids and record, ~2.5 KB.
TASK_OVERHEAD = 2048


class Engine:
    def __init__(
        self,
        seed: int,
        clock: Callable[[], float] = time.monotonic,
        max_tasks: int = 10_000,
        max_bytes: int = 64 * 1024 * 1024,
        generations: bool = False,
    ) -> None:
        self._rng = random.Random(seed)
        #: Ids drawn ahead (new_id), the next one last.
        self._ids: list[str] = []
        #: Whether tasks and their events carry `generation` (a server of spec revision 1.1).
        self.generations = generations
        self._clock = clock
        #: In creation order; an OrderedDict because forgetting the oldest of a plain dict costs a scan over the
        #: holes its earlier deletions left (~10 µs per task once the store is full), popitem(last=False) does not.
        self.tasks: OrderedDict[str, TaskRecord] = OrderedDict()
        #: Tasks kept at most, and their estimated bytes at most; the oldest are forgotten first (a later GetTask
        #: finds nothing, as for a purged task).
        self.max_tasks = max_tasks
        self.max_bytes = max_bytes
        #: The estimated bytes of the tasks kept (the sum of their `size`).
        self.bytes = 0
        self.evicted = 0
        #: Called with every event a task emits (push delivery hooks in here).
        self.on_event: Callable[[TaskRecord, Event], None] | None = None

    def new_id(self) -> str:
        """A random (version 4) UUID from the seeded generator: the text of uuid.UUID(int=..., version=4), built
        without the UUID object. Two per answer on the hot path: drawn ID_BATCH at a time, in the generator's order
        (nothing else draws from it): in a tight loop a draw costs less than among a request's other work (a new task's
        two ids, timed in place: 3.1 us one at a time, 2.3 us drawn ahead)."""
        if not self._ids:
            rng, batch = self._rng, []
            for _ in range(ID_BATCH):
                h = ((rng.getrandbits(128) & _UUID_CLEAR) | _UUID_V4).to_bytes(16).hex()
                batch.append(f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}")
            batch.reverse()  # popped from the end: first drawn, first given
            self._ids = batch
        return self._ids.pop()

    # ------------------------------------------------------------------------- replies

    def agent_message(
        self,
        parts: Template,
        text: str,
        context_id: str | None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "messageId": self.new_id(),
            "contextId": context_id or self.new_id(),
            "role": _AGENT,
            "parts": parts.fill(text),
        }
        if task_id:
            msg["taskId"] = task_id
        return msg

    def create(
        self, message: dict[str, Any], script: TaskScript, size: int = 0, caller: Caller | None = None
    ) -> TaskRecord:
        """A new task at its first step, holding the user's message (`size`: its bytes on the wire), the caller's
        where tasks are kept apart by user. A task that alone would hold more than the store's byte budget is refused
        (A2AError), before any id is drawn."""
        text = message_text(message)
        estimate = TASK_OVERHEAD + size + len(text) * script.text_echoes
        if estimate > self.max_bytes:
            raise budgets.too_large(
                "message", f"a task for this message would keep ~{estimate:,} bytes", "task_bytes", self.max_bytes
            )
        task_id, context_id = self.new_id(), message.get("contextId") or self.new_id()
        user = {**message, "taskId": task_id, "contextId": context_id}
        task = {"id": task_id, "contextId": context_id, "status": None}  # the status: the first step's, set below
        if script.history:
            task["history"] = [user]
        owner = caller.identity if caller else None
        rec = TaskRecord(task, script, text, size=estimate, owner=owner)  # moved_at: set by its first step, below
        if self.generations:
            rec.generation = FIRST_GENERATION
            task[GENERATION] = str(FIRST_GENERATION)  # int64: a decimal string in ProtoJSON
        self._apply_step(rec, script.steps[0], first=True)
        self.tasks[task_id] = rec
        self.bytes += estimate
        if len(self.tasks) > self.max_tasks or self.bytes > self.max_bytes:
            self._trim(rec)
        return rec

    def _trim(self, keep: TaskRecord) -> None:
        """Forget the oldest tasks until the store is within its count and its bytes; never `keep`, the task
        being written to (it becomes the newest)."""
        while len(self.tasks) > self.max_tasks or (self.bytes > self.max_bytes and len(self.tasks) > 1):
            oldest = next(iter(self.tasks.values()))
            if oldest is keep:
                self.tasks.move_to_end(keep.id)
                continue
            self.tasks.popitem(last=False)
            self.bytes -= oldest.size
            self.evicted += 1

    def resize(self, rec: TaskRecord, delta: int) -> None:
        """A task keeps `delta` bytes more (or fewer): the store forgets older tasks to stay within its budget."""
        rec.size += delta
        if self.tasks.get(rec.id) is rec:
            self.bytes += delta
            if delta > 0:
                self._trim(rec)

    def lookup(self, task_id: Any, caller: Caller | None = None) -> TaskRecord:
        """The task with this id; for a `caller` (tasks kept apart by user), only one of the caller's own: another
        user's is answered exactly as an unknown id, before anything else is looked at (§13.1, §3.3.2)."""
        rec = self.tasks.get(task_id) if isinstance(task_id, str) else None
        if rec is None or (caller is not None and not caller.sees(rec)):
            raise task_not_found(task_id)
        return rec

    def check_follow_up(self, message: dict[str, Any], caller: Caller | None = None) -> TaskRecord | None:
        """The task a message continues (one of the caller's, see lookup), with the spec's rules on taskId and
        contextId (§3.4)."""
        task_id = message.get("taskId")
        if not task_id:
            return None
        rec = self.lookup(task_id, caller)
        ctx = message.get("contextId")
        if ctx and ctx != rec.task.get("contextId"):
            raise invalid_params("message.contextId", f"does not match the context of task {task_id}")
        if rec.state.terminal:
            raise A2AError(
                ErrorType.UNSUPPORTED_OPERATION,
                f"Task {task_id} is in a terminal state ({rec.state.short}) and cannot be continued",
                metadata={"taskId": task_id},
            )
        return rec

    def add_user_message(self, rec: TaskRecord, message: dict[str, Any], size: int = 0) -> None:
        """Another message for a task (`size`: its bytes on the wire); refused (A2AError) when the task would then
        keep more than the store's whole byte budget."""
        if rec.script.history:
            if rec.size + size > self.max_bytes:
                raise budgets.too_large(
                    "message",
                    f"task {rec.id} would keep ~{rec.size + size:,} bytes with this message",
                    "task_bytes",
                    self.max_bytes,
                )
            rec.task.setdefault("history", []).append({**message, "taskId": rec.id, "contextId": rec.task["contextId"]})
            self.resize(rec, size)
        rec.gets_since_move = 0

    # ------------------------------------------------------------------------- movement

    def _apply_step(self, rec: TaskRecord, step: Step, first: bool = False) -> list[Event]:
        """Set the task to a step and return the events that announce it (artifacts before status)."""
        events: list[Event] = []
        specs = step.artifacts
        if not specs and rec.pos == len(rec.script.steps) - 1:
            specs = rec.script.final_artifacts
        for spec in specs:
            artifact = spec.template.fill(rec.text)
            rec.task.setdefault("artifacts", []).append(artifact)
            if first:
                continue
            pieces = [{**artifact, "parts": [part]} for part in artifact["parts"]] if spec.chunked else [artifact]
            for i, piece in enumerate(pieces):
                update: dict[str, Any] = {
                    "taskId": rec.id,
                    "contextId": rec.task["contextId"],
                    "artifact": piece,
                    "lastChunk": i == len(pieces) - 1,
                }
                if i:
                    update["append"] = True
                if spec.append is not None:
                    update["append"] = spec.append
                if spec.last_chunk is not None:
                    update["lastChunk"] = spec.last_chunk
                events.append({"artifactUpdate": update})
        status: dict[str, Any] = {"state": step.state._value_, "timestamp": now_iso()}
        if step.has_message:
            agent = self.agent_message(step.status_template, rec.text, rec.task["contextId"], rec.id)
            status["message"] = agent
            if rec.script.history:
                rec.task.setdefault("history", []).append(agent)
        rec.task["status"] = status
        rec.moved_at = self._clock()
        rec.gets_since_move = 0
        if not first:
            events.append({"statusUpdate": {"taskId": rec.id, "contextId": rec.task["contextId"], "status": status}})
        return events

    def step(self, rec: TaskRecord) -> list[Event]:
        """Move one step forward, if the script has one; emits the events."""
        if rec.at_last_step or rec.state.terminal:
            return []
        rec.pos += 1
        events = self._apply_step(rec, rec.script.steps[rec.pos])
        for event in events:
            self.emit(rec, event)
        return events

    def run_to_stop(self, rec: TaskRecord) -> list[Event]:
        """Advance until a terminal or interrupted step, or the end of the script (blocking, §3.2.2)."""
        events: list[Event] = []
        while not rec.at_last_step and not rec.state.stops:
            events.extend(self.step(rec))
        return events

    def resume(self, rec: TaskRecord) -> list[Event]:
        """After input at an interrupted state, move past it to the next stop (staying put if the script ends)."""
        events = self.step(rec) if rec.state.interrupted else []
        return events + self.run_to_stop(rec)

    def continue_with(self, rec: TaskRecord, script: TaskScript) -> None:
        """A task whose own script is used up continues with the steps the follow-up chose (its first
        SUBMITTED dropped: the task exists already)."""
        if not rec.at_last_step or rec.state.terminal:
            return
        steps = tuple(step for i, step in enumerate(script.steps) if not (i == 0 and step.state is TaskState.SUBMITTED))
        if steps:
            rec.script = replace(rec.script, steps=rec.script.steps[: rec.pos + 1] + steps, artifacts=script.artifacts)
            self.resize(rec, len(rec.text) * script.text_echoes)  # what the steps it goes on with will echo

    def tick(self, rec: TaskRecord, on_get: bool = False) -> None:
        """Let time or a GetTask move a task left mid-way; never past an interrupted state."""
        script = rec.script
        if on_get and script.advance_on_get:
            rec.gets_since_move += 1
            if rec.gets_since_move >= script.advance_on_get and not rec.state.interrupted:
                self.step(rec)
        pace = rec.pace_ms
        while pace and not rec.at_last_step and not rec.state.stops and (self._clock() - rec.moved_at) * 1000 >= pace:
            self.step(rec)
            pace = rec.pace_ms

    def next_move_in(self, rec: TaskRecord) -> float | None:
        """Seconds until time moves this task on, or None when time never will."""
        pace = rec.pace_ms
        if not pace or rec.at_last_step or rec.state.stops:
            return None
        return max(0.0, pace / 1000 - (self._clock() - rec.moved_at))

    def cancel(self, rec: TaskRecord) -> dict[str, Any]:
        if rec.state.terminal:
            raise A2AError(
                ErrorType.TASK_NOT_CANCELABLE,
                f"Task {rec.id} is {rec.state.short} and cannot be canceled",
                metadata={"taskId": rec.id},
            )
        rec.pos = len(rec.script.steps)  # nothing left to run
        status = {"state": TaskState.CANCELED.value, "timestamp": now_iso()}
        rec.task["status"] = status
        self.emit(rec, {"statusUpdate": {"taskId": rec.id, "contextId": rec.task["contextId"], "status": status}})
        return rec.task

    def emit(self, rec: TaskRecord, event: Event) -> None:
        if self.generations:
            self._advance_generation(rec, event)
        for queue in list(rec.listeners):
            queue.put_nowait(event)
        if self.on_event is not None:
            self.on_event(rec, event)

    @staticmethod
    def _advance_generation(rec: TaskRecord, event: Event) -> None:
        """One event, one change (1.1 §3.2.7): the task's generation goes up by exactly 1, and the event carries the
        value after it. Wakes the GetTasks long-polling on the task."""
        rec.generation += 1
        value = str(rec.generation)
        rec.task[GENERATION] = value
        for body in event.values():
            body[GENERATION] = value
        if rec.moved is not None:
            rec.moved.set()
            rec.moved = None

    # ------------------------------------------------------------------------- views

    @staticmethod
    def snapshot(rec: TaskRecord, history_length: int | None = None, include_artifacts: bool = True) -> dict[str, Any]:
        task = dict(rec.task)
        if "history" in task:
            if history_length == 0:
                del task["history"]
            elif history_length is not None:
                task["history"] = task["history"][-history_length:]
        if not include_artifacts:
            task.pop("artifacts", None)
        return task

    def list(
        self,
        context_id: str | None,
        state: TaskState | None,
        page_size: int,
        offset: int,
        history_length: int | None,
        include_artifacts: bool,
        after: str | None,
        caller: Caller | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the tasks that match, newest first, and how many match; for a `caller`, of its own only."""
        for rec in self.tasks.values():
            self.tick(rec)
        matching = [
            r
            for r in self.tasks.values()
            if (caller is None or caller.sees(r))
            and (context_id is None or r.task.get("contextId") == context_id)
            and (state is None or r.state is state)
            and (after is None or r.task["status"]["timestamp"] >= after)
        ]
        matching.sort(key=lambda r: r.task["status"]["timestamp"], reverse=True)
        page = matching[offset : offset + page_size]
        return [self.snapshot(r, history_length, include_artifacts) for r in page], len(matching)
