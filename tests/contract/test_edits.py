"""Structured edits of generated answers: each operation, paths that lead nowhere, and the value given unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_lab.contract.edits import Edit, EditOp, apply, parse_path, render_path

ANSWER: dict[str, Any] = {"result": {"task": {"id": "t-1", "status": {"state": "X"}, "artifacts": [{"a": 1}]}}}


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (Edit(("result", "task", "status", "state"), EditOp.SET, 7), {"id": "t-1", "status": {"state": 7}}),
        (Edit(("result", "task", "status"), EditOp.DELETE), {"id": "t-1"}),
        (Edit(("result", "task", "id"), EditOp.RENAME, key="taskId"), {"taskId": "t-1", "status": {"state": "X"}}),
        (Edit(("result", "task", "status"), EditOp.WRAP, key="s"), {"id": "t-1", "status": {"s": {"state": "X"}}}),
        (Edit(("result", "task", "status"), EditOp.UNWRAP), {"id": "t-1", "status": "X"}),
    ],
)
def test_each_operation_keeps_everything_else(edit: Edit, expected: dict[str, Any]) -> None:
    before = repr(ANSWER)
    task = apply(ANSWER, (edit,))["result"]["task"]
    assert {k: v for k, v in task.items() if k != "artifacts"} == expected
    assert next(iter(task)) in ("id", "taskId"), "a renamed member keeps its place"
    assert repr(ANSWER) == before, "the value given is not changed"


def test_paths_index_lists_and_a_path_that_leads_nowhere_changes_nothing() -> None:
    edited = apply(ANSWER, (Edit(("result", "task", "artifacts", 0, "a"), EditOp.SET, 2),))
    assert edited["result"]["task"]["artifacts"] == [{"a": 2}]
    for nowhere in (("error", "code"), ("result", "task", "artifacts", 5), ("result", "task", "id", "x")):
        assert apply(ANSWER, (Edit(nowhere, EditOp.DELETE),)) == ANSWER
    assert apply(ANSWER, (Edit((), EditOp.WRAP, key="w"),)) == {"w": ANSWER}
    assert apply({"only": 1, "two": 2}, (Edit((), EditOp.UNWRAP),)) == {"only": 1, "two": 2}


@pytest.mark.parametrize("text", ["", "result", "result.task.artifacts[0].parts", "a[2][3].b"])
def test_a_path_reads_back_as_written(text: str) -> None:
    path = parse_path(text)
    assert path is not None and render_path(path) == text


@pytest.mark.parametrize("text", ["a..b", ".a", "a.", "a[x]", "[", "a[1"])
def test_a_malformed_path_is_none(text: str) -> None:
    assert parse_path(text) is None
