"""Issue 29's options refused on load when wrong: the client actions `new_message` and `cancel`, a list of expected
states, and a status message whose parts list is empty (only `{parts: []}` means that). Each refusal names the file,
the field and a fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2a_lab.contract.loader import ScenarioError, load_file
from a2a_lab.protocol.states import TaskState

from .helpers import scenario_text, write_scenario


def refused(tmp_path: Path, body: str) -> ScenarioError:
    path = write_scenario(tmp_path, scenario_text(body), "broken.yaml")
    with pytest.raises(ScenarioError) as info:
        load_file(path)
    assert str(path) in str(info.value), "the error names the file"
    return info.value


@pytest.mark.parametrize(
    "body, field, problem, hint",
    [
        ("client: {action: {new_message: 42}}\n", "client.action.new_message", "expected text", ""),
        ("client: {action: {cancel: please}}\n", "client.action.cancel", "expected true or false", ""),
        (
            "client: {action: {new_message: a, follow_up: b}}\n",
            "client.action.new_message",
            "at once",
            "keep one",
        ),
        ("expect: {result: task, state: []}\n", "expect.state", "non-empty list", "[CANCELED, COMPLETED]"),
        ("expect: {result: task, state: [CANCELED, COMPLETD]}\n", "expect.state[1]", "unknown task state", "COMPLETED"),
        ("expect: {result: task, state: [CANCELED, canceled]}\n", "expect.state[1]", "listed twice", "once"),
        ("task: {steps: [{state: SUBMITTED, message: []}]}\n", "task.steps[0].message", "non-empty list", "e.g."),
    ],
)
def test_a_wrong_value_is_refused_with_where_and_how(
    tmp_path: Path, body: str, field: str, problem: str, hint: str
) -> None:
    err = refused(tmp_path, body)
    assert err.field_path == field, err
    assert problem in err.problem, err
    assert hint in (err.hint or ""), err


def test_the_good_values_load(tmp_path: Path) -> None:
    body = (
        "client: {action: {new_message: later, cancel: true}}\n"
        "task: {steps: [{state: SUBMITTED, message: {parts: []}}, COMPLETED]}\n"
        "expect: {result: task, state: [CANCELED, COMPLETED]}\n"
    )
    scenario = load_file(write_scenario(tmp_path, scenario_text(body)))
    assert scenario.client.action == {"new_message": "later", "cancel": True}
    assert scenario.expect.states == (TaskState.CANCELED, TaskState.COMPLETED)
    first = scenario.task.steps[0]
    assert first.empty_message and first.has_message and first.status_parts == []
    single = load_file(write_scenario(tmp_path, scenario_text("expect: {result: task, state: FAILED}\n"), "one.yaml"))
    assert single.expect.state is TaskState.FAILED and single.expect.states == (TaskState.FAILED,)
