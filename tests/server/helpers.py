"""Helpers for the server tests: scenario YAML in tmp_path, served on loopback port 0, SSE parsing."""

from __future__ import annotations

import json
import ssl
import textwrap
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message

from a2a_lab.contract.lab_api import credentials
from a2a_lab.contract.loader import load_file
from a2a_lab.contract.scenario import Scenario
from a2a_lab.server import tls
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

#: One TLS context for every client: building one per httpx.Client costs ~0.1 s (the CA bundle).
TLS = ssl.create_default_context()
#: What trusts the lab's own throwaway CA (scenarios served over TLS).
LAB_TLS = ssl.create_default_context(cafile=tls.pki().ca_file)
RPC_PATH = "/rpc"
REST_PATH = "/rest"

#: A small card: JSON-RPC 1.0 and 0.3 at /rpc, HTTP+JSON 1.0 at /rest; `{caps}` is filled in.
CARD_YAML = """\
card:
  object:
    name: test agent
    description: An agent for a test.
    version: "1.0.0"
    supportedInterfaces:
      - {{url: "{{base_url}}/rpc", protocolBinding: JSONRPC, protocolVersion: "1.0"}}
      - {{url: "{{base_url}}/rest", protocolBinding: HTTP+JSON, protocolVersion: "1.0"}}
      - {{url: "{{base_url}}/rpc", protocolBinding: JSONRPC, protocolVersion: "0.3"}}
    capabilities: {caps}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills:
      - {{id: s, name: s, description: s, tags: [t]}}
"""


def scenario_text(
    body: str = "", caps: str = "{streaming: true, pushNotifications: true}", head: str | None = None
) -> str:
    """A whole scenario file: title, description, spec, the test card, then `body` (dedented YAML)."""
    head = (
        head
        if head is not None
        else "title: a test scenario\ndescription: Used by a test.\nspec: A2A 1.0 (test)\nseed: 7\n"
    )
    return head + CARD_YAML.format(caps=caps) + textwrap.dedent(body)


def write_scenario(folder: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def message(text: str = "hi", message_id: str = "m-1", **extra: Any) -> dict[str, Any]:
    """A 1.0 user message."""
    return {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}], **extra}


def message03(text: str = "hi", message_id: str = "m-1", **extra: Any) -> dict[str, Any]:
    """A 0.3 JSON-RPC user message."""
    return {
        "kind": "message",
        "messageId": message_id,
        "role": "user",
        "parts": [{"kind": "text", "text": text}],
        **extra,
    }


@dataclass
class SseEvent:
    data: Any = None
    event: str | None = None
    comments: tuple[str, ...] = ()


def sse_events(text: str) -> list[SseEvent]:
    """Parse an SSE body into events; comment lines are attached to the event that follows them.
    A trailing group of comments with no data becomes an event with data None."""
    events: list[SseEvent] = []
    data: list[str] = []
    name: str | None = None
    comments: list[str] = []
    for line in [*text.replace("\r\n", "\n").split("\n"), ""]:
        if line == "":
            if data or comments or name:
                events.append(SseEvent(json.loads("\n".join(data)) if data else None, name, tuple(comments)))
            data, name, comments = [], None, []
        elif line.startswith(":"):
            comments.append(line[1:].strip())
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
        elif line.startswith("event:"):
            name = line[6:].strip()
    return events


def data_events(text: str) -> list[Any]:
    return [e.data for e in sse_events(text) if e.data is not None]


def client(base_url: str, timeout: float = 10, verify: ssl.SSLContext = TLS) -> httpx.Client:
    return httpx.Client(base_url=base_url, timeout=timeout, trust_env=False, verify=verify)


class Lab:
    """One scenario served for a test, like conftest's `serve`, for scenarios that are not in the catalogue."""

    def __init__(self, scenario: Scenario, timeout: float = 10) -> None:
        self.scenario = scenario
        self.app = ScenarioApp(scenario)
        context = tls.context_for(scenario.tls, lambda: self.app.state.journal)
        self.server = BackgroundServer(self.app, ssl_context=context).start()
        self.app.hosted(self.server)
        self.url = self.server.url
        self.http = client(self.url, timeout, LAB_TLS if context is not None else TLS)
        #: The header of an admin request (`/_lab/...`).
        self.admin = credentials(self.app.guard.token)

    @property
    def journal(self) -> list[dict[str, Any]]:
        return self.app.state.journal.snapshot()["entries"]

    def rpc(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        version: str | None = "1.0",
        req_id: Any = 1,
        path: str = RPC_PATH,
        **kw: Any,
    ) -> httpx.Response:
        headers = {"A2A-Version": version} if version else {}
        return self.http.post(
            path, json={"jsonrpc": "2.0", "id": req_id, "method": method, "params": params or {}}, headers=headers, **kw
        )

    def send(self, text: str = "hi", method: str = "SendMessage", **kw: Any) -> httpx.Response:
        return self.rpc(method, {"message": message(text)}, **kw)

    def close(self) -> None:
        self.http.close()
        self.server.stop()


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Callable[..., Lab]]:
    """`lab(body_yaml, caps=...)` serves a scenario written to tmp_path; stopped after the test."""
    started: list[Lab] = []

    def _lab(
        body: str = "",
        caps: str = "{streaming: true, pushNotifications: true}",
        name: str = "scenario.yaml",
        timeout: float = 10,
    ) -> Lab:
        path = write_scenario(tmp_path, scenario_text(body, caps), name)
        served = Lab(load_file(path, f"test/{path.stem}"), timeout)
        started.append(served)
        return served

    yield _lab
    for served in started:
        served.close()


class Receiver:
    """A webhook on loopback: records each POST by path and answers `status` (with `location` for redirects)."""

    def __init__(self, status: int = 204, location: dict[str, str] | None = None) -> None:
        self.status, self.location = status, location or {}
        self.received: list[tuple[str, dict[str, str], Any]] = []
        self._lock = threading.Condition()
        self.server = BackgroundServer(
            Starlette(routes=[Route("/{name}", self._hook, methods=["GET", "POST"])])
        ).start()

    def url(self, name: str) -> str:
        return f"{self.server.url}/{name}"

    async def _hook(self, request: Request) -> Response:
        body = await request.body()
        name = request.path_params["name"]
        with self._lock:
            self.received.append((name, dict(request.headers), json.loads(body) if body else None))
            self._lock.notify_all()
        if name in self.location:
            return Response(status_code=self.status, headers={"location": self.location[name]})
        return Response(status_code=204)

    def paths(self) -> list[str]:
        with self._lock:
            return [name for name, _, _ in self.received]

    def wait(self, count: int, timeout: float = 10) -> list[tuple[str, dict[str, str], Any]]:
        """The first `count` requests, once they have arrived."""
        with self._lock:
            assert self._lock.wait_for(lambda: len(self.received) >= count, timeout), f"{len(self.received)} arrived"
            return self.received[:count]


@pytest.fixture
def receiver() -> Iterator[Callable[..., Receiver]]:
    made: list[Receiver] = []

    def _make(status: int = 204, location: dict[str, str] | None = None) -> Receiver:
        made.append(Receiver(status, location))
        return made[-1]

    yield _make
    for r in made:
        r.server.stop()


async def asgi_post(app: ASGIApp, body: dict[str, Any], path: str = RPC_PATH) -> list[Message]:
    """One JSON POST through an app's ASGI interface in this thread, as a plain ASGI caller (no server, no socket):
    the messages the app sent. A second `http.response.start` is refused, as every ASGI server refuses it."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"a2a-version", b"1.0")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": json.dumps(body).encode(), "more_body": False}

    async def send(msg: Message) -> None:
        if msg["type"] == "http.response.start" and any(m["type"] == msg["type"] for m in sent):
            raise RuntimeError("a second http.response.start")
        sent.append(msg)

    await app(scope, receive, send)
    return sent


def body_of(sent: list[Message]) -> Any:
    """The JSON of what an app sent (asgi_post)."""
    return json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))
