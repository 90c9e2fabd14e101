"""The client's own push-notification receiver (A2A 1.0 §4.3.3, §13.2): a loopback HTTP server on a free port.

It answers 200 only to a POST whose `Authorization` is exactly `Bearer <its credential>` (constant-time
compare; a notification token, when sent, must match too) and whose JSON body names a task the client
expects (any task before it knows one); 401 for wrong or missing credentials, 400 for a body it cannot
use. Accepted notifications are kept in order; the client waits on them.

    with WebhookReceiver() as receiver:
        config = requests.push_config(receiver.url, receiver.credentials, receiver.token)
        ...
        receiver.wait(task_id, since, lambda n: n.state is TaskState.COMPLETED, timeout=5)
"""

from __future__ import annotations

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

from a2a_lab.protocol import shapes
from a2a_lab.protocol.forms import push_form
from a2a_lab.protocol.requests import AUTHORIZATION, BEARER, NOTIFICATION_TOKEN_HEADER, bearer
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version
from a2a_lab.server import backoff

log = logging.getLogger("a2a_lab.refclient")

LOOPBACK = "127.0.0.1"
PATH = "/a2a-lab/webhook"
BODY_LIMIT = 1024 * 1024
#: A handler waits this long for the agent to close the connection after the answer (so the agent has read it).
_CLOSE_WAIT_S = 2.0
_SOCKET_TIMEOUT_S = 5.0
#: Push bodies: 1.0 sends a StreamResponse in the HTTP+JSON form, 0.3 the Task in its JSON-RPC form (`kind`).
_FORMS = (push_form(Version.V1_0), push_form(Version.V0_3))


@dataclass(frozen=True)
class Notification:
    """One accepted notification: its place in arrival order, the task it names, the state it reports (if any)."""

    index: int
    task_id: str
    state: TaskState | None
    body: Any


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


class WebhookReceiver:
    """A threaded stdlib HTTP server on 127.0.0.1, port 0, with a fresh random credential and token."""

    def __init__(self, host: str = LOOPBACK, body_limit: int = BODY_LIMIT) -> None:
        self.credentials = secrets.token_urlsafe(32)
        self.token = secrets.token_urlsafe(16)
        self.body_limit = body_limit
        self._expected = bearer(self.credentials).encode()
        self._cond = threading.Condition()
        self._notes: list[Notification] = []
        self._tasks: set[str] = set()
        self._last_activity = time.monotonic()
        #: Requests refused, as (status, reason), in order.
        self.refused: list[tuple[int, str]] = []
        self._closed = False
        self._server = _Server((host, 0), _Handler)
        self._server.receiver = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="a2a-lab-webhook", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host if isinstance(host, str) else host.decode()}:{port}{PATH}"

    # ------------------------------------------------------------------------------- judging

    def expect(self, task_id: str) -> None:
        """From now on, only notifications about these tasks are accepted (§4.3.3: validate the task id)."""
        with self._cond:
            self._tasks.add(task_id)

    def judge(self, path: str, authorization: str | None, token: str | None, raw: bytes) -> NotificationVerdict:
        """The answer to one POST (pure apart from reading which tasks are expected)."""
        if path.split("?", 1)[0] != PATH:
            return NotificationVerdict(HTTPStatus.NOT_FOUND, f"not the webhook path {PATH}")
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
                self._notes.append(Notification(len(self._notes), verdict.task_id, verdict.state, verdict.body))
            else:
                self.refused.append((int(verdict.status), verdict.reason))
            self._touch()

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
                    if note.task_id == task_id and until(note):
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
            return {"url": self.url, "notifications": len(self._notes), "refused": len(self.refused)}

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
            self.send_header("WWW-Authenticate", f'{BEARER} realm="a2a-lab webhook"')
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
