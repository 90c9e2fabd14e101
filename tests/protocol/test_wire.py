"""Wire forms both ways: what result_out and event_out write, result_in and event_in read back as the same value."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_lab.protocol import wire
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.forms import V03_HTTP_JSON, V03_JSONRPC, V1_HTTP_JSON, V1_JSONRPC, Form, push_form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

FORMS = [V1_JSONRPC, V1_HTTP_JSON, V03_JSONRPC, V03_HTTP_JSON]
FILE = {"raw": "aGk=", "mediaType": "text/plain", "filename": "a.txt"}
MESSAGE = {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}, {"data": {"k": 1}}, FILE]}
STATUS = {"state": "TASK_STATE_CANCELED", "timestamp": "2026-01-01T00:00:00Z", "message": MESSAGE}
TASK: dict[str, Any] = {
    "id": "t-1",
    "contextId": "c-1",
    "status": STATUS,
    "history": [{**MESSAGE, "role": "ROLE_USER"}],
    "artifacts": [{"artifactId": "a-1", "parts": [{"text": "x"}, FILE]}],
}


def test_form_names_its_version_and_binding() -> None:
    assert Form(Version.V0_3, Binding.HTTP_JSON) == V03_HTTP_JSON and V03_HTTP_JSON.rest
    assert V03_JSONRPC.discriminated and not V03_HTTP_JSON.discriminated and not V1_JSONRPC.discriminated
    assert [f.parts_key for f in FORMS] == ["parts", "parts", "parts", "content"]
    assert [f.label for f in FORMS] == ["1.0 JSON-RPC", "1.0 HTTP+JSON", "0.3 JSON-RPC", "0.3 HTTP+JSON"]
    assert push_form(Version.V1_0) == V1_HTTP_JSON and push_form(Version.V0_3) == V03_JSONRPC


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.label)
@pytest.mark.parametrize("result", [{"task": TASK}, {"message": MESSAGE}], ids=["task", "message"])
def test_a_send_result_reads_back_as_written(form: Form, result: dict[str, Any]) -> None:
    sent = wire.result_out(Operation.SEND_MESSAGE, result, form)
    assert wire.result_in(Operation.SEND_MESSAGE, sent, form) == result


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.label)
@pytest.mark.parametrize("op", [Operation.GET_TASK, Operation.CANCEL_TASK])
def test_a_bare_task_reads_back_as_written(form: Form, op: Operation) -> None:
    sent = wire.result_out(op, TASK, form)
    assert wire.result_in(op, sent, form) == {"task": TASK}
    if form.discriminated:  # a 0.3 task without its `kind` is still read as the task it answers
        assert wire.result_in(op, {k: v for k, v in sent.items() if k != "kind"}, form) == {"task": TASK}


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.label)
def test_stream_events_read_back_as_written(form: Form) -> None:
    status_update = {"taskId": "t-1", "contextId": "c-1", "status": STATUS}
    artifact_update = {"taskId": "t-1", "contextId": "c-1", "artifact": TASK["artifacts"][0], "append": True}
    for event in (
        {"task": TASK},
        {"message": MESSAGE},
        {"statusUpdate": status_update},
        {"artifactUpdate": artifact_update},
    ):
        read = wire.event_in(wire.event_out(event, form), form)
        assert read is not None
        if "statusUpdate" in read and form.version is Version.V0_3:
            assert read["statusUpdate"].pop("final") is True  # 0.3 marks the stop (notes §6)
        assert read == event


def test_what_is_neither_a_message_nor_a_task_reads_as_nothing() -> None:
    assert wire.result_in(Operation.SEND_MESSAGE, {"unexpected": 1}, V1_JSONRPC) is None
    assert wire.result_in(Operation.GET_TASK, ["not", "an", "object"], V1_JSONRPC) is None
    assert wire.event_in({"kind": "task"}, V1_JSONRPC) is None
    assert wire.event_member({"task": TASK}, V1_HTTP_JSON) == ("task", TASK)
    assert wire.event_member({"kind": "message", **MESSAGE}, V03_JSONRPC)[0] == "message"


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.label)
def test_push_configs_keep_their_form(form: Form) -> None:
    config = {"id": "p-1", "taskId": "t-1", "url": "http://127.0.0.1:9/hook"}
    listed = wire.result_out(Operation.LIST_PUSH_CONFIGS, {"configs": [config], "nextPageToken": ""}, form)
    assert isinstance(listed, list) is form.discriminated
    assert wire.result_out(Operation.DELETE_PUSH_CONFIG, {}, form) == (None if form.version is Version.V0_3 else {})
