"""The ACTS runner's webhook receiver (runner requirement `webhook_endpoint`, ACTS §3.2): a threaded HTTP server that
takes every push delivery, keeps it (bounded), and answers 200; the runner judges what it kept.

Each test gets its own URL (`{{webhookUrl}}`, `.../acts/<n>`), so the deliveries of one test are told apart from
another's. The receiver listens on loopback, or where the server under test reaches this machine (`--webhook-host`,
a name or address of this machine, as `a2a-lab run` takes it).
"""

from __future__ import annotations

import hmac
import itertools
import json
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from a2a_lab.harness.clients.refclient.webhook import LOOPBACK, listen_address

#: A delivery's body at most (a larger one is answered 413 and kept as such); deliveries kept at most, per run.
BODY_LIMIT = 1024 * 1024
KEPT = 1000
PATH = "/acts/"


@dataclass(frozen=True)
class Delivery:
    """One request the receiver took: its path, headers (names lower-cased) and JSON body (None: not JSON)."""

    path: str
    headers: dict[str, str]
    body: Any
    problem: str = ""


@dataclass(frozen=True)
class Miss:
    message: str
    expected: str
    actual: str


#: A push body (A2A 1.0 §4.3.3) is a StreamResponse: exactly one of these members.
STREAM_RESPONSE = ("task", "message", "statusUpdate", "artifactUpdate")


def judge_deliveries(got: Sequence[Delivery], configs: Sequence[Mapping[str, Any]], waited: float) -> Miss | None:
    """The deliveries to one test's webhook, judged as the draft's runner-special push tests describe them: at least
    one came; each carries the credentials a config named (`authentication`: `Authorization: <scheme>
    <credentials>`; one without them is what a webhook must refuse); each is a JSON StreamResponse."""
    if not got:
        return Miss(f"no push delivery reached the runner's webhook within {waited:.3g} s", "a delivery", "none")
    auth = next((c.get("authentication") for c in configs if isinstance(c.get("authentication"), dict)), None)
    for i, delivery in enumerate(got):
        if auth is not None:
            scheme, credentials = str(auth.get("scheme", "")), str(auth.get("credentials", ""))
            have_scheme, _, have = delivery.headers.get("authorization", "").partition(" ")
            if have_scheme.lower() != scheme.lower() or not hmac.compare_digest(have.encode(), credentials.encode()):
                return Miss(
                    f"push delivery {i} does not carry the config's credentials: a webhook must refuse it",
                    f"Authorization: {scheme} <the config's credentials>",
                    "no Authorization" if not have_scheme else f"Authorization: {have_scheme} <other credentials>",
                )
        members = [m for m in STREAM_RESPONSE if isinstance(delivery.body, dict) and m in delivery.body]
        if len(members) != 1:
            shown = delivery.problem or json.dumps(delivery.body)[:160]
            return Miss(f"push delivery {i} is not a StreamResponse ({shown})", " | ".join(STREAM_RESPONSE), shown)
    return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    receiver: Receiver


class _Server6(_Server):
    address_family = socket.AF_INET6


class Receiver:
    """Started with `acts run --server`; `url_for()` gives each test its own URL."""

    def __init__(self, host: str | None = None) -> None:
        bind = listen_address(host) if host else LOOPBACK
        self.advertise = host
        self._server = (_Server6 if ":" in bind else _Server)((bind, 0), _Handler)
        self._server.receiver = self
        self._cond = threading.Condition()
        self._kept: list[Delivery] = []
        self.dropped = 0
        self._numbers = itertools.count(1)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="acts-webhook", daemon=True
        )
        self._thread.start()

    @property
    def base(self) -> str:
        bound, port = self._server.server_address[:2]
        host = self.advertise or (bound if isinstance(bound, str) else bound.decode())
        return f"http://{f'[{host}]' if ':' in host and not host.startswith('[') else host}:{port}"

    def url_for(self) -> str:
        """A fresh URL: what is delivered to it is one test's."""
        return f"{self.base}{PATH}{next(self._numbers)}"

    def keep(self, delivery: Delivery) -> None:
        with self._cond:
            if len(self._kept) >= KEPT:
                self.dropped += 1
                return
            self._kept.append(delivery)
            self._cond.notify_all()

    def deliveries(self, url: str, wait: float = 0.0) -> list[Delivery]:
        """What was delivered to `url`, waiting up to `wait` seconds for the first."""
        path = url[len(self.base) :]
        ends = time.monotonic() + wait
        with self._cond:
            while True:
                found = [d for d in self._kept if d.path == path]
                left = ends - time.monotonic()
                if found or left <= 0:
                    return found
                self._cond.wait(left)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = 10

    def do_POST(self) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError:
            length = -1
        if not 0 <= length <= BODY_LIMIT:
            self.server.receiver.keep(Delivery(self.path, headers, None, f"a body of {length} bytes"))
            self._answer(413)
            return
        raw = self.rfile.read(length)
        try:
            body: Any = json.loads(raw.decode("utf-8"))
            problem = ""
        except (UnicodeDecodeError, ValueError, RecursionError):
            body, problem = None, "the body is not JSON"
        self.server.receiver.keep(Delivery(self.path, headers, body, problem))
        self._answer(200)

    def _answer(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass
