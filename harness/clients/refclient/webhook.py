"""The client's own push-notification receiver (A2A 1.0 §4.3.3, §13.2): a loopback HTTP server on a free port.

Its config names how the agent authenticates (AUTH_SCHEMES): `Authorization: Bearer <credential>` (the
default), `Authorization: Basic <base64 of user:password>`, or only a token (`X-A2A-Notification-Token`, 0.3's
API key header). It answers 200 only to a POST that carries exactly those credentials (constant-time compare; a
notification token, when sent, must match too) and whose JSON body names a task the client expects (any task
before it knows one; §4.3.3: validate the task id); 401 for wrong or missing credentials, 400 for a body it
cannot use. Accepted notifications are kept in order; the client waits on them.

Delivery as deployed (§4.3.3): the same notification delivered again (the agent retried) is acknowledged and
kept once (`duplicates` counts the repeats); one that would move the task back (a state after a terminal one,
or a status older than the latest) is acknowledged and marked `stale`, so nothing folds it in.

    with WebhookReceiver() as receiver:
        config = receiver.config()
        ...
        receiver.wait(task_id, since, lambda n: n.state is TaskState.COMPLETED, timeout=5)
"""

from __future__ import annotations

import base64
import hmac
import json
import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from a2a_lab.contract import backoff
from a2a_lab.harness.clients.refclient.options import AUTH_SCHEMES, BASIC, TOKEN
from a2a_lab.protocol import requests, shapes
from a2a_lab.protocol.forms import push_form
from a2a_lab.protocol.requests import AUTHORIZATION, BEARER, NOTIFICATION_TOKEN_HEADER
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

log = logging.getLogger("a2a_lab.refclient")

LOOPBACK = "127.0.0.1"
PATH = "/a2a-lab/webhook"
BODY_LIMIT = 1024 * 1024
#: A handler waits this long for the agent to close the connection after the answer (so the agent has read it).
_CLOSE_WAIT_S = 2.0
_SOCKET_TIMEOUT_S = 5.0
#: Push bodies: 1.0 sends a StreamResponse in the HTTP+JSON form, 0.3 the Task in its JSON-RPC form (`kind`).
_FORMS = (push_form(Version.V1_0), push_form(Version.V0_3))
#: The user name of the Basic credentials.
BASIC_USER = "a2a-lab"


@dataclass(frozen=True)
class Notification:
    """One accepted notification: its place in arrival order, the task it names, the state it reports (if any)."""

    index: int
    task_id: str
    state: TaskState | None
    body: Any
    #: It would move the task back (after a terminal state, or older than the latest status): nothing folds it in.
    stale: bool = False


@dataclass(frozen=True)
class NotificationVerdict:
    """How the client's webhook answered one delivery: the HTTP status, why, and what an accepted one named."""

    status: int
    reason: str
    task_id: str | None = None
    state: TaskState | None = None
    body: Any = None


def read_event(body: Any) -> tuple[str | None, TaskState | None]:
    """The task id and state a push body names, in either version's form."""
    for form in _FORMS:
        task_id = shapes.event_task_id(body, form)
        if task_id is not None:
            return task_id, shapes.event_state(body, form)
    return None, None


def status_timestamp(body: Any) -> str | None:
    """The `status.timestamp` a push body carries (a 1.0 statusUpdate or task, a 0.3 Task), or None. ISO 8601 in
    UTC with `Z` (§5.6.1): strings of one precision order as the times do."""
    if not isinstance(body, dict):
        return None
    inner = body.get("statusUpdate") or body.get("task") or body
    status = inner.get("status") if isinstance(inner, dict) else None
    stamp = status.get("timestamp") if isinstance(status, dict) else None
    return stamp if isinstance(stamp, str) else None


class WebhookReceiver:
    """A threaded stdlib HTTP server on 127.0.0.1, port 0, with a fresh random credential and token."""

    def __init__(
        self, host: str = LOOPBACK, body_limit: int = BODY_LIMIT, auth: str = BEARER, advertise: str | None = None
    ) -> None:
        if auth not in AUTH_SCHEMES:
            raise ValueError(f"webhook authentication {auth!r}: use one of {', '.join(AUTH_SCHEMES)}")
        self.auth = auth
        secret = secrets.token_urlsafe(32)
        self.credentials = base64.b64encode(f"{BASIC_USER}:{secret}".encode()).decode() if auth == BASIC else secret
        self.token = secrets.token_urlsafe(16)
        self.body_limit = body_limit
        self._expected = f"{auth} {self.credentials}".encode()
        self._cond = threading.Condition()
        self._notes: list[Notification] = []
        #: What was accepted, per task: the bodies (a redelivery is kept once), the latest status timestamp, and
        #: whether the task was seen terminal.
        self._seen: set[tuple[str, str]] = set()
        self._latest: dict[str, str] = {}
        self._ended: set[str] = set()
        #: Repeated deliveries acknowledged and not kept again.
        self.duplicates = 0
        self._tasks: set[str] = set()
        self._last_activity = time.monotonic()
        #: Requests refused, as (status, reason), in order.
        self.refused: list[tuple[int, str]] = []
        self._closed = False
        #: The host the config names (where the agent reaches this receiver), when not the address it listens on.
        self.advertise = advertise
        self._server = (_Server6 if ":" in host else _Server)((host, 0), _Handler)
        self._server.receiver = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="a2a-lab-webhook", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        bound, port = self._server.server_address[:2]
        host = self.advertise or (bound if isinstance(bound, str) else bound.decode())
        return f"http://{f'[{host}]' if ':' in host and not host.startswith('[') else host}:{port}{PATH}"

    def config(self) -> dict[str, Any]:
        """The canonical push config (taskId left out) that makes the agent call this receiver as it checks."""
        if self.auth == TOKEN:
            return requests.push_config(self.url, token=self.token)
        return requests.push_config(self.url, self.credentials, self.token, scheme=self.auth)

    # ------------------------------------------------------------------------------- judging

    def expect(self, task_id: str) -> None:
        """From now on, only notifications about these tasks are accepted (§4.3.3: validate the task id)."""
        with self._cond:
            self._tasks.add(task_id)

    def judge(self, path: str, authorization: str | None, token: str | None, raw: bytes) -> NotificationVerdict:
        """The answer to one POST (pure apart from reading which tasks are expected)."""
        if path.split("?", 1)[0] != PATH:
            return NotificationVerdict(HTTPStatus.NOT_FOUND, f"not the webhook path {PATH}")
        if self.auth == TOKEN:
            if token is None:
                return NotificationVerdict(HTTPStatus.UNAUTHORIZED, f"missing {NOTIFICATION_TOKEN_HEADER}")
        else:
            given = (authorization or "").encode()
            if not hmac.compare_digest(given, self._expected):
                return NotificationVerdict(
                    HTTPStatus.UNAUTHORIZED, "missing Authorization" if not authorization else "wrong credentials"
                )
        if token is not None and not hmac.compare_digest(token.encode(), self.token.encode()):
            return NotificationVerdict(HTTPStatus.UNAUTHORIZED, f"wrong {NOTIFICATION_TOKEN_HEADER}")
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return NotificationVerdict(HTTPStatus.BAD_REQUEST, "the body is not JSON")
        task_id, state = read_event(body)
        if task_id is None:
            return NotificationVerdict(HTTPStatus.BAD_REQUEST, "the body names no task (a StreamResponse or a Task)")
        with self._cond:
            known = set(self._tasks)
        if known and task_id not in known:
            return NotificationVerdict(
                HTTPStatus.BAD_REQUEST, f"task {task_id!r} is not one this client is waiting for"
            )
        return NotificationVerdict(HTTPStatus.OK, "accepted", task_id, state, body)

    def record(self, verdict: NotificationVerdict) -> None:
        with self._cond:
            if verdict.status == HTTPStatus.OK and verdict.task_id is not None:
                self._keep(verdict.task_id, verdict.state, verdict.body)
            else:
                self.refused.append((int(verdict.status), verdict.reason))
            self._touch()

    def _keep(self, task_id: str, state: TaskState | None, body: Any) -> None:
        """Keep an accepted notification once (§4.3.3: duplicate deliveries may occur), marked stale when it would
        move the task back. Called with the lock held."""
        key = (task_id, json.dumps(body, sort_keys=True))
        if key in self._seen:
            self.duplicates += 1
            return
        self._seen.add(key)
        stamp = status_timestamp(body)
        latest = self._latest.get(task_id)
        stale = state is not None and (
            (task_id in self._ended and not state.terminal)
            or (stamp is not None and latest is not None and stamp < latest)
        )
        if not stale:
            if stamp is not None:
                self._latest[task_id] = stamp
            if state is not None and state.terminal:
                self._ended.add(task_id)
        self._notes.append(Notification(len(self._notes), task_id, state, body, stale))

    def _touch(self) -> None:
        self._last_activity = time.monotonic()
        self._cond.notify_all()

    def touch(self) -> None:
        with self._cond:
            self._touch()

    # ------------------------------------------------------------------------------- waiting

    def mark(self) -> int:
        """A cursor: notifications from here on are `since` it."""
        with self._cond:
            return len(self._notes)

    def notifications(self, task_id: str | None = None, since: int = 0) -> list[Notification]:
        with self._cond:
            return [n for n in self._notes[since:] if task_id is None or n.task_id == task_id]

    def wait(
        self, task_id: str, since: int, until: Callable[[Notification], bool], timeout: float
    ) -> Notification | None:
        """The first notification about the task (from `since` on) that satisfies `until`, waiting up to `timeout` s."""
        deadline = time.monotonic() + max(timeout, 0.0)
        with self._cond:
            while True:
                for note in self._notes[since:]:
                    if note.task_id == task_id and not note.stale and until(note):
                        return note
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def settle(self, quiet: float, limit: float) -> bool:
        """Wait until no request has arrived for `quiet` s (at most `limit` s): deliveries the agent queued right
        after the last one are answered, not cut off. True when it went quiet."""
        deadline = time.monotonic() + max(limit, 0.0)
        with self._cond:
            while True:
                now = time.monotonic()
                still = self._last_activity + quiet - now
                if still <= 0:
                    return True
                if now >= deadline:
                    return False
                self._cond.wait(min(still, deadline - now))

    # ------------------------------------------------------------------------------- lifetime

    def summary(self) -> dict[str, Any]:
        with self._cond:
            out = {"url": self.url, "notifications": len(self._notes), "refused": len(self.refused)}
            stale = sum(1 for n in self._notes if n.stale)
            out.update({k: v for k, v in (("duplicates", self.duplicates), ("stale", stale)) if v})
            return out

    def close(self) -> None:
        """Stop serving; waits for the handlers still answering (each bounded by its socket timeout)."""
        if self._closed:
            return
        self._closed = True
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> WebhookReceiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins the handlers: no answer is cut off at shutdown
    block_on_close = True
    #: The listen backlog (socketserver's default, 5, drops the connections of a burst: each then waits a second).
    request_queue_size = 1024
    receiver: WebhookReceiver

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.accept_backoff = backoff.Backoff(log, "the webhook receiver")
        self._accepted = False  # since the last pause
        #: Set when the receiver closes: a pause in accepting ends at once.
        self.stopping = threading.Event()

    def get_request(self) -> tuple[socket.socket, Any]:
        """accept(); out of file descriptors, stop accepting for a while (socketserver would retry at once, and
        spin as long as the listening socket stays readable)."""
        try:
            request = super().get_request()
        except OSError as exc:
            pause = self.accept_backoff.exhausted(exc, self._accepted)
            if pause is not None:
                self._accepted = False
                self.stopping.wait(pause)
            raise  # socketserver drops this attempt and goes on serving
        self._accepted = True
        return request


class _Server6(_Server):
    """The receiver on an IPv6 address."""

    address_family = socket.AF_INET6


def listen_address(host: str) -> str:
    """Where a receiver that the agent reaches at `host` listens: `host` itself when it is an address, else the address
    it resolves to here (a compose service name resolves to the container's own address). OSError when it resolves
    to nothing."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in bare else socket.AF_INET, bare)
        return bare
    except OSError:
        pass
    found = socket.getaddrinfo(bare, None, type=socket.SOCK_STREAM)
    return str(found[0][4][0])


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "a2a-lab-webhook"
    sys_version = ""
    timeout = _SOCKET_TIMEOUT_S

    def do_POST(self) -> None:
        receiver = self.server.receiver
        receiver.touch()
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "no Content-Length")
            return
        if int(length) > receiver.body_limit:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"more than {receiver.body_limit} bytes")
            return
        raw = self.rfile.read(int(length))
        verdict = receiver.judge(
            self.path, self.headers.get(AUTHORIZATION), self.headers.get(NOTIFICATION_TOKEN_HEADER), raw
        )
        receiver.record(verdict)
        self._answer(verdict.status, verdict.reason)

    def _refuse_method(self) -> None:
        self._refuse(HTTPStatus.METHOD_NOT_ALLOWED, "the webhook takes POST only", {"Allow": "POST"})

    do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _refuse_method

    def _refuse(self, status: int, reason: str, headers: dict[str, str] | None = None) -> None:
        self.server.receiver.record(NotificationVerdict(status, reason))
        self._answer(status, reason, headers)

    def _answer(self, status: int, reason: str, headers: dict[str, str] | None = None) -> None:
        body = b"" if status == HTTPStatus.OK else json.dumps({"error": reason}).encode()
        self.send_response(status)
        if status == HTTPStatus.UNAUTHORIZED:
            scheme = self.server.receiver.auth
            self.send_header("WWW-Authenticate", f'{scheme if scheme != TOKEN else BEARER} realm="a2a-lab webhook"')
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True
        self._await_close()
        self.server.receiver.touch()

    def _await_close(self) -> None:
        """Wait (bounded) for the agent to hang up after reading the answer (`Connection: close`): once the
        receiver shuts down, the agent has had every answer. Any byte instead of the hang-up ends the wait too."""
        try:
            self.connection.settimeout(_CLOSE_WAIT_S)
            self.connection.recv(1)
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the client reports what its webhook saw in its result, not on stderr."""
