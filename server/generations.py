"""Task generations as a server of spec revision 1.1 (the `dev-1.1` draft, §3.2.7) serves them.

The engine stamps `generation` on tasks and events (Engine.generations); this module serves the two requests that
use it: GetTask with `currentGeneration` (a long-poll: held until the task's generation passes the value, or
HOLD_S passes, the draft's "implementation-defined timeout") and SendMessage with `configuration.ifGenerationMatch`
(TaskGenerationMismatchError when it is not the task's generation). A server of another revision ignores both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from a2a_lab.protocol.errors import A2AError, ErrorType, invalid_params
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.revisions import CURRENT_GENERATION, IF_GENERATION_MATCH, has_generations

from .engine import Caller, TaskRecord
from .state import LabState

#: The longest a long-polling GetTask is held (seconds) before it answers the task as it is: shorter than the
#: read timeouts clients use (5 s and more), long enough that a task moving by time answers on its move.
HOLD_S = 3.0


def follows_generations(state: LabState) -> bool:
    return has_generations(state.scenario.spec_revision)


def _asked(state: LabState, value: object, field: str) -> int | None:
    """A generation a request names (an int64: a whole number, or its decimal string in ProtoJSON), as a 1.1 server
    reads it; None when it names none or the server is of another revision. -32602 for anything else."""
    if value is None or not follows_generations(state):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19:
        return int(value)
    raise invalid_params(
        field, f"must be a whole number >= 0 (an int64: a number or its decimal string), not {value!r}"
    )


def current_generation(state: LabState, params: Mapping[str, Any]) -> int | None:
    """GetTask's `currentGeneration` as this server reads it (see _asked)."""
    return _asked(state, params.get(CURRENT_GENERATION), CURRENT_GENERATION)


#: The operations `hold` may hold (a GetTask with `currentGeneration`): callers skip it for the rest.
HELD = frozenset({Operation.GET_TASK})


async def hold(
    state: LabState, op: Operation, params: Mapping[str, Any], bound: float = HOLD_S, caller: Caller | None = None
) -> None:
    """Wait, for a GetTask with `currentGeneration`, until the task's generation is greater than it (at once when it
    is already), at most `bound` seconds. An unknown task is answered at once (TaskNotFound), and so is a task the
    scenario moves one step per GetTask (`advance: get_task`) while that GetTask would move it: holding it would hold
    the task still. Another user's task (`caller`, where tasks are kept apart by user) is answered at once as well, as
    an unknown one is: holding it would tell it exists (A2A 1.0 §3.3.2)."""
    try:
        current = current_generation(state, params) if op in HELD else None
    except A2AError:
        return  # answered at once: GetTask refuses it (-32602)
    if current is None:
        return
    engine = state.engine
    rec = engine.tasks.get(params["id"])
    if rec is None or (caller is not None and not caller.sees(rec)):
        return  # unknown, or another user's: TaskNotFound at once
    if rec.script.advance_on_get and not rec.state.stops and not rec.at_last_step:
        return  # a task this GetTask moves would stand still while it is held
    loop = asyncio.get_running_loop()
    deadline = loop.time() + bound
    engine.tick(rec)
    while rec.generation <= current and state.engine is engine:
        left = deadline - loop.time()
        if left <= 0:
            return
        due = engine.next_move_in(rec)
        if rec.moved is None:
            rec.moved = asyncio.Event()
        try:
            await asyncio.wait_for(rec.moved.wait(), timeout=min(left, due if due is not None else left))
        except TimeoutError:
            engine.tick(rec)  # time moves it now, if its step is due


def check_match(state: LabState, rec: TaskRecord, configuration: Mapping[str, Any]) -> None:
    """A follow-up's precondition (§3.2.2): refused when `ifGenerationMatch` is not the task's generation now."""
    asked = _asked(state, configuration.get(IF_GENERATION_MATCH), f"configuration.{IF_GENERATION_MATCH}")
    if asked is None:
        return
    state.engine.tick(rec)
    if asked != rec.generation:
        raise A2AError(
            ErrorType.TASK_GENERATION_MISMATCH,
            f"Task generation mismatch: expected {asked} but current generation is {rec.generation}",
            metadata={
                "taskId": rec.id,
                "expectedGeneration": str(asked),
                "currentGeneration": str(rec.generation),
            },
        )
