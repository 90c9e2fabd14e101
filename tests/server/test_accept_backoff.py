"""Issue 13: a client that opened 5 000 connections made the harness's accept loop spin on EMFILE and write 62 MB of
log. Every a2a-lab accept loop now stops accepting for a moment when the process is out of file descriptors, warns
at most every backoff.LOG_EVERY_S, and serves again once the flood is gone.

Each server runs in a process of its own with a low RLIMIT_NOFILE; this process opens 5 000 connections to it
(non-blocking: a connection the server's backlog has no room for waits in the kernel, not here), holds them for a
window, and measures what the server wrote and how much CPU it used meanwhile."""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
import pytest

from a2a_lab.contract import backoff
from tests.limited import limited

FLOOD = 5_000
#: The server's file descriptors: far fewer than the flood.
SERVER_FDS = 128
#: How long the flood is held: four of the longest pauses (asyncio 3.11's own loop retries once a second, and logs a
#: traceback for every pending connection each time).
WINDOW_S = 4 * backoff.MAX_PAUSE_S
#: What the server may write in that window: one warning (about 200 bytes).
LOG_BOUND = 1024
#: CPU the server may use in that window (a spinning accept loop uses all of it).
CPU_BOUND_S = 0.3
#: How soon the server answers once the flood has gone (a pause, and the dead connections left in its backlog).
ANSWER_BOUND_S = 5.0

HARNESS_SERVER = """
import sys
from a2a_lab.server.app import ScenarioApp
from a2a_lab.contract.catalogue import builtin_root
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.contract.loader import load_file

with BackgroundServer(ScenarioApp(load_file(builtin_root() / "spec" / "conformant.yaml"))) as server:
    print(server.url + "/.well-known/agent-card.json", flush=True)
    sys.stdin.read()  # until the test closes stdin
"""

#: `a2a-lab serve` hosts with serve_forever (in the foreground, until interrupted).
SERVE_FOREVER = """
from a2a_lab.server.app import ScenarioApp
from a2a_lab.contract.catalogue import builtin_root
from a2a_lab.server.hosting import serve_forever
from a2a_lab.contract.loader import load_file

app = ScenarioApp(load_file(builtin_root() / "spec" / "conformant.yaml"))
serve_forever(app, "127.0.0.1", 0, "warning", lambda url: print(url + "/.well-known/agent-card.json", flush=True))
"""

WEBHOOK_RECEIVER = """
import sys
from a2a_lab.harness.clients.refclient.webhook import WebhookReceiver

with WebhookReceiver() as receiver:
    print(receiver.url, flush=True)
    sys.stdin.read()
"""


@dataclass
class Served:
    """A server in a process of its own: its URL, and everything it writes to stderr."""

    proc: subprocess.Popen[bytes]
    url: str
    stderr: bytearray = field(default_factory=bytearray)
    _lock: threading.Condition = field(default_factory=threading.Condition)

    def drain(self) -> None:
        assert self.proc.stderr is not None
        while chunk := os.read(self.proc.stderr.fileno(), 65536):
            with self._lock:
                self.stderr += chunk
                self._lock.notify_all()

    def wait_for_log(self, text: bytes, timeout: float = 10.0) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: text in self.stderr, timeout)

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


@contextlib.contextmanager
def _serve(script: str) -> Iterator[Served]:
    """Run a server script (it prints its URL) with SERVER_FDS file descriptors."""
    proc = subprocess.Popen(
        limited([sys.executable, "-c", script], "RLIMIT_NOFILE", SERVER_FDS),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None
    served = Served(proc, proc.stdout.readline().decode().strip())
    drainer = threading.Thread(target=served.drain, daemon=True)
    drainer.start()
    try:
        if not served.url.startswith("http://"):
            proc.stdin.close()
            proc.wait(10)
            drainer.join(10)
            wrote = served.stderr.decode(errors="replace")
            pytest.fail(f"the server did not start: {served.url!r}; it wrote:\n{wrote}")
        yield served
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait(10)
        drainer.join(10)


@pytest.fixture
def flood_fds() -> Iterator[None]:
    """This process may open the flood (and its own files besides)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FLOOD + 500
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the hard limit on open files ({hard}) is below the flood ({FLOOD})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _flood(url: str) -> list[socket.socket]:
    parts = urlsplit(url)
    held = []
    for _ in range(FLOOD):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.connect_ex((parts.hostname, parts.port))
        held.append(sock)
    return held


def _hold_flood(served: Served) -> tuple[int, float]:
    """Open the flood, wait for the server's warning, hold it for WINDOW_S; (bytes logged, CPU seconds) meanwhile."""
    held = _flood(served.url)
    try:
        assert served.wait_for_log(b"Too many open files"), bytes(served.stderr[-2000:])
        logged, cpu = len(served.stderr), served.cpu_seconds()
        time.sleep(WINDOW_S)  # the measurement window, not a synchronisation
        return len(served.stderr) - logged, served.cpu_seconds() - cpu
    finally:
        for sock in held:
            sock.close()


def _answer(method: str, url: str) -> tuple[int | str, float]:
    """The status of a request once the flood has gone (or why there is none), and how long it took."""
    began = time.monotonic()
    try:
        status: int | str = httpx.request(method, url, json={}, timeout=ANSWER_BOUND_S, trust_env=False).status_code
    except httpx.HTTPError as exc:
        status = f"{type(exc).__name__}: {exc}"
    return status, time.monotonic() - began


@pytest.mark.parametrize("script", [HARNESS_SERVER, SERVE_FOREVER], ids=["harness", "serve"])
def test_a_flood_of_connections_beyond_the_fd_limit_costs_one_warning(flood_fds: None, script: str) -> None:
    with _serve(script) as served:
        logged, cpu = _hold_flood(served)
        status, answered_in = _answer("GET", served.url)
        warnings = served.stderr.count(b"cannot accept connections")
    print(f"{logged} bytes logged and {cpu:.2f} s CPU in {WINDOW_S} s of flood; answered in {answered_in:.2f} s")
    assert warnings == 1 and logged < LOG_BOUND, f"{logged} bytes logged during the flood"
    assert cpu < CPU_BOUND_S, f"{cpu:.2f} s of CPU in {WINDOW_S} s"
    assert status == 200 and answered_in < ANSWER_BOUND_S


def test_the_webhook_receiver_backs_off_too(flood_fds: None) -> None:
    """The reference client's webhook receiver (socketserver): it used to retry accept() at once, for ever."""
    with _serve(WEBHOOK_RECEIVER) as served:
        logged, cpu = _hold_flood(served)
        status, answered_in = _answer("POST", served.url)
    print(
        f"webhook: {logged} bytes logged and {cpu:.2f} s CPU in {WINDOW_S} s of flood; answered in {answered_in:.2f} s"
    )
    assert logged < LOG_BOUND and cpu < CPU_BOUND_S, (logged, cpu)
    assert status == 401 and answered_in < ANSWER_BOUND_S, "it answers (and refuses a notification without credentials)"
