"""`a2a-lab proxy` attacked as an adversary would (issue 45), each attack by a server or client of the tests' own on
loopback, small enough to be safe on code that does not hold (a body a little over its cap, a loop that a bound of
the attacker's own ends): the proxy never forwards to itself (a webhook at its own `/_push/<n>`, a card interface
naming its own origin, a request that comes back, an upstream that is the proxy), reads the start-up card as it reads
any other (bounded, never unpacked), serves at most so many origins and gRPC ports a card names, writes its verdict
when its stop overruns, journals an endless event bounded, answers at most so many requests and bytes at once,
forwards a path as it came, never dials a gRPC url that is a Unix socket, rewrites a webhook URL however JSON spells
it, and gives up on an upstream that sends informational heads and no answer."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lab.contract.journal_record import EntryKind
from a2a_lab.harness.cli import main
from a2a_lab.harness.common.model import Outcome
from a2a_lab.harness.proxy import capture, limits, session
from a2a_lab.harness.proxy.app import PROXY_HEADER
from a2a_lab.harness.proxy.push import PUSH
from a2a_lab.harness.proxy.sse import OVERSIZED, EventReader, LineReader
from a2a_lab.harness.proxy.verdict import SERVER_ID, verdict
from a2a_lab.protocol import grpcwire
from tests.limited import limited

CLI = [sys.executable, "-m", "a2a_lab.harness.cli"]
V1 = {"A2A-Version": "1.0"}
#: How long any wait of a test lasts at most (a proxy that does not hold fails the test, never hangs it).
WAIT_S = 30.0

# ------------------------------------------------------------------------------------- a hostile upstream


@dataclass
class Request:
    """One request the hostile upstream read."""

    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        found = [v for k, v in self.headers if k.lower() == name]
        return ", ".join(found) if found else None


Answer = Callable[[Request, socket.socket], None]


@dataclass
class Hostile:
    """An upstream of the tests' own: a TCP server on loopback (port 0), one thread per connection, which reads one
    request and lets `answer` write whatever it likes (HTTP or not), then closes. Every request read is in `seen`."""

    answer: Answer
    seen: list[Request] = field(default_factory=list)
    closing: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def __enter__(self) -> Hostile:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.sock.close()

    def _accept(self) -> None:
        while not self.closing.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(WAIT_S)
            try:
                request = _read_request(conn)
                if request is not None:
                    self.seen.append(request)
                    self.answer(request, conn)
            except OSError:
                pass


def _read_request(conn: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk or len(data) > 65536:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    line, *lines = head.decode("latin-1").split("\r\n")
    method, target, _ = line.split(" ", 2)
    headers = [(k.strip(), v.strip()) for k, _, v in (h.partition(":") for h in lines)]
    length = int(next((v for k, v in headers if k.lower() == "content-length"), "0"))
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return Request(method, target, headers, body)


def reply(conn: socket.socket, status: int, body: bytes, ctype: str = "application/json", *extra: str) -> None:
    head = [f"HTTP/1.1 {status} X", f"content-type: {ctype}", f"content-length: {len(body)}", "connection: close"]
    conn.sendall(("\r\n".join([*head, *extra]) + "\r\n\r\n").encode("latin-1") + body)


def card(base: str, *interfaces: dict[str, Any]) -> bytes:
    """An agent card whose JSON-RPC interface is at `base`/a2a, with `interfaces` more."""
    listed = [{"url": f"{base}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}, *interfaces]
    return json.dumps(
        {
            "name": "hostile",
            "description": "an upstream of the tests' own",
            "version": "1.0.0",
            "supportedInterfaces": listed,
            "capabilities": {"streaming": True, "pushNotifications": True},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
        }
    ).encode()


def agent(extra: Callable[[], list[dict[str, Any]]] = list) -> Hostile:
    """An upstream that serves its card (with `extra()` interfaces, asked anew at each fetch) and answers every
    JSON-RPC call with its params as the result."""
    upstream: Hostile

    def answer(request: Request, conn: socket.socket) -> None:
        if request.target.startswith("/.well-known/"):
            reply(conn, 200, card(upstream.url, *extra()))
        elif request.target == "/a2a":
            asked = json.loads(request.body)
            reply(conn, 200, json.dumps({"jsonrpc": "2.0", "id": asked.get("id"), "result": asked["params"]}).encode())
        else:
            reply(conn, 404, b"no such path", "text/plain")

    upstream = Hostile(answer)
    return upstream


def _create(url: str, rid: int = 1) -> dict[str, Any]:
    params = {"taskId": "t-1", "url": url}
    return {"jsonrpc": "2.0", "id": rid, "method": "CreateTaskPushNotificationConfig", "params": params}


# ------------------------------------------------------------------------------------- the proxy in a process


@dataclass
class Running:
    proc: subprocess.Popen[str]
    url: str
    lines: list[str]
    report: Path


@contextmanager
def proxy_process(upstream: str, tmp_path: Path, *args: str) -> Iterator[Running]:
    """`a2a-lab proxy` in a process of its own (its files bounded), until the block ends; then SIGTERM."""
    report = tmp_path / "proxy.json"
    argv = [*CLI, "proxy", "--upstream", upstream, "--json", str(report), "--timeout", "5", *args]
    env = {**os.environ, "NO_COLOR": "1"}
    # The proxy process may open 256 files: a proxy that forwarded to itself runs out at once, not the machine.
    proc = subprocess.Popen(limited(argv, "RLIMIT_NOFILE", 256, 256), stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    lines: list[str] = []
    started = threading.Event()

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "client card URL" in line:
                started.set()
        started.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        assert started.wait(WAIT_S), lines
        found = next((m for m in (re.search(r"proxy (\S+) -> ", line) for line in lines) if m), None)
        assert found is not None, lines
        yield Running(proc, found.group(1), lines, report)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(WAIT_S)


def _stopped(running: Running) -> dict[str, Any]:
    """SIGTERM, then the report the proxy wrote: it must stop within the test's wait, its verdict written."""
    running.proc.send_signal(signal.SIGTERM)
    code = running.proc.wait(WAIT_S)
    assert code in (0, 1), (code, running.lines)
    data: dict[str, Any] = json.loads(running.report.read_text(encoding="utf-8"))
    return data


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# ------------------------------------------------------------------------------------- 1: never to itself


def test_a_webhook_at_the_proxys_own_push_path_is_refused_not_forwarded_to_itself(tmp_path: Path) -> None:
    with agent() as upstream, proxy_process(upstream.url, tmp_path) as running:
        registered = httpx.post(f"{running.url}/a2a", json=_create(f"{running.url}{PUSH}0"), headers=V1)
        assert registered.status_code == 200 and PUSH in upstream.seen[-1].body.decode()
        notified = httpx.post(f"{running.url}{PUSH}0", content=b"x" * 1024, timeout=WAIT_S)
        assert notified.status_code == 508 and notified.headers[PROXY_HEADER] == "own-answer", notified.text
        assert "the proxy's own address" in notified.text and "not forwarded" in notified.text
        said = "".join(running.lines)
        report = _stopped(running)
    assert f"{limits.MAX_ORIGINS} other origins" in said and f"{limits.MAX_GRPC_PORTS} gRPC ports" in said
    journal = report["scenarios"][0]["journal"]
    assert [e["kind"] for e in journal].count("push") == 1  # one notification, journaled once: no second hop


def test_a_card_interface_at_the_proxys_own_origin_is_not_served_under_via() -> None:
    proxy_origin: list[str] = []
    upstream = agent(lambda: [{"url": f"{o}/x", "protocolBinding": "HTTP+JSON"} for o in proxy_origin])
    with upstream, session.hosted(upstream.url) as (state, url, _):
        proxy_origin.append(url)  # the upstream's card names the proxy's origin from now on
        served = httpx.get(f"{url}/.well-known/agent-card.json").text
        nested = httpx.get(f"{url}{'/_via/0' * 200}/x", timeout=WAIT_S)
    assert "/_via/" not in served and f"{url}/x" in served  # left as it is: the client calls the proxy there itself
    assert any("the proxy's own address" in line for line in state.routes.not_proxied)
    assert nested.status_code == 404 and nested.text == "no such path"  # the upstream's answer, after one hop
    assert [r.target.startswith("/_via/") for r in upstream.seen].count(True) == 1


def test_a_request_that_comes_back_through_another_hop_is_refused_by_its_via() -> None:
    proxy: list[str] = []
    reflections = [0]

    def reflect(request: Request, conn: socket.socket) -> None:
        """Sends what it got back to the proxy (keeping its Via, as a proxy does), 20 times at most."""
        if not proxy or reflections[0] >= 20:
            reply(conn, 404 if not proxy else 200, b"gave up", "text/plain")
            return
        reflections[0] += 1
        back = http.client.HTTPConnection(proxy[0].removeprefix("http://"), timeout=WAIT_S)
        kept = {k: v for k, v in request.headers if k.lower() not in ("host", "content-length", "connection", "via")}
        kept["via"] = request.header("via") or ""
        back.request(request.method, request.target, request.body, kept)
        got = back.getresponse()
        reply(conn, got.status, got.read(), got.getheader("content-type") or "text/plain")

    with Hostile(reflect) as reflector, session.hosted(reflector.url) as (_, url, _):
        proxy.append(url)
        looped = httpx.get(f"{url}/loop", timeout=WAIT_S)
        chained = httpx.get(f"{url}/chained", headers={"via": ", ".join(["1.1 elsewhere"] * limits.MAX_HOPS)})
    assert looped.status_code == 508 and "passed through this proxy before" in looped.text, looped.text
    assert reflections[0] == 1  # it came back once, and was not forwarded again
    assert chained.status_code == 508 and f"the most the proxy forwards is {limits.MAX_HOPS}" in chained.text


def test_an_upstream_that_is_the_proxy_itself_is_refused_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()
    argv = ["proxy", "--upstream", f"http://localhost:{port}", "--port", str(port), "--timeout", "2"]
    assert main([*argv, "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "is the proxy's own address" in err and "--port" in err


# ------------------------------------------------------------------------------------- 2: the start-up card


def test_an_endless_start_up_card_is_read_to_its_bound_and_said() -> None:
    def endless(request: Request, conn: socket.socket) -> None:
        """A card that never ends: a little over the bound, then silence (not a byte more, not closed)."""
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
        piece = b"[" * 65536
        for _ in range(limits.MAX_CARD // len(piece) + 4):
            conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
        upstream.closing.wait(WAIT_S)

    upstream = Hostile(endless)
    with upstream, session.hosted(upstream.url, timeout=3.0) as (state, _, said):
        pass
    assert f"larger than {limits.size(limits.MAX_CARD)}" in said, said
    assert state.card is None and len(upstream.seen) == 1  # read no further, and asked once


def test_a_compressed_start_up_card_is_not_unpacked() -> None:
    def bomb(request: Request, conn: socket.socket) -> None:
        """A valid card padded past the bound, gzipped: 6 KB on the wire, 5 MiB unpacked."""
        padded = card(upstream.url) + b" " * (limits.MAX_CARD + 1024 * 1024)
        reply(conn, 200, gzip.compress(padded), "application/json", "content-encoding: gzip")

    upstream = Hostile(bomb)
    with upstream, session.hosted(upstream.url, timeout=3.0) as (state, _, said):
        pass
    assert "Content-Encoding: gzip" in said and "not unpacked" in said, said
    assert upstream.seen[0].header("accept-encoding") == "identity"
    assert state.card is None and state.last_fetch is not None and len(state.last_fetch.raw) <= 4096


def test_a_card_nested_past_what_python_reads_is_no_card_not_a_crash() -> None:
    upstream = Hostile(lambda request, conn: reply(conn, 200, b"[" * 100_000))
    with upstream, session.hosted(upstream.url) as (state, url, said):
        served = httpx.get(f"{url}/.well-known/agent-card.json")
    assert "serves no A2A card" in said and state.card is None
    assert served.status_code == 200 and served.content == b"[" * 100_000  # passed as it came, and judged


# ------------------------------------------------------------------------------------- 4: origins, ports, stop


def test_a_card_naming_many_origins_and_grpc_addresses_opens_a_bounded_number() -> None:
    fetch = [0]

    def many() -> list[dict[str, Any]]:
        """200 other origins and 40 gRPC addresses, new ones on every fetch; then more interfaces than are read."""
        fetch[0] += 1
        origins = [{"url": f"http://h{fetch[0]}-{i}.example/a2a", "protocolBinding": "HTTP+JSON"} for i in range(200)]
        ports = [{"url": f"127.0.0.1:{20000 + 100 * fetch[0] + i}", "protocolBinding": "GRPC"} for i in range(40)]
        past = [{"url": f"http://p{fetch[0]}-{i}.example/a2a", "protocolBinding": "HTTP+JSON"} for i in range(30)]
        return origins + ports + past

    with agent(many) as upstream, session.hosted(upstream.url) as (state, url, _):
        for _ in range(3):
            served = httpx.get(f"{url}/.well-known/agent-card.json").text
        listeners = len(state.grpc.listeners) if state.grpc is not None else None
        results = verdict(state, 0.0)
    assert len(state.routes.others) == limits.MAX_ORIGINS
    assert served.count("/_via/") == 0  # the third card's origins are all past the bound: left as they are
    assert len(state.routes.grpc) == limits.MAX_GRPC_PORTS
    assert listeners in (None, limits.MAX_GRPC_PORTS)
    assert len(state.routes.not_proxied) == limits.MAX_NOT_PROXIED and state.routes.unlisted > 0
    said = "\n".join(state.routes.not_proxied)
    assert f"at most {limits.MAX_ORIGINS} origins" in said and f"past the first {limits.MAX_INTERFACES}" in said
    assert results.meta["limits"]["other_origins"] == limits.MAX_ORIGINS and results.meta["not_proxied_more"] > 0


@pytest.mark.skipif(grpcwire.missing() is not None, reason="the proxy's gRPC ports need the grpc extra")
def test_a_stop_past_its_deadline_still_writes_the_verdict_and_the_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from a2a_lab.harness.proxy import grpc_pass

    stop = grpc_pass.Gate.stop

    async def busy(self: Any) -> None:  # the serving loop kept busy just as the proxy stops, past the old 10 s
        threading.Event().wait(10.5)
        await stop(self)

    monkeypatch.setattr(grpc_pass.Gate, "stop", busy)
    monkeypatch.setattr(limits, "GRPC_STOP_S", 0.5)
    report = tmp_path / "proxy.json"
    with agent(lambda: [{"url": "127.0.0.1:1", "protocolBinding": "GRPC"}]) as upstream:
        code = main(["proxy", "--upstream", upstream.url, "--duration", "0.2", "--json", str(report), "-q"])
    assert code in (0, 1)  # the verdict's, not an internal error's (3)
    data = json.loads(report.read_text(encoding="utf-8"))
    assert any("did not close within 0.5 s" in note for note in data["proxy"]["notes"])
    assert [s["id"] for s in data["scenarios"]] == ["proxy/client", SERVER_ID]


# ------------------------------------------------------------------------------------- 5: floods


def _streaming(upstream: Hostile) -> Answer:
    def answer(request: Request, conn: socket.socket) -> None:
        if request.target.startswith("/.well-known/"):
            reply(conn, 200, card(upstream.url))
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
        big = b"data: " + b"x" * (limits.MAX_EVENT + 64 * 1024) + b"\n\n"
        for at in range(0, len(big), 65536):
            conn.sendall(big[at : at + 65536])
        done = {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}
        conn.sendall(b"data: " + json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": done}}).encode())
        conn.sendall(b"\n\n")

    return answer


def test_an_event_past_its_bound_passes_whole_and_is_journaled_as_its_size() -> None:
    upstream = Hostile(lambda r, c: answer(r, c))
    answer = _streaming(upstream)
    message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "stream"}]}
    asked = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message}}
    with upstream, session.hosted(upstream.url) as (state, url, _):
        got = httpx.post(f"{url}/a2a", json=asked, headers=V1, timeout=WAIT_S)
        stream = verdict(state, 0.0).results[1].check("STREAMING")
    assert len(got.content) > limits.MAX_EVENT  # the client got every byte, as it came
    entry = next(e for e in state.journal.records() if e.events is not None)
    first, second = entry.events or []
    assert str(first.value).startswith(OVERSIZED) and len(str(first.value)) < 1024
    assert f"{limits.MAX_EVENT + 64 * 1024 + 6} bytes" in str(first.value)
    assert second.data["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert stream is not None and stream.outcome is Outcome.FAIL and "the proxy reads of one" in stream.message
    assert "larger than the proxy reads of one" in capture.document(state)[0]["description"]  # --out says so


@pytest.mark.parametrize("kind", [EventReader, LineReader])
def test_a_stream_reader_holds_one_event_at_most(kind: type[EventReader]) -> None:
    seen: list[Any] = []
    reader = kind(seen.append, lambda: 0.0)
    held = 0
    for _ in range(limits.MAX_EVENT // 4096 + 64):  # one event that does not end, 4 KiB at a time
        reader.feed(b"x" * 4096)
        held = max(held, len(reader._buffer))
    reader.feed(b'\n\ndata: {"n":1}\n\n' if kind is EventReader else b'\n{"n":1}\n')
    reader.close()
    assert held <= limits.MAX_EVENT
    assert str(seen[0].value).startswith(OVERSIZED) and seen[-1].value is None


def _held_upstream(release: threading.Event) -> Hostile:
    """An upstream that answers no request until `release` is set (a card at once: 404)."""

    def answer(request: Request, conn: socket.socket) -> None:
        if request.target.startswith("/.well-known/"):
            reply(conn, 404, b"none", "text/plain")
            return
        release.wait(WAIT_S)
        reply(conn, 200, b"{}")

    return Hostile(answer)


def _held(upstream: Hostile) -> int:
    """The requests the upstream holds (not the start-up's card fetches)."""
    return sum(not r.target.startswith("/.well-known/") for r in upstream.seen)


def _until(predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_requests_past_those_answered_at_once_get_503(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_EXCHANGES", 3)
    release = threading.Event()
    with _held_upstream(release) as upstream, session.hosted(upstream.url) as (_, url, _), ThreadPoolExecutor(3) as ex:
        held = [ex.submit(httpx.get, f"{url}/slow/{i}", timeout=WAIT_S) for i in range(3)]
        _until(lambda: _held(upstream) == 3)
        refused = httpx.get(f"{url}/one-more", timeout=WAIT_S)
        release.set()
        answered = [f.result().status_code for f in held]
    assert refused.status_code == 503 and "3 requests, the most it answers at once" in refused.text
    assert answered == [200, 200, 200]


def test_bodies_past_the_bytes_held_in_flight_get_503(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_IN_FLIGHT", 2 * limits.MIB + limits.MIB // 2)
    release = threading.Event()
    body = b"x" * limits.MIB
    with (
        _held_upstream(release) as upstream,
        session.hosted(upstream.url) as (state, url, _),
        ThreadPoolExecutor(2) as ex,
    ):
        held = [ex.submit(httpx.post, f"{url}/slow/{i}", content=body, timeout=WAIT_S) for i in range(2)]
        _until(lambda: _held(upstream) == 2)
        refused = httpx.post(f"{url}/one-more", content=body, timeout=WAIT_S)
        release.set()
        answered = [f.result().status_code for f in held]
        assert refused.status_code == 503 and "2621440 bytes for the requests it is answering" in refused.text
        _until(lambda: state.budget.used == 0)  # given back as each exchange ends
    assert answered == [200, 200]


# ------------------------------------------------------------------------------------- 10: the path as it came


def test_the_path_is_forwarded_as_it_came_still_percent_encoded() -> None:
    with agent() as other:
        extra = [{"url": f"{other.url}/o", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]
        with agent(lambda: extra) as upstream, session.hosted(upstream.url) as (_, url, _):
            paths = ["/a2a/tasks/a%2Fb?x=%2F", "/a2a/tasks/a%3Fb", "/a2a/tasks/a%20b"]
            statuses = [httpx.get(f"{url}{p}").status_code for p in paths]
            httpx.get(f"{url}/_via/0/o/t%2Fu")
    assert statuses == [404, 404, 404]  # the upstream's own answer each time: none a 502 of the proxy's
    assert [r.target for r in upstream.seen[-3:]] == paths
    assert other.seen[-1].target == "/o/t%2Fu"


# ------------------------------------------------------------------------------------- 14: gRPC urls


def _call_each_port(state: Any) -> None:
    """A gRPC call through each port the proxy opened for a card's gRPC address (it fails: no A2A server behind)."""
    import grpc

    for route in state.routes.grpc.values():
        if route.proxy is None:
            continue
        with grpc.insecure_channel(route.proxy) as channel, pytest.raises(grpc.RpcError):
            rpc: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary("/a2a.v1.A2AService/GetTask")
            rpc(b"", timeout=3)


@pytest.mark.skipif(grpcwire.missing() is not None, reason="the proxy's gRPC ports need the grpc extra")
def test_a_grpc_url_naming_a_unix_socket_is_never_dialed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    urls = ["unix:5555", "unix-abstract:5555"]
    upstream = agent(lambda: [{"url": u, "protocolBinding": "GRPC"} for u in urls])
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
        unix.bind(str(tmp_path / "5555"))
        unix.listen(4)
        unix.settimeout(0.2)
        with upstream, session.hosted(upstream.url) as (state, url, _):
            served = httpx.get(f"{url}/.well-known/agent-card.json").json()
            _call_each_port(state)
            try:
                unix.accept()[0].close()
                accepted = True
            except TimeoutError:
                accepted = False
    assert not accepted  # nothing came to the Unix socket the card named
    assert state.routes.grpc == {} and grpcwire.split_address("unix:5555") is None
    assert all(any(f"at {u!r}: not proxied" in line for line in state.routes.not_proxied) for u in urls)
    assert [i["url"] for i in served["supportedInterfaces"][1:]] == urls  # left as they are, and named


# ------------------------------------------------------------------------------------- 15: webhook URLs


@pytest.mark.parametrize(
    "spelled", [r"http:\/\/127.0.0.1:9\/hook", r"\u0068ttp://127.0.0.1:9/hook", r"http\u003a//127.0.0.1:9/hook"]
)
def test_a_webhook_url_written_with_json_escapes_is_handed_over_as_the_proxys_path(spelled: str) -> None:
    with agent() as upstream, session.hosted(upstream.url) as (state, url, _):
        body = json.dumps(_create("PLACE")).replace("PLACE", spelled)
        answer = httpx.post(f"{url}/a2a", content=body, headers={**V1, "content-type": "application/json"})
    handed = json.loads(upstream.seen[-1].body)
    assert handed["params"]["url"] == f"{url}{PUSH}0", upstream.seen[-1].body  # not the client's own URL
    assert state.hooks.urls == ["http://127.0.0.1:9/hook"]
    assert answer.json()["result"]["url"] == "http://127.0.0.1:9/hook"  # the answer gives the client its own back
    registered = next(e for e in state.journal.records() if e.kind is not EntryKind.CARD)
    assert spelled in registered.body_text  # the journal keeps what the client sent


def test_a_push_config_answer_spelling_the_proxys_path_with_escapes_gives_the_client_its_url() -> None:
    def answer(request: Request, conn: socket.socket) -> None:
        if request.target.startswith("/.well-known/"):
            reply(conn, 200, card(upstream.url))
            return
        path = json.dumps(json.loads(request.body)["params"]["url"]).replace("/", "\\/")
        reply(conn, 200, b'{"jsonrpc":"2.0","id":1,"result":{"taskId":"t-1","url":%s}}' % path.encode())

    upstream = Hostile(answer)
    with upstream, session.hosted(upstream.url) as (_, url, _):
        got = httpx.post(f"{url}/a2a", json=_create("http://127.0.0.1:9/hook"), headers=V1)
    assert got.json()["result"]["url"] == "http://127.0.0.1:9/hook", got.text


# ------------------------------------------------------------------------------------- 16: informational heads


@pytest.mark.parametrize(
    ("pause", "said"),
    [(0.2, "did not start its answer within 1.5 s"), (0.0, f"more than {limits.MAX_INFORMATIONAL} informational")],
)
def test_informational_heads_without_an_answer_end_in_a_502(pause: float, said: str) -> None:
    def heads(request: Request, conn: socket.socket) -> None:
        """100 Continue, again and again (every `pause` s, 60 of them; or 1,000 at once), and never an answer."""
        if request.target.startswith("/.well-known/"):
            reply(conn, 404, b"none", "text/plain")
            return
        for _ in range(60 if pause else 1000):
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            if upstream.closing.wait(pause):
                return
        upstream.closing.wait(WAIT_S)

    upstream = Hostile(heads)
    with upstream, session.hosted(upstream.url, timeout=1.5) as (_, url, _):
        began = time.monotonic()
        got = httpx.get(f"{url}/a2a/tasks/t", timeout=WAIT_S)
        took = time.monotonic() - began
    assert got.status_code == 502 and said in got.text, got.text
    assert took < 8.0  # the deadline, not the 12 s the heads would last


# ------------------------------------------------------------------------------------- the docs say the bounds


def test_the_docs_say_the_proxys_bounds_as_they_are() -> None:
    docs = Path(__file__).parents[2] / "docs"
    caps = (docs / "explanation" / "reliability-and-security.md").read_text(encoding="utf-8")
    rows = "\n".join(line for line in caps.splitlines() if line.startswith("| proxy:"))
    how_to = (docs / "how-to" / "proxy.md").read_text(encoding="utf-8")
    said = [
        f"{limits.size(limits.MAX_BODY)}, {limits.size(limits.MAX_CARD)}, {limits.size(limits.MAX_EVENT)}",
        f"| {limits.size(limits.MAX_IN_FLIGHT)} | | {limits.MAX_EXCHANGES:,} requests |".replace(",", " "),
        f"{limits.MAX_INTERFACES} interfaces a list, {limits.MAX_ORIGINS} other origins",
        f"{limits.MAX_GRPC_PORTS} gRPC ports ({limits.MAX_GRPC_URLS} urls)",
        f"{limits.MAX_HOPS} hops (`Via`) | {limits.MAX_INFORMATIONAL} informational",
    ]
    assert [s for s in said if s not in rows] == [], rows
    assert f"at most {limits.SHUTDOWN_S:g} s for its ports" in caps and f"at most {limits.SHUTDOWN_S:g} s" in how_to
    assert f"the first {limits.MAX_NOT_PROXIED} lines" in how_to
