"""A stream that ends inside its last event, through the real proxy on loopback: an SSE event cut off by EOF before
its blank line is journaled marked `unterminated` and judged as never dispatched (WHATWG HTML §9.2.6), as the
probe's reader (httpx-sse) and every SSE client drop it; an NDJSON last line without its newline is not marked,
since NDJSON readers keep it. The probe's side of the same servers is in test_one_judge.py."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import NamedTuple

import httpx
import pytest

from a2a_lab.contract.journal_record import Entry, ResultKind, SentEvent, SentKind
from a2a_lab.contract.loader import load_file
from a2a_lab.harness.client_judging import journal_view
from a2a_lab.harness.common.model import CheckResult, Outcome
from a2a_lab.harness.proxy import capture, session
from a2a_lab.harness.proxy.app import record_stream
from a2a_lab.harness.proxy.sse import EventReader, LineReader
from a2a_lab.harness.proxy.verdict import SERVER_ID, verdict
from a2a_lab.protocol.bindings import EVENT_STREAM
from a2a_lab.protocol.states import TaskState
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer
from tests.server.helpers import RPC_PATH, scenario_text

#: One server, its stream chosen by the message's text: cut at EOF (the terminal status-update, or a final snapshot
#: after it), NDJSON with no newline after its last line, or (no rule matches) a stream that ends as it should.
CUT_STREAMS = scenario_text(
    """
    task:
      steps: [SUBMITTED, WORKING, COMPLETED]
    behaviour:
      SendStreamingMessage:
        - when: {text_contains: snapshot-cut}
          reply: {stream: {final_snapshot: true, unterminated: true}}
        - when: {text_contains: nd-cut}
          reply: {stream: {framing: ndjson, unterminated: true}}
        - when: {text_contains: cut}
          reply: {stream: {unterminated: true}}
    """,
    caps="{streaming: true}",
)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("cut") / "cut.yaml"
    path.write_text(CUT_STREAMS, encoding="utf-8")
    with BackgroundServer(ScenarioApp(load_file(path))) as server:
        yield server.url


class Streamed(NamedTuple):
    body: bytes  # what the client got
    entry: Entry  # the journal's
    check: CheckResult  # proxy/server's STREAMING
    said: str  # the description `--out` writes of the session


def _streamed(upstream: str, text: str) -> Streamed:
    """One SendStreamingMessage through the proxy, its stream chosen by `text`."""
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}
    asked = {"jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage", "params": {"message": message}}
    with session.hosted(upstream) as (state, url, _):
        body = httpx.post(f"{url}{RPC_PATH}", json=asked, headers={"A2A-Version": "1.0"}, timeout=30).content
        judged = {r.id: r for r in verdict(state, 0.0).results}[SERVER_ID]
    entry = next(e for e in state.journal.records() if e.operation is not None)
    check = judged.check("STREAMING")
    assert check is not None
    return Streamed(body, entry, check, capture.document(state)[0]["description"])


def test_a_terminal_event_cut_off_by_eof_fails_streaming_as_never_dispatched(upstream: str) -> None:
    body, entry, check, said = _streamed(upstream, "cut")
    assert body.endswith(b"}\r\n") and not body.endswith(b"\r\n\r\n")  # forwarded as it came, cut
    events = [e for e in entry.events or [] if e.kind is SentKind.DATA]
    assert [e.unterminated for e in events] == [False] * (len(events) - 1) + [True]
    assert "statusUpdate" in events[-1].data["result"]  # the terminal one, journaled as what came
    assert check.outcome is Outcome.FAIL, check
    assert "closed at WORKING, before a terminal state" in check.message
    assert "lacked the blank line that ends an SSE event, so it was never dispatched" in check.message
    assert "WHATWG HTML §9.2.6" in check.message and "§3.1.2" in check.section
    assert "TASK_STATE_COMPLETED" in check.quote  # the bytes the server sent, the cut event with them
    # --out cannot replay the cut (a raw event stream ends each event), and its scenario says so
    assert f"stream of journal entry #{entry.seq} (SendStreamingMessage) came without its closing" in said


def test_what_the_client_was_told_leaves_out_the_event_it_never_got(upstream: str) -> None:
    """The client side's view (what client checks compare a client's result with, and whether its task was left
    open): the stream told the client WORKING when the cut COMPLETED never reached it; the whole stream told
    COMPLETED."""
    cut, whole = _streamed(upstream, "cut").entry, _streamed(upstream, "whole").entry
    told = [o.state for o in journal_view.observe(journal_view.Call(cut)) if o.state is not None]  # not artifacts
    assert told == [TaskState.SUBMITTED, TaskState.WORKING], told
    told = [o.state for o in journal_view.observe(journal_view.Call(whole)) if o.state is not None]
    assert told == [TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED], told


def test_a_stream_whose_only_event_was_cut_told_the_client_nothing(upstream: str) -> None:
    """The journaled answer of a stream (`record_stream`) reads only events a client got: from the cut event alone,
    no task at all."""
    entry = _streamed(upstream, "cut").entry
    cut = [e for e in entry.events or [] if e.unterminated]
    record_stream(entry, 200, EVENT_STREAM, cut)
    assert entry.answer is not None and entry.answer.kind is ResultKind.RAW, entry.answer
    record_stream(entry, 200, EVENT_STREAM, [dataclasses.replace(e, unterminated=False) for e in cut])
    assert entry.answer is not None and entry.answer.kind is not ResultKind.RAW, entry.answer  # had it come whole


def test_the_same_stream_ending_with_its_blank_line_passes(upstream: str) -> None:
    body, entry, check, said = _streamed(upstream, "whole")
    assert body.endswith(b"\r\n\r\n")
    assert not any(e.unterminated for e in entry.events or [])
    assert check.outcome is Outcome.PASS, check
    assert "closing blank line" not in said


def test_a_cut_final_snapshot_after_the_terminal_state_passes(upstream: str) -> None:
    """The client saw COMPLETED before the cut: the event no client dispatches is one it did not need."""
    _, entry, check, _ = _streamed(upstream, "snapshot-cut")
    assert (entry.events or [])[-1].unterminated
    assert check.outcome is Outcome.PASS, check


def test_an_ndjson_last_line_without_its_newline_is_an_event_like_the_others(upstream: str) -> None:
    body, entry, check, _ = _streamed(upstream, "nd-cut")
    assert not body.endswith(b"\n")
    # the decision's ground: httpx's line reader, what a Python NDJSON client reads with, yields that last line
    last = httpx.Response(200, content=body).iter_lines()
    assert json.loads(list(last)[-1]) == (entry.events or [])[-1].data
    assert not any(e.unterminated for e in entry.events or [])
    assert check.outcome is Outcome.FAIL and "not text/event-stream" in check.message  # NDJSON is not SSE: §9.4.2
    assert "before a terminal state" not in check.message  # ... but it did reach COMPLETED


def test_the_readers_mark_only_an_sse_block_that_ended_at_eof() -> None:
    seen: list[SentEvent] = []
    sse = EventReader(seen.append, lambda: 0.0)
    sse.feed(b'data: {"n":1}\r\n\r\n: ping\r\ndata: {"n":2}\r\n')
    sse.close()
    assert [(e.kind, e.unterminated) for e in seen] == [
        (SentKind.DATA, False),
        (SentKind.COMMENT, False),
        (SentKind.DATA, True),
    ]
    seen.clear()
    ndjson = LineReader(seen.append, lambda: 0.0)
    ndjson.feed(b'{"n":1}\n{"n":2}')
    ndjson.close()
    assert [(e.data, e.unterminated) for e in seen] == [({"n": 1}, False), ({"n": 2}, False)]


def test_the_journal_writes_unterminated_only_when_true() -> None:
    cut = SentEvent(0.5, SentKind.DATA, '{"n":2}', unterminated=True)
    whole = SentEvent(0.5, SentKind.DATA, '{"n":2}')
    assert whole.to_json() == {"t": 0.5, "data": {"n": 2}}  # every journal written before stays as it was
    assert cut.to_json() == {"t": 0.5, "data": {"n": 2}, "unterminated": True}
    assert SentEvent.from_json(cut.to_json()).unterminated and not SentEvent.from_json(whole.to_json()).unterminated
