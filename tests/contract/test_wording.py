"""error_messages entries (contract/wording.py): which entry words an error, and how its message is filled in."""

from __future__ import annotations

from a2a_lab.contract.wording import Asked, ErrorWording, word
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

NOT_FOUND = A2AError(ErrorType.TASK_NOT_FOUND, "Task not found: t-1", metadata={"taskId": "t-1"})
ON_GET = Asked(Operation.GET_TASK, Binding.JSONRPC, Version.V1_0, "1.0", "GetTask", "application/json")


def test_placeholders_are_filled_and_other_braces_stay_text() -> None:
    entry = ErrorWording(-32001, message='{method}: no {taskId} ({version}) {unknown} {"a": 1}')
    worded = word((entry,), NOT_FOUND, ON_GET).error
    assert worded.text == 'GetTask: no t-1 (1.0) {unknown} {"a": 1}'
    assert worded.metadata == {} and worded.field is None, "none of a2a-lab's own metadata"


def test_the_first_entry_whose_conditions_all_hold_words_the_error() -> None:
    entries = (
        ErrorWording(-32001, binding=Binding.HTTP_JSON, message="rest"),
        ErrorWording(-32001, operation=Operation.CANCEL_TASK, message="cancel"),
        ErrorWording(-32001, requested="0.3", message="old"),
        ErrorWording(-32001, message="any", answer=ErrorType.METHOD_NOT_FOUND, reason="GONE", http_status=410),
        ErrorWording(-32001, message="never reached"),
    )
    worded = word(entries, NOT_FOUND, ON_GET)
    assert (worded.error.text, worded.error.code, worded.http_status) == ("any", -32601, 410)
    assert worded.error.details()[0]["reason"] == "GONE"


def test_an_unworded_error_is_unchanged_but_for_error_metadata() -> None:
    other = ErrorWording(-32002, message="not this one")
    assert word((other,), NOT_FOUND, ON_GET).error is NOT_FOUND
    bare = word((other,), NOT_FOUND, ON_GET, error_metadata=False).error
    assert bare.text == NOT_FOUND.text and "metadata" not in bare.details()[0]
