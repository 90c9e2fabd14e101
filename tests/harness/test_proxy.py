"""`a2a-lab proxy`: a real client through the proxy to a real server (uvicorn on loopback). The bytes pass as they
came (the card's URLs aside), every exchange is journaled in the server's record, and each side is judged by its own
checks: a correct client and server PASS, a defective client FAILs `proxy/client`, a defective server FAILs
`proxy/server`, each on the named check. Plus: an upstream that is down, a flooding client, the command with Ctrl-C
and `--out`, whose scenario replays the client's failure without the real server."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from a2a_lab import scenarios
from a2a_lab.contract import userfile
from a2a_lab.contract.journal_record import EntryKind
from a2a_lab.contract.loader import load_file
from a2a_lab.contract.scenario import ServerCertificate
from a2a_lab.harness.cli import main
from a2a_lab.harness.common.model import CheckResult, Outcome, ScenarioResult
from a2a_lab.harness.proxy import app as proxy_app
from a2a_lab.harness.proxy import session
from a2a_lab.harness.proxy.app import PROXY_HEADER
from a2a_lab.harness.proxy.push import CONFIG_OPS, PUSH
from a2a_lab.harness.proxy.verdict import CLIENT_ID, SERVER_ID, verdict
from a2a_lab.server import tls
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer
from tests.harness.client_launch import FAKE_CLIENT

CLI = [sys.executable, "-m", "a2a_lab.harness.cli"]
#: The reference client, run in this process (`a2a-lab client`): the subprocess tests run the fake client.
REFERENCE = ["client"]


def _serve(scenario: Any) -> Iterator[str]:
    with BackgroundServer(ScenarioApp(scenario)) as server:
        yield server.url


@pytest.fixture(scope="module")
def conformant() -> Iterator[str]:
    yield from _serve(load_file(Path(scenarios.__file__).parent / "spec" / "conformant.yaml"))


#: A server that answers SendMessage with a 0.3 task on a 1.0 interface and streams a `data:` that is not JSON.
BROKEN = """\
title: broken server
description: answers in the wrong version's shape, and a stream with bytes that are not JSON
card:
  object:
    name: broken
    description: a broken agent
    version: "1.0.0"
    supportedInterfaces:
      - {url: "{base_url}/a2a", protocolBinding: JSONRPC, protocolVersion: "1.0"}
    capabilities: {streaming: true}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{id: s, name: s, description: s, tags: [t]}]
behaviour:
  SendMessage:
    - reply:
        raw:
          body: >-
            {"jsonrpc":"2.0","id":1,"result":
            {"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"completed"}}}
          echo_id: true
  SendStreamingMessage:
    - reply:
        raw:
          body: "data: {not json\\n\\n"
          content_type: text/event-stream
"""


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("broken") / "broken.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    yield from _serve(load_file(path))


@pytest.fixture
def unused_port() -> Iterator[int]:
    """A loopback port bound but never listening: a connection to it is refused (no race with another listener)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def _client(argv: list[str], card_url: str) -> None:
    if argv[0] == "client":
        main([*argv, card_url])
        return
    subprocess.run([*argv, card_url], capture_output=True, text=True, timeout=60, check=False)


def _judged(upstream: str, *clients: list[str]) -> dict[str, ScenarioResult]:
    with session.hosted(upstream) as (state, url, _):
        for argv in clients:
            _client(argv, f"{url}/.well-known/agent-card.json")
    return {r.id: r for r in verdict(state, 0.0).results}


def _outcome(result: ScenarioResult, check_id: str) -> Outcome:
    found = result.check(check_id)
    assert found is not None, check_id
    return found.outcome


def test_the_bytes_pass_as_they_came_and_the_card_points_at_the_proxy(conformant: str) -> None:
    asked = {"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "nope"}}
    headers = {"A2A-Version": "1.0"}
    direct = httpx.post(f"{conformant}/a2a/jsonrpc", json=asked, headers=headers)
    card = httpx.get(f"{conformant}/.well-known/agent-card.json")
    with session.hosted(conformant) as (state, url, said):
        proxied = httpx.post(f"{url}/a2a/jsonrpc", json=asked, headers=headers)
        served = httpx.get(f"{url}/.well-known/agent-card.json")
    assert "the upstream's card" in said
    assert (proxied.status_code, proxied.content) == (direct.status_code, direct.content)
    (route,) = state.routes.grpc.values()  # the gRPC interface passes through the proxy's own port
    assert route.proxy is not None
    rewritten = card.text.replace(conformant, url).replace(f'"{route.upstream}"', f'"{route.proxy}"')
    assert served.text == rewritten  # nothing else of the card changed
    assert state.routes.not_proxied == []
    entries = state.journal.records()
    assert [e.kind.value for e in entries] == ["jsonrpc", "card"]
    assert entries[0].operation is not None and entries[0].answer is not None
    assert entries[0].answer.code == -32001  # TaskNotFound, journaled as the scenario server journals it


def test_a_correct_pair_passes_both_sides(conformant: str) -> None:
    results = _judged(conformant, REFERENCE, [*REFERENCE, "--stream"])
    client, server = results[CLIENT_ID], results[SERVER_ID]
    assert client.outcome is Outcome.PASS, [c for c in client.checks if c.outcome is not Outcome.PASS]
    assert server.outcome is Outcome.PASS, [c for c in server.checks if c.outcome is not Outcome.PASS]
    assert _outcome(client, "VERSION-HEADER") is Outcome.PASS
    assert _outcome(server, "STREAMING") is Outcome.PASS and _outcome(server, "RESPONSE-SHAPE") is Outcome.PASS
    assert len(client.journal) == len(server.journal) >= 4


def test_a_defective_client_fails_its_own_side_only(conformant: str) -> None:
    results = _judged(conformant, [sys.executable, str(FAKE_CLIENT), "--defect", "no-header"])
    client, server = results[CLIENT_ID], results[SERVER_ID]
    missed = client.check("VERSION-HEADER")
    assert missed is not None and missed.outcome is Outcome.FAIL
    assert "§" in missed.section and missed.quote.startswith("POST /a2a/jsonrpc")  # the MUST, the bytes quoted
    assert _outcome(server, "RESPONSE-SHAPE") is Outcome.PASS


def test_a_defective_server_fails_its_own_side_only(broken: str) -> None:
    results = _judged(broken, REFERENCE, [*REFERENCE, "--stream"])
    client, server = results[CLIENT_ID], results[SERVER_ID]
    shape, stream = server.check("RESPONSE-SHAPE"), server.check("STREAMING")
    assert shape is not None and shape.outcome is Outcome.FAIL and "0.3" in shape.actual + shape.message
    assert '"kind":"task"' in shape.quote  # the server's bytes, quoted
    assert stream is not None and stream.outcome is Outcome.FAIL and "not JSON" in stream.message
    assert "{not json" in stream.quote  # forwarded as it came, and judged
    assert _outcome(client, "VERSION-HEADER") is Outcome.PASS and _outcome(client, "BODY-SHAPE") is Outcome.PASS


def test_the_extended_card_is_rewritten_too_and_credentials_are_never_journaled() -> None:
    tck = load_file(Path(scenarios.__file__).parent / "spec" / "tck-sut.yaml")
    asked = {"jsonrpc": "2.0", "id": 5, "method": "GetExtendedAgentCard", "params": {}}
    headers = {"A2A-Version": "1.0", "Authorization": "Bearer pr0xy-s3cret"}
    with BackgroundServer(ScenarioApp(tck)) as upstream, session.hosted(upstream.url) as (state, url, _):
        answer = httpx.post(f"{url}/a2a/jsonrpc", json=asked, headers=headers)
    card = answer.json()["result"]
    http_urls = [i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] != "GRPC"]
    assert http_urls and all(u.startswith(url) for u in http_urls) and upstream.url not in answer.text
    assert "pr0xy-s3cret" not in json.dumps(state.journal.snapshot())
    assert state.journal.records()[-1].answer is not None


def test_an_https_upstream_passes_through_with_its_ca() -> None:
    conformant = load_file(Path(scenarios.__file__).parent / "spec" / "conformant.yaml")
    context = tls.server_context(ServerCertificate.VALID)
    with BackgroundServer(ScenarioApp(conformant), ssl_context=context) as upstream:
        with session.hosted(upstream.url, ca_file=str(tls.pki().ca_file)) as (state, url, said):
            main(["client", f"{url}/.well-known/agent-card.json", "over tls"])
        with session.hosted(upstream.url) as (untrusted, _, refused):  # the lab's CA is in no system store
            pass
    assert upstream.url.startswith("https://") and "the upstream's card" in said
    results = {r.id: r for r in verdict(state, 0.0).results}
    assert results[CLIENT_ID].outcome is Outcome.PASS and results[SERVER_ID].outcome is Outcome.PASS
    assert "did not answer" in refused and "CERTIFICATE_VERIFY_FAILED" in refused and untrusted.card is None


def test_an_upstream_that_is_down_is_said_per_request(unused_port: int) -> None:
    with session.hosted(f"http://127.0.0.1:{unused_port}") as (state, url, said):
        answer = httpx.get(f"{url}/.well-known/agent-card.json")
    assert "did not answer" in said
    assert answer.status_code == 502 and answer.headers[PROXY_HEADER] == "own-answer"
    assert f"127.0.0.1:{unused_port}" in answer.text
    server = verdict(state, 0.0).results[1]
    card = server.check("CARD-VALID")
    assert card is not None and card.outcome is Outcome.FAIL and "no agent card" in card.message


SLOW_STREAM = """\
title: slow stream
description: a stream whose events are seconds apart
card:
  object:
    name: slow
    description: a slow agent
    version: "1.0.0"
    supportedInterfaces:
      - {url: "{base_url}/a2a", protocolBinding: JSONRPC, protocolVersion: "1.0"}
    capabilities: {streaming: true}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{id: s, name: s, description: s, tags: [t]}]
behaviour:
  SendStreamingMessage:
    - reply:
        task: {steps: [SUBMITTED, WORKING, WORKING, COMPLETED]}
        stream: {interval_ms: 30000}
"""


def test_a_client_that_leaves_a_stream_stops_it_and_what_was_seen_is_journaled(tmp_path: Path) -> None:
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW_STREAM, encoding="utf-8")
    asked = {**_send("slow", "SendStreamingMessage"), "id": 3}
    with BackgroundServer(ScenarioApp(load_file(path))) as upstream, session.hosted(upstream.url) as (state, url, _):
        with httpx.stream("POST", f"{url}/a2a", json=asked, headers={"A2A-Version": "1.0"}) as r:
            first = next(r.iter_lines())  # the first event came through; then the client leaves
        assert first.startswith("data:")
        assert state.journal.wait_for(lambda entries: any(e.get("disconnected") for e in entries), timeout=20)
    entry = state.journal.records()[-1]
    assert entry.disconnected and entry.events and entry.answer is not None and entry.answer.stream


def test_a_flooding_client_is_bounded_by_the_journal(conformant: str) -> None:
    with session.hosted(conformant, entries=5) as (state, url, _), httpx.Client() as http:
        for _ in range(20):
            http.get(f"{url}/.well-known/agent-card.json")
    assert len(state.journal.records()) == 5 and state.journal.dropped == 15


def test_bad_input_is_refused_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proxy", "--upstream", "ftp://agent.example"]) == 2
    assert "not an http(s) URL" in capsys.readouterr().err
    out = tmp_path / "seen.yaml"
    out.write_text("x", encoding="utf-8")
    assert main(["proxy", "--upstream", "http://127.0.0.1:1", "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err


def test_ctrl_c_writes_the_verdict_and_a_scenario_that_replays_the_failure(conformant: str, tmp_path: Path) -> None:
    report, out = tmp_path / "proxy.json", tmp_path / "seen.yaml"
    html, junit = tmp_path / "html", tmp_path / "proxy.xml"
    argv = [*CLI, "proxy", "--upstream", conformant, "--json", str(report), "--out", str(out), "--html", str(html)]
    argv += ["--junit", str(junit)]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert proc.stderr is not None
    url = None
    for line in proc.stderr:
        found = re.search(r"client card URL: (\S+)", line)
        if found:
            url = found.group(1)
            break
    assert url is not None
    defective = [sys.executable, str(FAKE_CLIENT), "--defect", "no-header"]
    _client(defective, url)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(30) == 1  # the client's FAIL gates
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["proxy"]["upstream"] == conformant and data["proxy"]["sides"][CLIENT_ID] == "client"
    assert "seed" not in data  # a proxy uses no seed
    failed = {s["id"]: [c["id"] for c in s["checks"] if c["outcome"] == "FAIL"] for s in data["scenarios"]}
    assert failed == {CLIENT_ID: ["VERSION-HEADER", "VERSION-MATCHES-METHOD"], SERVER_ID: []}
    xml = junit.read_text(encoding="utf-8")
    assert CLIENT_ID in xml and SERVER_ID in xml and "VERSION-HEADER" in xml
    page = (html / "index.html").read_text(encoding="utf-8")
    assert "a2a-lab proxy report" in page and "client under test" in page and "server under test" in page
    scenario = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert scenario["observed"]["where"] == conformant and "{base_url}" in scenario["card"]["raw"]
    replay = tmp_path / "replay.json"
    code = main(["run", "--scenario", str(out), "--client", " ".join(defective), "--json", str(replay), "-q"])
    assert code == 1  # reproduced without the real server
    checks = json.loads(replay.read_text(encoding="utf-8"))["scenarios"][0]["checks"]
    assert {"VERSION-HEADER", "VERSION-MATCHES-METHOD"} <= {c["id"] for c in checks if c["outcome"] == "FAIL"}


# ------------------------------------------------------------------------------------------ record --from-har


def _har_entry(response: httpx.Response) -> dict[str, Any]:
    """One exchange as HAR 1.2 writes it (what devtools or mitmproxy export)."""
    request = response.request
    body = request.content.decode("utf-8")
    return {
        "startedDateTime": "2026-12-01T00:00:00.000Z",
        "request": {
            "method": request.method,
            "url": str(request.url),
            "headers": [{"name": k, "value": v} for k, v in request.headers.items()],
            **({"postData": {"mimeType": "application/json", "text": body}} if body else {}),
        },
        "response": {
            "status": response.status_code,
            "headers": [{"name": k, "value": v} for k, v in response.headers.items()],
            "content": {"mimeType": response.headers.get("content-type", ""), "text": response.text},
        },
    }


def _send(text: str, method: str = "SendMessage", rid: int = 1) -> dict[str, Any]:
    message = {"role": "ROLE_USER", "parts": [{"text": text}], "messageId": f"m-{rid}"}
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"message": message}}


def test_a_har_capture_becomes_a_scenario_that_replays_it(conformant: str, tmp_path: Path) -> None:
    headers = {"A2A-Version": "1.0", "Authorization": "Bearer s3cret-token"}
    with httpx.Client(headers=headers) as http:
        captured = [
            http.get(f"{conformant}/.well-known/agent-card.json"),
            http.post(f"{conformant}/a2a/jsonrpc", json=_send("from a har")),
            http.post(f"{conformant}/a2a/jsonrpc", json=_send("streamed", "SendStreamingMessage", 2)),
        ]
    har, out = tmp_path / "session.har", tmp_path / "from-har.yaml"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": [_har_entry(r) for r in captured]}}))
    assert main(["record", "--from-har", str(har), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "s3cret-token" not in text  # credentials never written
    data = yaml.safe_load(text)
    assert [r["when"]["call"] for r in data["behaviour"]["SendMessage"]] == [1]
    assert data["behaviour"]["SendStreamingMessage"][0]["reply"]["raw"]["content_type"].startswith("text/event-stream")
    with BackgroundServer(ScenarioApp(load_file(out))) as replay:
        again = httpx.post(f"{replay.url}/a2a/jsonrpc", json=_send("anything", rid=9), headers=headers)
        streamed = httpx.post(
            f"{replay.url}/a2a/jsonrpc",
            json=_send("anything", "SendStreamingMessage", 77),
            headers={**headers, "Accept": "text/event-stream"},
        )
    recorded = captured[1].json()
    assert again.json() == {**recorded, "id": 9}  # the recorded answer, the new request's id echoed
    sent = [json.loads(line[5:]) for line in captured[2].text.splitlines() if line.startswith("data:")]
    replayed = [json.loads(line[5:]) for line in streamed.text.splitlines() if line.startswith("data:")]
    assert len(sent) >= 2 and replayed == [{**event, "id": 77} for event in sent]  # each event, the new id


def test_a_captured_stream_replays_with_the_pacing_it_came_with() -> None:
    """`--out` writes a stream as `raw.events`: each event after the delay it came after, its JSON-RPC id written as
    `{request_id}`; keep-alive comments are not replayed."""
    from a2a_lab.contract.journal import Journal
    from a2a_lab.contract.journal_record import RpcRef, SentEvent, SentKind
    from a2a_lab.harness.proxy.capture import _stream_events

    entry = Journal().open("POST", "/a2a", "", [], b"{}", EntryKind.JSONRPC)
    entry.rpc = RpcRef("SendStreamingMessage", 5)
    entry.events = [
        SentEvent(entry.t + 0.010, SentKind.DATA, '{"jsonrpc":"2.0","id":5,"result":{"task":{"id":"t"}}}'),
        SentEvent(entry.t + 0.200, SentKind.COMMENT, "keep-alive"),
        SentEvent(entry.t + 0.760, SentKind.DATA, '{"jsonrpc":"2.0","id":5,"result":{"statusUpdate":{}}}'),
    ]
    assert _stream_events(entry) == [
        {"text": '{"jsonrpc":"2.0","id":{request_id},"result":{"task":{"id":"t"}}}', "delay_ms": 10},
        {"text": '{"jsonrpc":"2.0","id":{request_id},"result":{"statusUpdate":{}}}', "delay_ms": 750},
    ]


def test_a_har_without_a2a_or_too_large_is_refused(
    conformant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    har, out = tmp_path / "page.har", tmp_path / "x.yaml"
    card = httpx.get(f"{conformant}/.well-known/agent-card.json")
    page = httpx.get(f"{conformant}/nothing-here")
    har.write_text(json.dumps({"log": {"entries": [_har_entry(card), _har_entry(page)]}}))
    assert main(["record", "--from-har", str(har), "--out", str(out)]) == 2
    assert "holds no A2A exchange" in capsys.readouterr().err and not out.exists()
    har.write_text(json.dumps({"log": {"entries": [_har_entry(page)]}}))
    assert main(["record", "--from-har", str(har), "--out", str(out)]) == 2
    assert "no agent card in the capture" in capsys.readouterr().err
    monkeypatch.setattr(userfile, "HAR", userfile.HAR.at_most(64))
    assert main(["record", "--from-har", str(har), "--out", str(out)]) == 2
    assert "reads at most 64" in capsys.readouterr().err and not out.exists()
    assert main(["record", "http://127.0.0.1:1", "--from-har", str(har), "--out", str(out)]) == 2


# ------------------------------------------------------------------------- the server's side, check by check

#: A server wrong on every passive server check the proxy makes, answer by answer.
WRONG = """\
title: wrong server
description: a non-JSON SendMessage answer, another task than asked, a malformed error, a version served anyway
card:
  object:
    name: wrong
    description: a wrong agent
    version: "1.0.0"
    supportedInterfaces:
      - {url: "{base_url}/a2a", protocolBinding: JSONRPC, protocolVersion: "1.0"}
    capabilities: {}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{id: s, name: s, description: s, tags: [t]}]
leniency: {ignore_version: true}
behaviour:
  SendMessage:
    - reply: {raw: {body: "<html>oops</html>", content_type: text/html}}
  GetTask:
    - when: {call: 1}
      reply:
        raw:
          body: >-
            {"jsonrpc":"2.0","id":1,"result":{"id":"other","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}
          echo_id: true
    - reply: {raw: {body: '{"jsonrpc":"2.0","id":1,"error":{"code":"oops"}}', echo_id: true}}
  CancelTask:
    - reply:
        raw:
          body: >-
            {"jsonrpc":"2.0","id":1,"result":{"id":"t-1","contextId":"c","status":{"state":"TASK_STATE_CANCELED"}}}
          echo_id: true
"""
SERVER_CHECKS = ("SEND-MESSAGE", "TASK-FOLLOW-UP", "ERROR-ENVELOPE", "VERSION-NEGOTIATION")


def _calls(upstream: str) -> ScenarioResult:
    """SendMessage, GetTask on its task (or t-1), GetTask on an unknown id, CancelTask without A2A-Version."""
    v1 = {"A2A-Version": "1.0"}
    with session.hosted(upstream) as (state, url, _), httpx.Client() as http:
        assert state.card is not None
        path = "/a2a" if b"wrong" in state.card.raw else "/a2a/jsonrpc"
        sent = http.post(f"{url}{path}", json=_send("hi"), headers=v1)
        endpoint = str(sent.request.url)
        answer = sent.json() if sent.headers.get("content-type", "").startswith("application/json") else {}
        task_id = ((answer.get("result") or {}).get("task") or {}).get("id", "t-1")
        for params in ({"id": task_id}, {"id": "no-such-task"}):
            http.post(endpoint, json={"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": params}, headers=v1)
        http.post(endpoint, json={"jsonrpc": "2.0", "id": 3, "method": "CancelTask", "params": {"id": task_id}})
    return verdict(state, 0.0).results[1]


def test_each_server_check_passes_a_correct_server_and_fails_a_wrong_one(conformant: str, tmp_path: Path) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(WRONG, encoding="utf-8")
    good = _calls(conformant)
    with BackgroundServer(ScenarioApp(load_file(path))) as wrong:
        bad = _calls(wrong.url)
    assert {c: _outcome(good, c) for c in SERVER_CHECKS} == dict.fromkeys(SERVER_CHECKS, Outcome.PASS)
    assert {c: _outcome(bad, c) for c in SERVER_CHECKS} == dict.fromkeys(SERVER_CHECKS, Outcome.FAIL)
    send = bad.check("SEND-MESSAGE")
    assert send is not None and "<html>oops</html>" in send.quote  # the server's bytes, as they came


def test_a_card_too_large_to_rewrite_passes_as_it_came(conformant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proxy_app, "MAX_CARD", 100)  # the real bound is 4 MiB
    card = httpx.get(f"{conformant}/.well-known/agent-card.json")
    with session.hosted(conformant) as (state, url, _):
        served = httpx.get(f"{url}/.well-known/agent-card.json")
    assert served.content == card.content and len(card.content) > 100  # whole, byte for byte, not rewritten
    assert state.journal.records()[-1].response is not None


def test_push_notifications_pass_through_the_proxy_to_the_clients_webhook(conformant: str) -> None:
    with session.hosted(conformant) as (state, url, _):
        code = main(["client", "--webhook", "--push-configs", f"{url}/.well-known/agent-card.json", "push me"])
        task_id = next(e.answer.task_id for e in state.journal.records() if e.answer and e.answer.task_id)
        listed = {"jsonrpc": "2.0", "id": 1, "method": "ListTaskPushNotificationConfigs", "params": {"taskId": task_id}}
        create = {**listed, "method": "CreateTaskPushNotificationConfig"}
        create["params"] = {"taskId": task_id, "url": "http://127.0.0.1:9/hook"}
        v1 = {"A2A-Version": "1.0"}
        httpx.post(f"{url}/a2a/jsonrpc", json=create, headers=v1)
        seen = httpx.post(f"{url}/a2a/jsonrpc", json=listed, headers=v1).text
    entries = state.journal.records()
    pushes = [e for e in entries if e.kind is EntryKind.PUSH]
    assert code == 0 and pushes, [(e.kind.value, e.path) for e in entries]
    client_url = state.hooks.urls[0]
    registered = next(e for e in entries if e.operation is not None and client_url in e.body_text)
    assert "/_push/" not in registered.body_text  # journaled as the client sent it
    # The server holds the proxy's paths; the client is given its own URLs back.
    assert [e for e in entries if e.operation in CONFIG_OPS]
    assert "http://127.0.0.1:9/hook" in seen and PUSH not in seen  # (the client deleted its own config)
    assert all(e.path == client_url and e.response is not None and e.response.status == 200 for e in pushes)


#: A server whose stream is NDJSON (`application/x-ndjson`, one JSON-RPC response a line), its second event 300 ms
#: after the first, then a line that is not JSON.
NDJSON_STREAM = """\
title: ndjson stream
description: streams newline-delimited JSON, paced
card:
  object:
    name: ndjson
    description: streams NDJSON
    version: "1.0.0"
    supportedInterfaces:
      - {url: "{base_url}/a2a", protocolBinding: JSONRPC, protocolVersion: "1.0"}
    capabilities: {streaming: true}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{id: s, name: s, description: s, tags: [t]}]
behaviour:
  SendStreamingMessage:
    - reply:
        raw:
          content_type: application/x-ndjson
          fill: true
          events:
            - text: >-
                {"jsonrpc":"2.0","id":{request_id},"result":
                {"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}
            - text: >-
                {"jsonrpc":"2.0","id":{request_id},"result":
                {"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}
              delay_ms: 300
            - text: "{not json"
"""


def test_an_ndjson_stream_is_journaled_event_by_event_with_its_timing(tmp_path: Path) -> None:
    from a2a_lab.contract.journal_record import SentKind
    from a2a_lab.harness.proxy.capture import _stream_events

    path = tmp_path / "ndjson.yaml"
    path.write_text(NDJSON_STREAM, encoding="utf-8")
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "stream"}]}
    asked = {"jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage", "params": {"message": message}}
    v1 = {"A2A-Version": "1.0"}
    with BackgroundServer(ScenarioApp(load_file(path))) as upstream, session.hosted(upstream.url) as (state, url, _):
        direct = httpx.post(f"{upstream.url}/a2a", json=asked, headers=v1)
        proxied = httpx.post(f"{url}/a2a", json=asked, headers=v1)
        results = {r.id: r for r in verdict(state, 0.0).results}
    assert proxied.content == direct.content and proxied.headers["content-type"] == "application/x-ndjson"
    entry = next(e for e in state.journal.records() if e.operation is not None)
    events = entry.events or []
    assert [e.kind for e in events] == [SentKind.DATA] * 3  # one line, one event
    assert [e.data["result"].keys() for e in events[:2]] == [{"task"}, {"statusUpdate"}]
    assert events[1].t - events[0].t >= 0.25  # each with the time it came (the upstream paced it 300 ms)
    assert events[2].value == "{not json"  # kept as it came, and judged
    stream = results[SERVER_ID].check("STREAMING")
    assert stream is not None and stream.outcome is Outcome.FAIL and "{not json" in stream.quote
    written = _stream_events(entry)  # --out writes it as SSE's events are written: per event, with its delay
    assert [e["delay_ms"] >= 250 for e in written] == [False, True, False] and written[2]["text"] == "{not json"


def test_push_notifications_are_judged_on_the_servers_side(conformant: str) -> None:
    with session.hosted(conformant) as (state, url, _):
        code = main(["client", "--webhook", f"{url}/.well-known/agent-card.json", "push me"])
        results = {r.id: r for r in verdict(state, 0.0).results}
    push = results[SERVER_ID].check("PUSH-DELIVERY")
    assert code == 0 and push is not None and push.outcome is Outcome.PASS, push
    pushes = {e.seq for e in state.journal.records() if e.kind is EntryKind.PUSH}
    assert push.evidence and set(push.evidence) == pushes  # every notification the real server sent, judged


#: A notification about `{task}` (the registered task) in 1.0's push form: one StreamResponse.
_STATUS = {"statusUpdate": {"taskId": "{task}", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}
#: What a server delivers: (credentials it carries, body); `bearer`/`token` stand for the config's own.
Delivery = tuple[list[str], dict[str, Any]]


def _pushes_judged(upstream: str, deliveries: list[Delivery]) -> CheckResult:
    """A client registers a webhook through the proxy (CreateTaskPushNotificationConfig: Bearer credentials and a
    token), then a server delivers each notification to the proxy's path for it, over HTTP: PUSH-DELIVERY's result."""
    from a2a_lab.harness.clients.refclient.webhook import WebhookReceiver

    v1 = {"A2A-Version": "1.0"}
    message = {"messageId": "m-push", "role": "ROLE_USER", "parts": [{"text": "push me"}]}
    send = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    with WebhookReceiver() as receiver, session.hosted(upstream) as (state, url, _):
        task = httpx.post(f"{url}/a2a/jsonrpc", json=send, headers=v1).json()["result"]["task"]["id"]
        create = {"jsonrpc": "2.0", "id": 2, "method": "CreateTaskPushNotificationConfig"}
        create["params"] = {**receiver.config(), "taskId": task}
        assert "result" in httpx.post(f"{url}/a2a/jsonrpc", json=create, headers=v1).json()
        carried = {
            "bearer": ("authorization", f"Bearer {receiver.credentials}"),
            "token": ("x-a2a-notification-token", receiver.token),
        }
        for credentials, body in deliveries:
            headers = dict(carried[c] for c in credentials) | {"content-type": "application/a2a+json"}
            httpx.post(f"{url}{PUSH}0", content=json.dumps(body).replace("{task}", task), headers=headers)
        found = verdict(state, 0.0).results[1].check("PUSH-DELIVERY")
    assert found is not None
    return found


def test_a_correct_notification_passes_push_delivery(conformant: str) -> None:
    result = _pushes_judged(conformant, [(["bearer", "token"], _STATUS)])
    assert result.outcome is Outcome.PASS, result


@pytest.mark.parametrize(
    ("deliveries", "outcome", "said"),
    [
        ([(["token"], _STATUS)], Outcome.FAIL, "Authorization"),  # a2a-python's habit: the token alone
        ([(["bearer", "token"], {"kind": "task", "id": "{task}"})], Outcome.FAIL, "not one StreamResponse"),
        ([(["bearer", "token"], {**_STATUS, "task": {"id": "{task}"}})], Outcome.FAIL, "not one StreamResponse"),
        ([(["bearer", "token"], {"task": {"id": "t-other"}})], Outcome.FAIL, "'t-other', not the one"),
        ([(["bearer"], _STATUS)], Outcome.NON_STRICT, "X-A2A-Notification-Token"),
    ],
)
def test_a_defective_notification_fails_push_delivery(
    conformant: str, deliveries: list[Delivery], outcome: Outcome, said: str
) -> None:
    result = _pushes_judged(conformant, deliveries)
    assert result.outcome is outcome and said in result.message, result
    assert "§" in result.section and result.quote.startswith("notification #")  # the MUST, the server's bytes
    assert json.dumps(deliveries[0][1]).split("{task}")[0] in result.quote  # the bytes as the server sent them
