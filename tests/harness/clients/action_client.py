"""A small A2A client that acts on A2A_LAB_ACTION (stream, webhook, token, extended card, resubscribe, verify the
card's signature), correct by default and wrong on request, for proving the scenarios and the action checks.

Usage: action_client.py [options] CARD_URL

It imports nothing from a2a_lab: it is written from the spec (httpx and the standard library; joserfc and rfc8785
for signatures). It speaks JSON-RPC, A2A 1.0 and 0.3, and (for a card with no JSON-RPC interface) HTTP+JSON 1.0
messages, streams and GetTask: it fetches the card, verifies its signature when asked
(with the JWKS the scenario hands over), picks the first JSON-RPC interface of version 1.0 or 0.3, fetches the
extended card when asked and allowed, sends one message (streamed when asked and allowed; with a webhook of its
own when asked and allowed), follows a task that is not finished (SubscribeToTask after a dropped stream, else
polite bounded GetTask), and writes {"kind", "state", "text"} to A2A_LAB_RESULT.

What the scenario asks (A2A_LAB_ACTION) is acted on unless --ignore-action; the flags below add to it or spoil it.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import secrets
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

WELL_KNOWN = "/.well-known/agent-card.json"
USER_AGENT = "a2a-lab-action-client/1.0"
TERMINAL = {"completed", "failed", "canceled", "cancelled", "rejected"}
INTERRUPTED = {"input-required", "auth-required"}
STOPS = TERMINAL | INTERRUPTED
TOKEN_HEADER = "X-A2A-Notification-Token"
#: JSON-RPC errors and HTTP statuses worth one more try (the others are answers).
TRANSIENT_CODES = {-32603}


def short(state: Any) -> str:
    """A state in 0.3 spelling (completed, input-required), whatever form it came in."""
    return str(state or "").removeprefix("TASK_STATE_").lower().replace("_", "-")


class Failure(Exception):
    """The exchange failed: a transport error, an HTTP error, or a JSON-RPC error answer."""

    def __init__(self, text: str, transient: bool = False, retry_after: float | None = None) -> None:
        super().__init__(text)
        self.text, self.transient, self.retry_after = text, transient, retry_after


class Rejected(Failure):
    """The client itself refused what it got (its own strictness), so there is nothing to follow up."""


class Dropped(Exception):
    """A stream broke before it ended."""


# ------------------------------------------------------------------------------------------ card signatures (§8.4)

#: Proto field presence (§8.4.1, §5.7): REQUIRED fields always stay; `optional` fields stay when present; other
#: fields are left out when they hold their default ("", 0, false, empty list or map).
REQUIRED = {
    "AgentCard": {
        "name",
        "description",
        "supportedInterfaces",
        "version",
        "capabilities",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
    },
    "AgentInterface": {"url", "protocolBinding", "protocolVersion"},
    "AgentProvider": {"url", "organization"},
    "AgentSkill": {"id", "name", "description", "tags"},
}
OPTIONAL = {
    "AgentCard": {"documentationUrl", "iconUrl"},
    "AgentCapabilities": {"streaming", "pushNotifications", "extendedAgentCard"},
}
CHILDREN = {
    "AgentCard": {
        "supportedInterfaces": "AgentInterface",
        "provider": "AgentProvider",
        "capabilities": "AgentCapabilities",
        "skills": "AgentSkill",
    },
}


def _default(value: Any) -> bool:
    return value is False or (not isinstance(value, bool) and value in ("", 0, [], {}))


def strip_defaults(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    out = {}
    for key, value in obj.items():
        child = CHILDREN.get(kind, {}).get(key)
        if child and isinstance(value, dict):
            value = strip_defaults(value, child)
        elif child and isinstance(value, list):
            value = [strip_defaults(v, child) if isinstance(v, dict) else v for v in value]
        if key in REQUIRED.get(kind, set()) or key in OPTIONAL.get(kind, set()) or not _default(value):
            out[key] = value
    return out


def canonical(card: dict[str, Any], strip: bool = True) -> bytes:
    import rfc8785

    doc = {k: v for k, v in card.items() if k != "signatures"}
    return rfc8785.dumps(strip_defaults(doc, "AgentCard") if strip else doc)


def verify_card(card: dict[str, Any], jwks: Any, strip: bool = True) -> str | None:
    """None when a signature verifies with a key of `jwks`; else why not."""
    from joserfc import jws
    from joserfc.jwk import ECKey

    signatures = card.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        return "the card is not signed"
    keys = {k.get("kid"): k for k in (jwks or {}).get("keys", []) if isinstance(k, dict)}
    payload = canonical(card, strip)
    reasons = []
    for sig in signatures:
        try:
            protected = sig["protected"]
            header = json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))
            jwk = keys.get(header.get("kid"))
            if jwk is None:
                reasons.append(f"unknown key id {header.get('kid')!r}")
                continue
            jws.deserialize_compact(
                f"{protected}..{sig['signature']}", ECKey.import_key(jwk), payload=payload, algorithms=[header["alg"]]
            )
            return None
        except Exception as exc:
            reasons.append(f"{type(exc).__name__}")
    return "the card's signature does not verify: " + "; ".join(reasons)


# ------------------------------------------------------------------------------------------ the webhook receiver


class Receiver:
    """A loopback webhook (§4.3.3, §13.2): checks the credentials its config named (`Authorization: Bearer` or
    `Basic`, or only X-A2A-Notification-Token), answers 2xx to genuine calls about the task it expects (once it
    knows it), a repeated delivery included. The defects spoil one of these."""

    def __init__(self, args: argparse.Namespace, scheme: str = "Bearer") -> None:
        secret = "action-client-" + secrets.token_hex(8)
        self.scheme = scheme
        self.secret = base64.b64encode(f"me:{secret}".encode()).decode() if scheme == "Basic" else secret
        self.token = "token-" + secrets.token_hex(8)
        self.args = args
        self.accept_any, self.fail = args.accept_any_credentials, args.webhook_500
        self.expected: str | None = None
        self.received: list[dict[str, Any]] = []
        self.refused = 0
        self.changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                status = receiver.judge(self.headers.get("authorization"), self.headers.get(TOKEN_HEADER), body)
                with receiver.changed:
                    if status == 204:
                        try:
                            receiver.received.append(json.loads(body))
                        except ValueError:
                            pass
                    elif status == 401:
                        receiver.refused += 1
                    receiver.changed.notify_all()
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/webhook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def config(self, version: str) -> dict[str, Any]:
        """The push config in the version's shape (1.0 flat TaskPushNotificationConfig, 0.3 PushNotificationConfig)."""
        config: dict[str, Any] = {"url": self.url, "token": self.token}
        if self.scheme != "token":
            config["authentication"] = (
                {"scheme": self.scheme, "credentials": self.secret}
                if version == "1.0"
                else {"schemes": [self.scheme], "credentials": self.secret}
            )
        return config

    def genuine(self, authorization: str | None, token: str | None) -> bool:
        if self.accept_any:
            return True
        if self.args.check_bearer_only and not (authorization or "").startswith("Bearer "):
            return True  # the defect: only Bearer tokens are checked; any other scheme, or none, passes
        if self.scheme == "token":
            return token == self.token
        return authorization == f"{self.scheme} {self.secret}" and token in (None, self.token)

    def judge(self, authorization: str | None, token: str | None, raw: bytes) -> int:
        if self.fail:
            return 500
        if not self.genuine(authorization, token):
            return 401
        try:
            body = json.loads(raw)
        except ValueError:
            return 400
        v03 = isinstance(body, dict) and "kind" in body
        if (self.args.v1_notifications_only and v03) or (self.args.v03_notifications_only and not v03):
            return 400
        task_id = _task_of(body)
        if self.expected and task_id != self.expected and not self.args.any_task:
            return 400
        with self.changed:
            if self.args.reject_duplicates and body in self.received:
                return 409
        return 204

    def wait_for_stop(self, seconds: float) -> None:
        """Until a notification of a terminal or interrupted state arrived and the line went quiet, or `seconds`
        passed."""
        deadline = time.monotonic() + seconds
        with self.changed:
            while time.monotonic() < deadline:
                if any(short(_state_of(n)) in STOPS for n in self.received):
                    break
                self.changed.wait(max(0.0, deadline - time.monotonic()))
            while self.changed.wait(1.0):  # a last delivery may be on its way (a loaded machine is slow)
                pass

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _task_of(notification: Any) -> str | None:
    """The task a notification is about: a 0.3 Task's `id`, a 1.0 StreamResponse's task or update."""
    if not isinstance(notification, dict):
        return None
    if "kind" in notification:
        return notification.get("id")
    for key, field in (("task", "id"), ("statusUpdate", "taskId"), ("artifactUpdate", "taskId")):
        inner = notification.get(key)
        if isinstance(inner, dict):
            return inner.get(field)
    return None


def _stamp_of(notification: Any) -> str:
    inner = notification.get("statusUpdate") or notification.get("task") or notification
    status = inner.get("status") if isinstance(inner, dict) else None
    return str(status.get("timestamp") or "") if isinstance(status, dict) else ""


def _state_of(notification: Any) -> str:
    if not isinstance(notification, dict):
        return ""
    inner = (
        notification.get("statusUpdate")
        or notification.get("task")
        or (notification if "status" in notification else {})
    )
    status = inner.get("status") if isinstance(inner, dict) else None
    return str(status.get("state", "")) if isinstance(status, dict) else ""


# ---------------------------------------------------------------------------------------- what a task looks like so far


class Fold:
    """Everything learnt about one answer: a message, or a task's id, state, artifacts and status message."""

    def __init__(self, strict: bool = False, task_once: bool = False) -> None:
        self.task_once = task_once
        self.kind: str | None = None
        self.task_id: str | None = None
        self.state = ""
        self.message_text = ""
        self.status_text = ""
        self.artifacts: dict[str, list[str]] = {}
        self.strict = strict
        self.seen: set[str] = set()
        self.events = 0

    @staticmethod
    def texts(parts: Any) -> list[str]:
        return [p["text"] for p in parts or [] if isinstance(p, dict) and isinstance(p.get("text"), str)]

    def task(self, task: dict[str, Any]) -> None:
        self.kind = "task"
        self.task_id = str(task.get("id") or self.task_id or "") or None
        self.status(task.get("status"))
        for art in task.get("artifacts") or []:
            if isinstance(art, dict):
                self.artifacts[str(art.get("artifactId"))] = self.texts(art.get("parts"))

    def status(self, status: Any) -> None:
        if not isinstance(status, dict):
            return
        self.state = str(status.get("state") or self.state)
        msg = status.get("message")
        if isinstance(msg, dict):
            self.status_text = " ".join(self.texts(msg.get("parts")))

    def event(self, ev: Any, v1_only: bool = False) -> None:
        """One stream event (a JSON-RPC result), 1.0 wrapper-style or 0.3 `kind`-style."""
        if not isinstance(ev, dict):
            return
        if self.strict:
            key = json.dumps(ev, sort_keys=True)
            if key in self.seen:
                raise Rejected("the stream repeated an event")
            self.seen.add(key)
            if self.events == 0 and not ({"task", "message"} & set(ev) or ev.get("kind") in ("task", "message")):
                raise Rejected("the stream did not start with a task or a message")
        self.events += 1
        kind = None if v1_only else ev.get("kind")
        if kind == "message" or (kind is None and "message" in ev):
            msg = ev if kind == "message" else ev["message"]
            self.kind, self.message_text = "message", " ".join(self.texts(msg.get("parts")))
        elif kind == "task" or (kind is None and "task" in ev):
            if self.task_once and self.task_id:  # the defect: a Task after the task is known is "already set"
                raise Rejected("a Task arrived after the stream had set the task")
            self.task(ev if kind == "task" else ev["task"])
        elif kind == "status-update" or (kind is None and "statusUpdate" in ev):
            upd = ev if kind else ev["statusUpdate"]
            self.kind = "task"
            self.task_id = self.task_id or upd.get("taskId")
            self.status(upd.get("status"))
        elif kind == "artifact-update" or (kind is None and "artifactUpdate" in ev):
            upd = ev if kind else ev["artifactUpdate"]
            self.kind = "task"
            self.task_id = self.task_id or upd.get("taskId")
            art = upd.get("artifact") or {}
            key = str(art.get("artifactId"))
            texts = self.texts(art.get("parts"))
            self.artifacts[key] = (self.artifacts.get(key, []) + texts) if upd.get("append") else texts

    @property
    def stopped(self) -> bool:
        return self.kind == "message" or short(self.state) in STOPS

    def result(self) -> dict[str, Any]:
        if self.kind == "message":
            return {"kind": "message", "state": None, "text": self.message_text}
        texts = [t for ts in self.artifacts.values() for t in ts] + ([self.status_text] if self.status_text else [])
        return {"kind": "task", "state": self.state or None, "text": " ".join(texts)}


# ------------------------------------------------------------------------------------------ the client


def interfaces(card: dict[str, Any]) -> list[dict[str, str]]:
    """JSON-RPC interfaces of version 1.0 or 0.3, in card order ({url, version}); without any, the HTTP+JSON 1.0
    ones ({url, version, binding: http+json})."""
    found = jsonrpc_interfaces(card)
    if found:
        return found
    listed = card.get("supportedInterfaces")
    return [
        {"url": str(entry.get("url", "")).rstrip("/"), "version": "1.0", "binding": "http+json"}
        for entry in (listed if isinstance(listed, list) else [])
        if isinstance(entry, dict)
        and str(entry.get("protocolBinding", "")).upper() == "HTTP+JSON"
        and str(entry.get("protocolVersion", "")).startswith("1.0")
    ]


def jsonrpc_interfaces(card: dict[str, Any]) -> list[dict[str, str]]:
    """JSON-RPC interfaces of version 1.0 or 0.3, in card order ({url, version})."""

    def version(value: Any) -> str | None:
        if value is None:
            return "0.3"
        parts = str(value).split(".")
        return f"{parts[0]}.{parts[1]}" if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit() else None

    out: list[dict[str, Any]] = []
    listed = card.get("supportedInterfaces")
    if isinstance(listed, list):
        for entry in listed:
            if isinstance(entry, dict) and str(entry.get("protocolBinding", "")).upper() == "JSONRPC":
                out.append({"url": str(entry.get("url", "")), "version": version(entry.get("protocolVersion"))})
    elif isinstance(card.get("url"), str) and str(card.get("preferredTransport") or "JSONRPC").upper() == "JSONRPC":
        out.append({"url": card["url"], "version": version(card.get("protocolVersion"))})
    return [i for i in out if i["version"] in ("1.0", "0.3")]


METHODS = {
    "1.0": {
        "send": "SendMessage",
        "stream": "SendStreamingMessage",
        "get": "GetTask",
        "subscribe": "SubscribeToTask",
        "card": "GetExtendedAgentCard",
    },
    "0.3": {
        "send": "message/send",
        "stream": "message/stream",
        "get": "tasks/get",
        "subscribe": "tasks/resubscribe",
        "card": "agent/getAuthenticatedExtendedCard",
    },
}


PUSH_METHODS = {
    "1.0": {
        "set": "CreateTaskPushNotificationConfig",
        "list": "ListTaskPushNotificationConfigs",
        "get": "GetTaskPushNotificationConfig",
        "delete": "DeleteTaskPushNotificationConfig",
    },
    "0.3": {
        "set": "tasks/pushNotificationConfig/set",
        "list": "tasks/pushNotificationConfig/list",
        "get": "tasks/pushNotificationConfig/get",
        "delete": "tasks/pushNotificationConfig/delete",
    },
}


class Client:
    def __init__(self, args: argparse.Namespace, card_url: str) -> None:
        self.args = args
        self.card_url = card_url
        action: dict[str, Any] = {}
        if not args.ignore_action:
            try:
                action = json.loads(os.environ.get("A2A_LAB_ACTION") or "{}")
            except ValueError:
                action = {}
        self.action = action
        token = args.token or action.get("token")
        if args.wrong_token:
            token = (token or "no-token") + "-wrong"
        self.token = token
        self.stream = args.stream or bool(action.get("stream"))
        self.webhook = args.webhook or bool(action.get("webhook")) or bool(action.get("push_configs"))
        self.manage_configs = bool(action.get("push_configs"))
        self.extended = args.extended_card or bool(action.get("extended_card"))
        self.verify = (args.verify_signature or bool(action.get("verify_signature"))) and not args.skip_verification
        self.text = os.environ.get("A2A_LAB_MESSAGE", "hello")
        read = args.read_timeout if args.read_timeout > 0 else None
        if args.deadline and read:
            read = min(read, args.deadline)
        self.http = httpx.Client(
            timeout=httpx.Timeout(read, connect=5.0), trust_env=False, headers={"User-Agent": USER_AGENT}
        )
        self.rpc_id = 0
        self.receiver: Receiver | None = None

    # -------------------------------------------------------------------- wire

    def headers(self, iface: dict[str, str], stream: bool = False) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if iface["version"] == "1.0":
            headers["A2A-Version"] = "1.0"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if stream:
            headers["Accept"] = "text/event-stream"
        return headers

    def body(self, method: str, params: dict[str, Any]) -> bytes:
        self.rpc_id += 1
        return json.dumps({"jsonrpc": "2.0", "id": self.rpc_id, "method": method, "params": params}).encode()

    @staticmethod
    def _failure_for(resp: httpx.Response, content: bytes) -> Failure | None:
        if resp.status_code < 400:
            return None
        retry_after = None
        try:
            retry_after = float(resp.headers.get("retry-after", ""))
        except ValueError:
            pass
        try:
            err = json.loads(content).get("error", {})
            what = f"HTTP {resp.status_code}: error {err.get('code')} {err.get('message', '')}"
        except (ValueError, AttributeError):
            what = f"HTTP {resp.status_code}"
        return Failure(what, transient=resp.status_code >= 500, retry_after=retry_after)

    def rest_call(self, iface: dict[str, str], method: str, params: dict[str, Any]) -> Any:
        """HTTP+JSON 1.0 (messages and GetTask only): the answer's body, or Failure."""
        try:
            if method == "GetTask":
                resp = self.http.get(f"{iface['url']}/tasks/{params['id']}", headers=self.headers(iface))
            elif method == "SendMessage":
                resp = self.http.post(
                    f"{iface['url']}/message:send", content=json.dumps(params).encode(), headers=self.headers(iface)
                )
            else:
                raise Failure(f"{method} is not spoken over HTTP+JSON by this client")
        except httpx.TransportError as exc:
            raise Failure(f"transport error: {type(exc).__name__}: {exc}", transient=True) from None
        failed = self._failure_for(resp, resp.content)
        if failed is not None:
            raise failed
        try:
            return resp.json()
        except ValueError:
            raise Failure("the answer is not JSON") from None

    def rpc(self, iface: dict[str, str], method: str, params: dict[str, Any]) -> Any:
        """One JSON-RPC call (HTTP+JSON on such an interface); its result, or Failure."""
        if iface.get("binding") == "http+json":
            return self.rest_call(iface, method, params)
        deadline = time.monotonic() + self.args.deadline if self.args.deadline else None
        content = b""
        try:
            with self.http.stream(
                "POST", iface["url"], content=self.body(method, params), headers=self.headers(iface)
            ) as resp:
                for chunk in resp.iter_bytes():
                    content += chunk
                    if deadline is not None and time.monotonic() > deadline:
                        raise Failure(f"no complete answer within {self.args.deadline:g} s")
        except httpx.TransportError as exc:
            raise Failure(f"transport error: {type(exc).__name__}: {exc}", transient=True) from None
        failed = self._failure_for(resp, content)
        if failed is not None:
            raise failed
        if deadline is not None and time.monotonic() > deadline:
            raise Failure(f"no complete answer within {self.args.deadline:g} s")
        try:
            data = json.loads(content)
        except ValueError:
            raise Failure("the answer is not JSON") from None
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            raise Failure("the answer is not a JSON-RPC response")
        if isinstance(data.get("error"), dict):
            err = data["error"]
            raise Failure(
                f"error {err.get('code')}: {err.get('message', '')}", transient=err.get("code") in TRANSIENT_CODES
            )
        if "result" not in data:
            raise Failure("the answer has no result")
        return data["result"]

    def stream_rpc(self, iface: dict[str, str], method: str, params: dict[str, Any], fold: Fold) -> None:
        """Read an SSE stream into `fold`. Failure on an error answer or event; Dropped when the stream breaks."""
        rest = iface.get("binding") == "http+json"
        url, content = (
            (f"{iface['url']}/message:stream", json.dumps(params).encode())
            if rest
            else (iface["url"], self.body(method, params))
        )
        try:
            with self.http.stream("POST", url, content=content, headers=self.headers(iface, stream=True)) as resp:
                if "text/event-stream" not in resp.headers.get("content-type", "") and not self.args.sse_only:
                    content = resp.read()
                    failed = self._failure_for(resp, content)
                    if failed is not None:
                        raise failed
                    try:
                        data = json.loads(content)
                    except ValueError:
                        raise Failure("the stream answer is neither SSE nor JSON") from None
                    if isinstance(data, dict) and isinstance(data.get("error"), dict):
                        raise Failure(f"error {data['error'].get('code')}: {data['error'].get('message', '')}")
                    raise Failure("the stream answer is not an event stream")
                received = 0
                for data in self.sse(resp.iter_lines()):
                    received += 1
                    if isinstance(data, dict) and isinstance(data.get("error"), dict):
                        if self.args.ignore_stream_errors:
                            continue
                        raise Failure(f"error event {data['error'].get('code')}: {data['error'].get('message', '')}")
                    if rest:
                        fold.event(data, v1_only=True)  # HTTP+JSON: the StreamResponse itself
                        continue
                    if not self.args.lax_events and not (
                        isinstance(data, dict) and data.get("jsonrpc") == "2.0" and "result" in data
                    ):
                        raise Failure("a stream event is not a JSON-RPC response")
                    result = data.get("result") if isinstance(data, dict) else None
                    fold.event(result, self.args.v1_events_only)
                    if isinstance(result, dict) and result.get("final") is True and not self.args.ignore_final:
                        break  # 0.3: the server says this is the stream's last event
                if not received and not self.args.sse_only:
                    raise Failure("the stream ended before its first event (a task or a message, §3.1.2)")
        except httpx.TransportError as exc:
            if fold.events:
                raise Dropped(f"{type(exc).__name__}: {exc}") from None
            raise Failure(f"transport error: {type(exc).__name__}: {exc}", transient=True) from None

    def sse(self, lines: Any) -> Any:
        """The `data:` payloads of an SSE stream (comment lines ignored; multi-line data joined)."""
        data: list[str] = []
        for line in lines:
            if self.args.naive_sse:  # the defect: every non-empty line is taken for `data: <json>`
                if line.strip():
                    try:
                        yield json.loads(line.split(":", 1)[1])
                    except (ValueError, IndexError):
                        raise Rejected(f"unreadable stream line {line[:60]!r}") from None
                continue
            if line == "":
                if data:
                    yield json.loads("\n".join(data))
                data = []
            elif line.startswith(":"):
                continue
            elif line.startswith("data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(" ") else value)
        if data and not self.args.discard_unterminated:
            yield json.loads("\n".join(data))  # lenient: an event cut off by EOF is still read

    # -------------------------------------------------------------------- the run

    def message(self, version: str) -> dict[str, Any]:
        mid = str(uuid.uuid4())
        if version == "1.0":
            return {"messageId": mid, "role": "ROLE_USER", "parts": [{"text": self.text}]}
        return {"kind": "message", "messageId": mid, "role": "user", "parts": [{"kind": "text", "text": self.text}]}

    def fetch_card(self) -> dict[str, Any]:
        resp = self.http.get(self.card_url, headers={"Accept": "application/json"})
        resp.raise_for_status()
        card = resp.json()
        if not isinstance(card, dict):
            raise Failure("the card is not a JSON object")
        return card

    def run(self) -> dict[str, Any]:
        card = self.fetch_card()
        if self.verify:
            why = verify_card(card, self.action.get("jwks"), strip=not self.args.no_strip_defaults)
            if why is not None:
                return {"kind": "error", "state": None, "text": f"refused the card: {why}"}
        found = interfaces(card)
        if not found:
            return {"kind": "error", "state": None, "text": "no JSON-RPC interface of A2A 1.0 or 0.3"}
        iface = found[0]
        caps: dict[str, Any] = card["capabilities"] if isinstance(card.get("capabilities"), dict) else {}
        if self.extended and (
            caps.get("extendedAgentCard") is True or card.get("supportsAuthenticatedExtendedCard") is True
        ):
            try:
                extended = self.rpc(iface, METHODS[iface["version"]]["card"], {})
            except Failure as failure:
                print(f"action_client: no extended card: {failure.text}", file=sys.stderr)
            else:
                if isinstance(extended, dict):
                    card, caps = (
                        extended,
                        extended["capabilities"] if isinstance(extended.get("capabilities"), dict) else caps,
                    )
                    iface = (interfaces(card) or [iface])[0]
        streaming_allowed = caps.get("streaming") is True
        stream = (self.stream and streaming_allowed) or self.args.stream_anyway
        if self.webhook and (caps.get("pushNotifications") is True or self.args.push_anyway):
            self.receiver = Receiver(self.args, str(self.action.get("webhook_auth") or "Bearer"))
        methods = METHODS[iface["version"]]
        params: dict[str, Any] = {"message": self.message(iface["version"])}
        if self.receiver is not None:
            key = "taskPushNotificationConfig" if iface["version"] == "1.0" else "pushNotificationConfig"
            # Not blocking: the notifications tell how the task goes on (and, when the config is made after the
            # answer, the task must not have finished by then).
            params["configuration"] = {"returnImmediately": True} if iface["version"] == "1.0" else {"blocking": False}
            if not self.manage_configs:
                params["configuration"][key] = self.receiver.config(iface["version"])
        fold = Fold(strict=self.args.strict_stream, task_once=self.args.task_once)
        for attempt in range(self.args.retries + 1):
            try:
                if stream:
                    fold = Fold(strict=self.args.strict_stream, task_once=self.args.task_once)
                    self.stream_rpc(iface, methods["stream"], params, fold)
                else:
                    answer = self.rpc(iface, methods["send"], params)
                    self.read_answer(answer, fold)
                break
            except Dropped as dropped:
                print(f"action_client: the stream dropped ({dropped})", file=sys.stderr)
                if self.args.no_resume:
                    return {"kind": "error", "state": None, "text": "the stream dropped"}
                self.resume(iface, fold, streaming_allowed)
                break
            except Failure as failure:
                if failure.transient and attempt < self.args.retries:
                    time.sleep(min(failure.retry_after or 0.2, 2.0))
                    continue
                if stream and fold.task_id and not self.args.no_follow_up and not isinstance(failure, Rejected):
                    self.poll(iface, fold)  # the stream failed after the task existed: learn how the task ended
                    if fold.state:
                        break
                raise
        config_id = None
        if self.receiver is not None and fold.kind == "task":
            self.receiver.expected = fold.task_id
            if self.manage_configs and fold.task_id:
                config_id = self.create_config(iface, fold.task_id)
            self.receiver.wait_for_stop(self.args.push_wait)
            self.read_notifications(fold)
            if config_id is not None and fold.task_id:
                self.delete_config(iface, fold.task_id, config_id)
        heard = self.receiver is not None and bool(self.receiver.received)
        if not fold.stopped and not self.args.no_follow_up and fold.task_id and not heard:
            self.poll(iface, fold)  # the webhook heard nothing: GetTask instead
        return fold.result()

    def read_answer(self, answer: Any, fold: Fold) -> None:
        """A SendMessage result: 1.0 {"task"} / {"message"}, 0.3 an object with `kind`."""
        if not isinstance(answer, dict):
            raise Failure("the result is not an object")
        if isinstance(answer.get("message"), dict) or answer.get("kind") == "message":
            msg = answer["message"] if isinstance(answer.get("message"), dict) else answer
            fold.kind, fold.message_text = "message", " ".join(fold.texts(msg.get("parts")))
        elif isinstance(answer.get("task"), dict):
            fold.task(answer["task"])
        elif answer.get("kind") == "task" or "status" in answer:
            fold.task(answer)
        else:
            raise Failure("the result is neither a task nor a message")

    def read_notifications(self, fold: Fold) -> None:
        """Fold the notifications about the task in: a repeated one once, none that would move the task back (after
        a terminal state, or older than the latest status). The defects drop one of these guards."""
        assert self.receiver is not None
        seen: list[Any] = []
        latest = ""
        for notification in list(self.receiver.received):
            if not self.args.any_task and fold.task_id and _task_of(notification) != fold.task_id:
                continue
            if notification in seen and not self.args.no_dedup:
                continue
            seen.append(notification)
            stamp, state = _stamp_of(notification), short(_state_of(notification))
            if (
                not self.args.last_wins
                and state
                and (short(fold.state) in TERMINAL or (stamp and latest and stamp < latest))
            ):
                continue
            latest = max(latest, stamp)
            self.read_notification(notification, fold)

    def read_notification(self, notification: Any, fold: Fold) -> None:
        if not isinstance(notification, dict):
            return
        if "kind" in notification or ("status" in notification and "id" in notification):  # 0.3: the whole Task
            fold.task(notification)
        else:
            fold.event(notification)

    def create_config(self, iface: dict[str, str], task_id: str) -> str | None:
        """Create the webhook's config for the task, list the task's configs and get it back; its id."""
        assert self.receiver is not None
        config = self.receiver.config(iface["version"])
        v1 = iface["version"] == "1.0"
        if self.args.wrong_config_params:  # the defect: the other version's names
            v1 = not v1
        pushed = PUSH_METHODS[iface["version"]]
        try:
            made = self.rpc(
                iface,
                pushed["set"],
                {"taskId": task_id, **config} if v1 else {"taskId": task_id, "pushNotificationConfig": config},
            )
            inner = made.get("pushNotificationConfig", made) if isinstance(made, dict) else {}
            config_id = str(inner.get("id") or "")
            self.rpc(iface, pushed["list"], {"taskId": task_id} if v1 else {"id": task_id})
            self.rpc(
                iface,
                pushed["get"],
                {"taskId": task_id, "id": config_id} if v1 else {"id": task_id, "pushNotificationConfigId": config_id},
            )
        except Failure as failure:
            print(f"action_client: push config: {failure.text}", file=sys.stderr)
            return None
        return config_id or None

    def delete_config(self, iface: dict[str, str], task_id: str, config_id: str) -> None:
        v1 = (iface["version"] == "1.0") != self.args.wrong_config_params
        params = {"taskId": task_id, "id": config_id} if v1 else {"id": task_id, "pushNotificationConfigId": config_id}
        try:
            self.rpc(iface, PUSH_METHODS[iface["version"]]["delete"], params)
        except Failure as failure:
            print(f"action_client: push config: {failure.text}", file=sys.stderr)

    def resume(self, iface: dict[str, str], fold: Fold, streaming_allowed: bool) -> None:
        """After a dropped stream: SubscribeToTask (a snapshot, then the rest), else GetTask."""
        if fold.task_id and streaming_allowed and not self.args.poll_to_resume:
            try:
                self.stream_rpc(iface, METHODS[iface["version"]]["subscribe"], {"id": fold.task_id}, fold)
            except (Failure, Dropped) as failed:
                print(f"action_client: SubscribeToTask failed ({failed}); polling instead", file=sys.stderr)
        if not fold.stopped and fold.task_id:
            self.poll(iface, fold)

    def poll(self, iface: dict[str, str], fold: Fold) -> None:
        """Polite, bounded GetTask until a terminal or interrupted state."""
        for _ in range(self.args.polls):
            time.sleep(self.args.poll_gap)
            try:
                task = self.rpc(iface, METHODS[iface["version"]]["get"], {"id": fold.task_id})
            except Failure:
                return
            if isinstance(task, dict):
                fold.task(task)
            if fold.stopped:
                return

    def close(self) -> None:
        if self.receiver is not None:
            self.receiver.close()
        self.http.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="action_client")
    # What to do (A2A_LAB_ACTION asks for these too, unless --ignore-action)
    parser.add_argument("--ignore-action", action="store_true", help="do nothing A2A_LAB_ACTION asks")
    parser.add_argument("--stream", action="store_true", help="stream when the card allows it")
    parser.add_argument("--webhook", action="store_true", help="register a loopback webhook when the card allows push")
    parser.add_argument("--token", help="present Authorization: Bearer TOKEN on every call")
    parser.add_argument(
        "--extended-card", action="store_true", help="fetch the extended card when the card declares one"
    )
    parser.add_argument(
        "--resubscribe", action="store_true", help="after a dropped stream, SubscribeToTask (the default anyway)"
    )
    parser.add_argument(
        "--poll-to-resume", action="store_true", help="after a dropped stream, GetTask instead of SubscribeToTask"
    )
    parser.add_argument(
        "--verify-signature", action="store_true", help="verify the card's signature with the JWKS in A2A_LAB_ACTION"
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=0,
        help="resend the same message after a transient failure (5xx, -32603, transport)",
    )
    parser.add_argument(
        "--read-timeout", type=float, default=10.0, help="seconds without a byte before giving up (0: wait forever)"
    )
    parser.add_argument("--deadline", type=float, default=0.0, help="seconds for a whole answer (0: none)")
    parser.add_argument("--polls", type=int, default=10, help="GetTask calls at most")
    parser.add_argument("--poll-gap", type=float, default=0.2, help="seconds between GetTask calls")
    parser.add_argument("--push-wait", type=float, default=5.0, help="seconds to wait for the terminal notification")
    # Defects
    parser.add_argument("--wrong-token", action="store_true", help="defect: present a token that is not the one given")
    parser.add_argument(
        "--stream-anyway", action="store_true", help="defect: stream even when the card does not declare streaming"
    )
    parser.add_argument(
        "--push-anyway",
        action="store_true",
        help="defect: register the webhook even when the card does not declare push",
    )
    parser.add_argument(
        "--accept-any-credentials", action="store_true", help="defect: the webhook accepts every notification"
    )
    parser.add_argument("--webhook-500", action="store_true", help="defect: the webhook answers 500 to everything")
    parser.add_argument(
        "--check-bearer-only",
        action="store_true",
        help="defect: the webhook checks Bearer credentials only; any other scheme, or none, passes",
    )
    parser.add_argument(
        "--reject-duplicates", action="store_true", help="defect: the webhook answers 409 to a repeated delivery"
    )
    parser.add_argument("--no-dedup", action="store_true", help="defect: fold a repeated notification in again")
    parser.add_argument("--any-task", action="store_true", help="defect: accept and fold notifications about any task")
    parser.add_argument(
        "--last-wins", action="store_true", help="defect: the last notification to arrive sets the task's state"
    )
    parser.add_argument(
        "--v1-notifications-only", action="store_true", help="defect: the webhook refuses 0.3 Task bodies (400)"
    )
    parser.add_argument(
        "--v03-notifications-only", action="store_true", help="defect: the webhook refuses 1.0 StreamResponses (400)"
    )
    parser.add_argument(
        "--wrong-config-params",
        action="store_true",
        help="defect: name push configs in the other version's spelling (1.0 {taskId, id} vs 0.3 {id, ...ConfigId})",
    )
    parser.add_argument("--no-resume", action="store_true", help="defect: give up when a stream drops")
    parser.add_argument("--skip-verification", action="store_true", help="defect: never verify the card's signature")
    parser.add_argument(
        "--no-strip-defaults",
        action="store_true",
        help="defect: verify over the card as served, not its canonical form",
    )
    parser.add_argument("--naive-sse", action="store_true", help="defect: take every stream line for `data: <json>`")
    parser.add_argument(
        "--sse-only",
        action="store_true",
        help="defect: parse any streaming answer as SSE, whatever its Content-Type, and take a stream that ends "
        "without an event for a finished one",
    )
    parser.add_argument(
        "--lax-events",
        action="store_true",
        help="defect: take `result` from any stream event, even one that is not a JSON-RPC response",
    )
    parser.add_argument(
        "--strict-stream",
        action="store_true",
        help="defect: fail a stream that repeats an event or does not start with a task",
    )
    parser.add_argument("--ignore-stream-errors", action="store_true", help="defect: skip error events in a stream")
    parser.add_argument(
        "--ignore-final", action="store_true", help="defect: read a 0.3 stream on after `final: true`, to its end"
    )
    parser.add_argument(
        "--task-once", action="store_true", help="defect: fail a stream that sends a Task once the task is known"
    )
    parser.add_argument(
        "--discard-unterminated",
        action="store_true",
        help="drop an event that EOF cut off before its blank line (WHATWG SSE; a follow-up GetTask learns the end)",
    )
    parser.add_argument(
        "--v1-events-only", action="store_true", help="defect: read only 1.0 wrapper events (not 0.3 `kind` events)"
    )
    parser.add_argument("--no-follow-up", action="store_true", help="defect: never GetTask a task left unfinished")
    parser.add_argument(
        "--interrupted-as-failure", action="store_true", help="defect: report INPUT_REQUIRED / AUTH_REQUIRED as failed"
    )
    parser.add_argument("--optimistic", action="store_true", help="defect: report any failure as a completed task")
    parser.add_argument("url", nargs="?", help="the card URL (or a base URL)")
    args = parser.parse_args(argv)
    url = args.url or os.environ.get("A2A_LAB_CARD_URL", "")
    if "/.well-known/" not in url:
        url = url.rstrip("/") + WELL_KNOWN
    client = Client(args, url)
    try:
        outcome = client.run()
    except (Failure, httpx.HTTPError) as exc:
        print(f"action_client: {exc}", file=sys.stderr)
        outcome = {"kind": "error", "state": None, "text": str(exc)}
        if args.optimistic:
            outcome = {"kind": "task", "state": "TASK_STATE_COMPLETED", "text": ""}
    finally:
        client.close()
    if args.interrupted_as_failure and short(outcome.get("state")) in INTERRUPTED:
        outcome = {**outcome, "state": "TASK_STATE_FAILED"}
    path = os.environ.get("A2A_LAB_RESULT")
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(outcome, fh)
    return 0


def console() -> int:
    """The script's entry point, its arguments from sys.argv (tests/harness/client_launch.py forks it from a zygote)."""
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(console())
