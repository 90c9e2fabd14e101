"""`a2a-lab record --from-har` against hostile captures (issue 45, items 6, 7 and 13): a capture that cannot become a
scenario is refused with exit 2, naming the entry that makes it so, before anything is rendered; what it accepts is
a scenario the server replays without failing (the replay's client is never blamed for the capture); no capture
ends in a Python error (exit 3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from a2a_lab.contract import userfile
from a2a_lab.contract.journal_record import BODY_KEEP_BYTES
from a2a_lab.contract.loader import load_file
from a2a_lab.harness.cli import main
from a2a_lab.harness.common import scenario_writer
from a2a_lab.harness.common.scenario_writer import RecordError
from a2a_lab.harness.proxy import har
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

ORIGIN = "http://agent.example"
CARD = {
    "name": "hostile capture",
    "description": "an agent seen through a HAR",
    "version": "1.0.0",
    "supportedInterfaces": [{"url": f"{ORIGIN}/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {"streaming": True},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}
EVENT = 'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","contextId":"c"}}}\r\n\r\n'


def _card_entry(card: dict[str, Any] = CARD) -> dict[str, Any]:
    return {
        "request": {"method": "GET", "url": f"{ORIGIN}/.well-known/agent-card.json", "headers": []},
        "response": {
            "status": 200,
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "content": {"mimeType": "application/json", "text": json.dumps(card)},
        },
    }


def _call(
    text: str,
    status: Any = 200,
    ctype: str = "application/json",
    method: str = "SendMessage",
    rid: int = 1,
    url: str = f"{ORIGIN}/a2a/jsonrpc",
) -> dict[str, Any]:
    message = {"role": "ROLE_USER", "parts": [{"text": "hi"}], "messageId": f"m-{rid}"}
    request = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"message": message}}
    return {
        "request": {
            "method": "POST",
            "url": url,
            "headers": [{"name": "A2A-Version", "value": "1.0"}],
            "postData": {"mimeType": "application/json", "text": json.dumps(request)},
        },
        "response": {
            "status": status,
            "headers": [{"name": "Content-Type", "value": ctype}],
            "content": {"mimeType": ctype, "text": text},
        },
    }


def _answer(rid: int = 1, pad: int = 0) -> str:
    """A completed task as a JSON-RPC answer (`pad` characters of artifact text)."""
    task: dict[str, Any] = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}
    if pad:
        task["artifacts"] = [{"artifactId": "a", "parts": [{"text": "x" * pad}]}]
    return json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"task": task}})


def _record(tmp_path: Path, entries: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path, out = tmp_path / "capture.har", tmp_path / "replay.yaml"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}), encoding="utf-8")
    code = main(["record", "--from-har", str(path), "--out", str(out)])
    said = capsys.readouterr().err
    assert code != 0 or out.exists()
    assert code == 0 or not out.exists()  # nothing written unless it all succeeded
    return code, said


@pytest.fixture
def no_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal must come before the scenario is rendered: rendering fails the test."""

    def rendered(*_: Any, **__: Any) -> str:
        raise AssertionError("the scenario was rendered before the capture was refused")

    monkeypatch.setattr(yaml, "dump", rendered)


# ------------------------------------------------------------------ item 6: bounded before rendering


def test_a_stream_of_more_events_than_a_scenario_holds_is_refused_as_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_rendering: None
) -> None:
    stream = EVENT * (har.MAX_EVENTS + 1)  # some 400 KB: fewer bytes than a scenario may be, too many values
    code, said = _record(tmp_path, [_card_entry(), _call(stream, ctype="text/event-stream")], capsys)
    assert code == 2 and "log.entries[1]" in said and f"more than {har.MAX_EVENTS} events" in said
    assert "Traceback" not in said


def test_a_stream_just_within_the_events_is_written_and_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = EVENT * 300
    code, said = _record(tmp_path, [_card_entry(), _call(stream, ctype="text/event-stream")], capsys)
    assert code == 0, said
    data = yaml.safe_load((tmp_path / "replay.yaml").read_text(encoding="utf-8"))
    assert len(data["behaviour"]["SendMessage"][0]["reply"]["raw"]["events"]) == 300


def test_answers_past_a_scenario_files_size_are_refused_at_the_entry_that_passes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_rendering: None
) -> None:
    each = BODY_KEEP_BYTES - 1024  # each kept whole by the journal; together past 1 MiB
    calls = [_call(_answer(rid, pad=each), rid=rid) for rid in range(1, 40)]
    code, said = _record(tmp_path, [_card_entry(), *calls], capsys)
    past = userfile.SCENARIO.max_bytes // len(calls[0]["response"]["content"]["text"]) + 1  # the entry that passes
    assert code == 2 and f"log.entries[{past}]" in said and f"({har.MAX_ANSWER_TEXT})" in said


def test_an_answer_longer_than_the_journal_keeps_is_refused_not_left_out_unsaid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: written without it (the journal cut it, and a cut body is not replayed), exit 0."""
    code, said = _record(tmp_path, [_card_entry(), _call(_answer(pad=BODY_KEEP_BYTES + 10))], capsys)
    assert code == 2 and "log.entries[1].response.content" in said and f"keeps {BODY_KEEP_BYTES} bytes" in said


def test_more_exchanges_than_the_journal_keeps_are_refused_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / "many.har"
    calls = [_call(_answer(rid), rid=rid) for rid in range(1, 8)]
    path.write_text(json.dumps({"log": {"entries": [_card_entry(), *calls]}}), encoding="utf-8")
    assert len(har.read(path).state.journal.records()) == 8
    with pytest.raises(har.HarError, match=r"more exchanges with http://agent\.example than a journal keeps"):
        har.read(path, entries_cap=5)


def test_the_scenario_is_measured_as_the_loader_counts_it_before_it_is_rendered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc: dict[str, Any] = {
        "title": "t",
        "behaviour": {"SendMessage": [{"when": {"call": i}, "reply": {"raw": {"body": "é" * i}}} for i in range(50)]},
        "list": [1, None, True, 2.5, [], {}],
    }
    values, chars = scenario_writer._measure(doc)
    node_count = 0
    stack = [yaml.compose(yaml.dump(doc, allow_unicode=True))]
    while stack:
        node = stack.pop()
        node_count += 1
        if isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    assert values == node_count and chars <= len(yaml.dump(doc, allow_unicode=True).encode())
    many = {"behaviour": {"SendMessage": [{"when": {"call": i}} for i in range(userfile.SCENARIO.max_values // 4)]}}
    monkeypatch.setattr(yaml, "dump", lambda *_, **__: pytest.fail("rendered"))
    with pytest.raises(RecordError, match=r"values, more than the 20000 .* behaviour.SendMessage\["):
        scenario_writer.render(many, tmp_path / "x.yaml")


# ------------------------------------------------------------------ item 7: what the replay sends, as the loader


@pytest.mark.parametrize(
    ("status", "text", "says"),
    [
        (10**30, _answer(), "not an HTTP status a server can answer with"),
        (101, _answer(), "informational status"),
        (204, _answer(), "a 204 answer has no body"),
        (304, _answer(), "a 304 answer has no body"),
        (600, _answer(), "not an HTTP status"),
        (0, _answer(), "not an HTTP status"),  # devtools' status of a request that got no answer
        (True, _answer(), "got True"),
        ("200", _answer(), "got '200'"),
    ],
    ids=["1e30", "101", "204-body", "304-body", "600", "0", "true", "text"],
)
def test_a_status_the_replay_cannot_send_is_refused_naming_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], status: Any, text: str, says: str
) -> None:
    code, said = _record(tmp_path, [_card_entry(), _call(text, status=status)], capsys)
    assert code == 2 and "log.entries[1].response.status" in said and says in said, said


@pytest.mark.parametrize(
    ("ctype", "says"),
    [
        ("application/json\r\nX-Evil: 1", "control character (U+000D"),
        ("application/json; x=\u20ac", "outside Latin-1"),
        ("application/json\x00", "control character (U+0000"),
    ],
    ids=["crlf", "euro", "nul"],
)
def test_a_content_type_no_header_can_carry_is_refused_naming_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ctype: str, says: str
) -> None:
    code, said = _record(tmp_path, [_card_entry(), _call(_answer(), ctype=ctype)], capsys)
    assert code == 2 and "log.entries[1].response.headers content-type" in said and says in said
    assert "\r" not in said and "\x00" not in said


def test_the_cards_content_type_is_checked_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    card = _card_entry()
    card["response"]["headers"] = [{"name": "Content-Type", "value": "application/json\nX: 1"}]
    code, said = _record(tmp_path, [card, _call(_answer())], capsys)
    assert code == 2 and "log.entries[0].response.headers content-type" in said


def test_what_it_accepts_the_server_replays_and_the_client_gets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The statuses a capture may hold (an error page, a 204 with no body) come back from the replay as captured."""
    entries = [
        _card_entry(),
        _call("<html>busy</html>", status=503, ctype="text/html; charset=utf-8", rid=1),
        _call("", status=204, ctype="application/json", rid=2),
        _call(_answer(3), status=200, rid=3),
    ]
    code, said = _record(tmp_path, entries, capsys)
    assert code == 0, said
    with BackgroundServer(ScenarioApp(load_file(tmp_path / "replay.yaml"))) as replay, httpx.Client() as http:
        send = json.loads(entries[1]["request"]["postData"]["text"])
        answers = [http.post(f"{replay.url}/a2a/jsonrpc", json=send, headers={"A2A-Version": "1.0"}) for _ in range(3)]
    assert [a.status_code for a in answers] == [503, 204, 200]
    assert answers[0].text == "<html>busy</html>" and answers[1].content == b""


def test_entries_that_are_not_replayed_are_not_held_to_what_a_replay_sends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An aborted page load on the agent's origin (status 0) and another site's odd answer are no A2A calls."""
    page = _call("", status=0, ctype="text/html\r\nX: 1", url=f"{ORIGIN}/favicon.ico")
    other = _call(_answer(), status=10**30, url="http://elsewhere.example/a2a/jsonrpc")
    code, said = _record(tmp_path, [_card_entry(), page, other, _call(_answer())], capsys)
    assert code == 0, said


# ------------------------------------------------------------------ item 13: exit 2 naming the entry, never exit 3


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("entry", "where", "says"),
    [
        (_call(_answer(), url="http://[::1/a2a/jsonrpc"), "log.entries[1].request.url", "not a URL"),
        (_call("\ud800"), "log.entries[1].response.content.text", "lone surrogate"),
        (
            {**_call(_answer()), "request": {**_call(_answer())["request"], "postData": {"text": "a\udc80b"}}},
            "log.entries[1].request.postData.text",
            "lone surrogate",
        ),
        (
            {**_call(_answer()), "request": {**_call(_answer())["request"], "postData": {"text": _nested(100_000)}}},
            "log.entries[1]",
            "nested too deeply",
        ),
        (_call(_nested(100_000)), "log.entries[1]", "nested too deeply"),
    ],
    ids=["ipv6-url", "surrogate-answer", "surrogate-request", "deep-request", "deep-answer"],
)
def test_a_bad_entry_is_refused_with_exit_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: dict[str, Any], where: str, says: str
) -> None:
    code, said = _record(tmp_path, [_card_entry(), entry, _call(_answer())], capsys)
    assert code == 2 and where in said and says in said, said
    assert "Traceback" not in said and "Error:" not in said


def test_a_card_with_an_interface_url_that_does_not_parse_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = {"url": "http://[::1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    card = {**CARD, "supportedInterfaces": [*CARD["supportedInterfaces"], broken]}
    code, said = _record(tmp_path, [_card_entry(card), _call(_answer())], capsys)
    assert code == 2 and "log.entries[0]" in said and "interface url 'http://[::1' is not a URL" in said


def test_absurd_timings_are_capped_without_a_python_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A wait of 10^400 ms (no float holds it) is capped and said, like an hour's."""
    call = {**_call(_answer()), "timings": {"wait": 10**400, "receive": 10**400}}
    code, said = _record(tmp_path, [_card_entry(), call], capsys)
    assert code == 0, said
    note = yaml.safe_load((tmp_path / "replay.yaml").read_text(encoding="utf-8"))["observed"]["note"]
    assert "log.entries[1].timings.wait 1e+308 ms" in note


@pytest.mark.parametrize("body", ["", ": keep-alive\n\n", "not an event stream"], ids=["empty", "comments", "text"])
def test_a_stream_with_no_event_is_replayed_as_the_bytes_that_came(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> None:
    """Before: written as `events: []`, which the loader refuses: "the recording is not a valid scenario"."""
    stream = _call(body, ctype="text/event-stream", method="SendStreamingMessage")
    code, said = _record(tmp_path, [_card_entry(), stream], capsys)
    assert code == 0, said
    with BackgroundServer(ScenarioApp(load_file(tmp_path / "replay.yaml"))) as replay:
        send = json.loads(stream["request"]["postData"]["text"])
        answer = httpx.post(f"{replay.url}/a2a/jsonrpc", json=send, headers={"A2A-Version": "1.0"})
    assert answer.status_code == 200 and answer.text == body
    assert answer.headers["content-type"].startswith("text/event-stream")
