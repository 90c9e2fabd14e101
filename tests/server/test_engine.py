"""The task engine: scripted lifecycles, GetTask advancement, interrupted states, cancel rules,
terminal states, history views and deterministic ids. No HTTP here."""

from __future__ import annotations

import random
import re
import uuid
from typing import Any

import pytest

from a2a_lab.contract.placeholders import TEXT, Template, fill
from a2a_lab.contract.scenario import DEFAULT_TASK, ArtifactSpec, Returns, Step, TaskScript
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.states import TaskState
from a2a_lab.server.engine import ID_BATCH, Engine, TaskRecord, message_text

S = TaskState
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ART = ArtifactSpec({"artifactId": "a-1", "name": "result", "parts": [{"text": "echo: {text}"}]})


def script(*states: TaskState, **kw: Any) -> TaskScript:
    return TaskScript(tuple(Step(s) for s in states), **{"artifacts": (ART,), **kw})


def user(text: str = "hello", **extra: Any) -> dict[str, Any]:
    return {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}], **extra}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def states_of(events: list[dict[str, Any]]) -> list[str]:
    return [e["statusUpdate"]["status"]["state"] for e in events if "statusUpdate" in e]


# ------------------------------------------------------------------------------------ creation and blocking runs


def test_create_starts_at_the_first_step_with_the_user_message() -> None:
    engine = Engine(1)
    rec = engine.create(user("hi", contextId="ctx-1"), DEFAULT_TASK)
    task = rec.task
    assert rec.state is S.SUBMITTED and rec.pos == 0
    assert UUID4.match(task["id"]) and task["contextId"] == "ctx-1"
    assert ISO_Z.match(task["status"]["timestamp"])
    (first,) = task["history"]
    assert first["messageId"] == "m-1" and first["taskId"] == task["id"] and first["contextId"] == "ctx-1"
    assert "artifacts" not in task
    assert engine.lookup(task["id"]) is rec


def test_a_context_is_generated_when_the_client_gives_none() -> None:
    rec = Engine(1).create(user(), DEFAULT_TASK)
    assert UUID4.match(rec.task["contextId"]) and rec.task["contextId"] != rec.task["id"]


def test_run_to_stop_runs_a_blocking_call_to_the_terminal_state() -> None:
    engine = Engine(1)
    seen: list[dict[str, Any]] = []
    engine.on_event = lambda rec, event: seen.append(event)
    rec = engine.create(user("hi"), DEFAULT_TASK)
    events = engine.run_to_stop(rec)
    assert rec.state is S.COMPLETED
    assert [next(iter(e)) for e in events] == [
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]  # artifacts before the final status
    assert states_of(events) == ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]
    art = events[1]["artifactUpdate"]
    assert art["artifact"]["parts"] == [{"text": "echo: hi"}] and art["lastChunk"] is True and art["taskId"] == rec.id
    assert rec.task["artifacts"] == [{"artifactId": "artifact-1", "name": "result", "parts": [{"text": "echo: hi"}]}]
    assert seen == events, "every event also goes to the on_event hook (push delivery)"
    assert engine.run_to_stop(rec) == [] and rec.state is S.COMPLETED


def test_run_to_stop_halts_at_an_interrupted_state() -> None:
    engine = Engine(1)
    rec = engine.create(user(), script(S.SUBMITTED, S.WORKING, S.INPUT_REQUIRED, S.WORKING, S.COMPLETED))
    assert states_of(engine.run_to_stop(rec)) == ["TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"]
    assert rec.state is S.INPUT_REQUIRED and "artifacts" not in rec.task


def test_run_to_stop_at_the_end_of_a_script_that_never_stops() -> None:
    engine = Engine(1)
    rec = engine.create(user(), script(S.SUBMITTED, S.WORKING))
    engine.run_to_stop(rec)
    assert rec.state is S.WORKING and rec.at_last_step
    assert rec.task["artifacts"][0]["artifactId"] == "a-1"  # script artifacts come at the last step


def test_a_one_step_terminal_script_has_artifacts_at_creation_without_events() -> None:
    engine = Engine(1)
    seen: list[Any] = []
    engine.on_event = lambda rec, event: seen.append(event)
    rec = engine.create(user("x"), script(S.COMPLETED))
    assert rec.state is S.COMPLETED and rec.task["artifacts"][0]["parts"] == [{"text": "echo: x"}]
    assert engine.run_to_stop(rec) == [] and seen == []


def test_step_messages_are_agent_messages_in_history() -> None:
    engine = Engine(1)
    rec = engine.create(
        user("cats"), TaskScript((Step(S.SUBMITTED), Step(S.INPUT_REQUIRED, message="more about {text}?")))
    )
    engine.run_to_stop(rec)
    status_msg = rec.task["status"]["message"]
    assert status_msg["role"] == "ROLE_AGENT" and status_msg["parts"] == [{"text": "more about cats?"}]
    assert status_msg["taskId"] == rec.id and status_msg["contextId"] == rec.task["contextId"]
    assert [m["role"] for m in rec.task["history"]] == ["ROLE_USER", "ROLE_AGENT"]


def test_step_artifacts_replace_the_script_artifacts() -> None:
    own = (ArtifactSpec({"artifactId": "mid", "parts": [{"text": "partial {text}"}]}),)
    engine = Engine(1)
    rec = engine.create(
        user("q"), TaskScript((Step(S.SUBMITTED), Step(S.WORKING, artifacts=own), Step(S.COMPLETED)), artifacts=(ART,))
    )
    engine.run_to_stop(rec)
    assert [a["artifactId"] for a in rec.task["artifacts"]] == ["mid"]
    assert rec.task["artifacts"][0]["parts"] == [{"text": "partial q"}]


def test_history_can_be_switched_off() -> None:
    engine = Engine(1)
    rec = engine.create(user(), TaskScript((Step(S.SUBMITTED), Step(S.COMPLETED, message="done")), history=False))
    engine.run_to_stop(rec)
    assert "history" not in rec.task and rec.task["status"]["message"]["parts"] == [{"text": "done"}]


# ------------------------------------------------------------------------------------ GetTask and time


def test_get_task_advances_one_step_per_call_and_then_stays() -> None:
    engine = Engine(2)
    rec = engine.create(
        user(), TaskScript(DEFAULT_TASK.steps, DEFAULT_TASK.artifacts, returns=Returns.FIRST, advance_on_get=1)
    )
    seen = []
    for _ in range(4):
        engine.tick(rec, on_get=True)
        seen.append(rec.state)
    assert seen == [S.WORKING, S.COMPLETED, S.COMPLETED, S.COMPLETED]
    assert rec.task["artifacts"][0]["parts"] == [{"text": "echo: hello"}]


def test_get_task_every_second_call() -> None:
    engine = Engine(2)
    rec = engine.create(user(), TaskScript(DEFAULT_TASK.steps, advance_on_get=2))
    seen = []
    for _ in range(4):
        engine.tick(rec, on_get=True)
        seen.append(rec.state)
    assert seen == [S.SUBMITTED, S.WORKING, S.WORKING, S.COMPLETED]


def test_never_advancing_task_and_plain_ticks() -> None:
    engine = Engine(2)
    rec = engine.create(user(), TaskScript(DEFAULT_TASK.steps, advance_on_get=0))
    for _ in range(3):
        engine.tick(rec, on_get=True)
    engine.tick(rec)
    assert rec.state is S.SUBMITTED
    rec2 = engine.create(user(), DEFAULT_TASK)
    engine.tick(rec2)  # a tick that is not a GetTask does not count as one
    assert rec2.state is S.SUBMITTED


def test_time_moves_a_task_with_after_ms() -> None:
    clock = FakeClock()
    engine = Engine(3, clock=clock)
    rec = engine.create(user(), TaskScript(DEFAULT_TASK.steps, advance_on_get=0, advance_after_ms=100))
    assert engine.next_move_in(rec) == pytest.approx(0.1)
    clock.now = 1000.05
    engine.tick(rec)
    assert rec.state is S.SUBMITTED and engine.next_move_in(rec) == pytest.approx(0.05)
    clock.now = 1000.1
    engine.tick(rec)
    assert rec.state is S.WORKING
    clock.now += 10
    engine.tick(rec)  # a long wait runs every overdue step, no further
    assert rec.state is S.COMPLETED and engine.next_move_in(rec) is None


def test_get_task_does_not_move_an_interrupted_task() -> None:
    engine = Engine(4)
    rec = engine.create(user(), script(S.SUBMITTED, S.INPUT_REQUIRED, S.COMPLETED, advance_on_get=1))
    engine.tick(rec, on_get=True)
    assert rec.state is S.INPUT_REQUIRED
    for _ in range(3):
        engine.tick(rec, on_get=True)
    assert rec.state is S.INPUT_REQUIRED


# ------------------------------------------------------------------------------------ follow-ups and resume


def test_input_required_resumes_with_a_follow_up_message() -> None:
    engine = Engine(5)
    rec = engine.create(user("start"), script(S.SUBMITTED, S.WORKING, S.INPUT_REQUIRED, S.WORKING, S.COMPLETED))
    engine.run_to_stop(rec)
    follow = user("more", messageId="m-2", taskId=rec.id)
    assert engine.check_follow_up(follow) is rec
    engine.add_user_message(rec, follow)
    events = engine.resume(rec)
    assert states_of(events) == ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]
    assert rec.state is S.COMPLETED
    assert [m["messageId"] for m in rec.task["history"]] == ["m-1", "m-2"]
    assert rec.task["history"][1]["taskId"] == rec.id and rec.task["history"][1]["contextId"] == rec.task["contextId"]


def test_follow_up_rules() -> None:
    engine = Engine(5)
    rec = engine.create(user(contextId="ctx"), script(S.SUBMITTED, S.INPUT_REQUIRED, S.COMPLETED))
    engine.run_to_stop(rec)
    assert engine.check_follow_up(user()) is None  # no taskId: a new task
    assert engine.check_follow_up(user(taskId=rec.id, contextId="ctx")) is rec
    with pytest.raises(A2AError) as info:
        engine.check_follow_up(user(taskId="no-such-task"))
    assert info.value.type is ErrorType.TASK_NOT_FOUND and info.value.metadata == {"taskId": "no-such-task"}
    with pytest.raises(A2AError) as info:
        engine.check_follow_up(user(taskId=rec.id, contextId="other"))
    assert info.value.type is ErrorType.INVALID_PARAMS and info.value.field == "message.contextId"


def test_a_terminal_task_cannot_be_continued() -> None:
    engine = Engine(5)
    rec = engine.create(user(), DEFAULT_TASK)
    engine.run_to_stop(rec)
    with pytest.raises(A2AError) as info:
        engine.check_follow_up(user(taskId=rec.id))
    assert info.value.type is ErrorType.UNSUPPORTED_OPERATION and info.value.code == -32004


def test_lookup_unknown_and_non_string_ids() -> None:
    engine = Engine(5)
    for bad in ("nope", 5, None, ["x"]):
        with pytest.raises(A2AError) as info:
            engine.lookup(bad)
        assert info.value.type is ErrorType.TASK_NOT_FOUND


# ------------------------------------------------------------------------------------ cancel and terminal states


def test_cancel_a_running_task() -> None:
    engine = Engine(6)
    seen: list[dict[str, Any]] = []
    engine.on_event = lambda rec, event: seen.append(event)
    rec = engine.create(user(), DEFAULT_TASK)
    task = engine.cancel(rec)
    assert task["status"]["state"] == "TASK_STATE_CANCELED" and rec.state is S.CANCELED
    assert states_of(seen) == ["TASK_STATE_CANCELED"]
    # nothing runs after a cancel: not time, not GetTask, not a blocking run
    engine.tick(rec, on_get=True)
    assert engine.run_to_stop(rec) == [] and engine.step(rec) == [] and rec.state is S.CANCELED


def test_cancel_an_interrupted_task() -> None:
    engine = Engine(6)
    rec = engine.create(user(), script(S.SUBMITTED, S.INPUT_REQUIRED, S.COMPLETED))
    engine.run_to_stop(rec)
    engine.cancel(rec)
    assert rec.state is S.CANCELED


@pytest.mark.parametrize("final", [S.COMPLETED, S.FAILED, S.REJECTED, S.CANCELED])
def test_terminal_tasks_are_not_cancelable_and_stay_terminal(final: TaskState) -> None:
    engine = Engine(6)
    rec = engine.create(user(), script(S.SUBMITTED, final))
    engine.run_to_stop(rec)
    before = dict(rec.task["status"])
    with pytest.raises(A2AError) as info:
        engine.cancel(rec)
    assert (
        info.value.type is ErrorType.TASK_NOT_CANCELABLE
        and info.value.code == -32002
        and info.value.metadata == {"taskId": rec.id}
    )
    for _ in range(3):
        engine.tick(rec, on_get=True)
        engine.run_to_stop(rec)
        engine.resume(rec)
    assert rec.state is final and rec.task["status"] == before


def test_a_second_cancel_is_not_cancelable() -> None:
    engine = Engine(6)
    rec = engine.create(user(), DEFAULT_TASK)
    engine.cancel(rec)
    with pytest.raises(A2AError, match="CANCELED"):
        engine.cancel(rec)


# ------------------------------------------------------------------------------------ views


def finished(engine: Engine) -> TaskRecord:
    rec = engine.create(user("one"), script(S.SUBMITTED, S.INPUT_REQUIRED, S.WORKING, S.COMPLETED))
    rec.script = TaskScript(rec.script.steps, (ART,))
    engine.run_to_stop(rec)
    engine.add_user_message(rec, user("two", messageId="m-2", taskId=rec.id))
    engine.resume(rec)
    engine.add_user_message(rec, user("three", messageId="m-3", taskId=rec.id))
    return rec


def test_history_length() -> None:
    engine = Engine(7)
    rec = finished(engine)
    assert [m["messageId"] for m in rec.task["history"]] == ["m-1", "m-2", "m-3"]
    assert "history" not in Engine.snapshot(rec, 0)
    assert [m["messageId"] for m in Engine.snapshot(rec, 1)["history"]] == ["m-3"]
    assert [m["messageId"] for m in Engine.snapshot(rec, 2)["history"]] == ["m-2", "m-3"]
    assert len(Engine.snapshot(rec, 99)["history"]) == 3
    assert len(Engine.snapshot(rec)["history"]) == 3
    assert len(rec.task["history"]) == 3, "a view never changes the task"


def test_snapshot_without_artifacts() -> None:
    engine = Engine(7)
    rec = engine.create(user(), DEFAULT_TASK)
    engine.run_to_stop(rec)
    assert "artifacts" not in Engine.snapshot(rec, include_artifacts=False)
    assert Engine.snapshot(rec)["artifacts"] and rec.task["artifacts"]


def test_list_filters_pages_and_sorts_newest_first() -> None:
    clock = FakeClock()
    engine = Engine(8, clock=clock)
    recs = []
    for i in range(5):
        rec = engine.create(user(f"t{i}", contextId="even" if i % 2 == 0 else "odd"), DEFAULT_TASK)
        rec.task["status"]["timestamp"] = f"2026-01-01T00:00:0{i}.000Z"  # distinct, ordered timestamps
        recs.append(rec)
    engine.run_to_stop(recs[4])
    recs[4].task["status"]["timestamp"] = "2026-01-01T00:00:09.000Z"
    page, total = engine.list(None, None, 2, 0, None, False, None)
    assert total == 5 and [t["id"] for t in page] == [recs[4].id, recs[3].id]
    assert all("artifacts" not in t for t in page)
    page, _ = engine.list(None, None, 2, 4, None, True, None)
    assert [t["id"] for t in page] == [recs[0].id]
    page, total = engine.list("even", None, 50, 0, 0, False, None)
    assert total == 3 and all(t["contextId"] == "even" and "history" not in t for t in page)
    page, total = engine.list(None, S.COMPLETED, 50, 0, None, True, None)
    assert total == 1 and page[0]["artifacts"]
    page, total = engine.list(None, None, 50, 0, None, False, "2026-01-01T00:00:03.000Z")
    assert total == 2 and {t["id"] for t in page} == {recs[3].id, recs[4].id}


# ------------------------------------------------------------------------------------ ids


def ids_of(engine: Engine) -> list[str]:
    out = []
    for i in range(3):
        rec = engine.create(user(f"x{i}"), script(S.SUBMITTED, S.COMPLETED))
        rec.script = TaskScript(rec.script.steps, (ART,))
        engine.run_to_stop(rec)
        out += [rec.id, rec.task["contextId"]]
    out.append(engine.agent_message(Template([{"text": "hi"}], TEXT), "", None)["messageId"])
    return out


def test_the_same_seed_gives_the_same_ids() -> None:
    first, second = ids_of(Engine(42)), ids_of(Engine(42))
    assert first == second
    assert len(set(first)) == len(first), "ids never repeat within a run"
    assert all(UUID4.match(i) for i in first)


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_ids_are_the_seeded_generators_uuid4s_in_order(seed: int) -> None:
    """Drawn ahead in batches, the ids are still the generator's draws one by one, as uuid.UUID spells them."""
    engine, rng = Engine(seed), random.Random(seed)
    drawn = [engine.new_id() for _ in range(3 * ID_BATCH + 5)]
    assert drawn == [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in drawn]


def test_different_seeds_give_different_ids() -> None:
    assert set(ids_of(Engine(1))).isdisjoint(ids_of(Engine(2)))


def test_agent_message() -> None:
    engine = Engine(9)
    msg = engine.agent_message(Template([{"text": "you said {text}"}], TEXT), "hi", "ctx", "t-1")
    assert msg["role"] == "ROLE_AGENT" and msg["parts"] == [{"text": "you said hi"}]
    assert msg["contextId"] == "ctx" and msg["taskId"] == "t-1" and UUID4.match(msg["messageId"])
    direct = engine.agent_message(Template([{"text": "x"}], TEXT), "", None)
    assert "taskId" not in direct and UUID4.match(direct["contextId"])


def test_template_and_message_text() -> None:
    assert fill({"a": ["{text}!", {"b": "{text}{text}"}], "n": 1}, TEXT, "x") == {"a": ["x!", {"b": "xx"}], "n": 1}
    assert message_text({"parts": [{"text": "a"}, {"data": {"text": "no"}}, {"text": "b"}]}) == "a b"
    assert message_text({}) == ""


def test_task_cap_forgets_the_oldest() -> None:
    from a2a_lab.contract.scenario import DEFAULT_TASK
    from a2a_lab.protocol.errors import A2AError

    engine = Engine(1, max_tasks=3)
    made = [
        engine.create({"messageId": f"m{i}", "role": "ROLE_USER", "parts": [{"text": "x"}]}, DEFAULT_TASK).id
        for i in range(5)
    ]
    assert list(engine.tasks) == made[2:] and engine.evicted == 2
    try:
        engine.lookup(made[0])
    except A2AError as err:
        assert err.code == -32001
    else:
        raise AssertionError("an evicted task must be TaskNotFound")
