"""A small, configurable A2A client for proving the harness's checks: correct by default, wrong on request.

Usage: fake_client.py [--defect NAME ...] [--binding jsonrpc|http+json ...] [options] CARD_URL

It deliberately imports nothing from a2a_lab: it is an independent client, written from the spec, that the
harness runs like any other. By default it fetches the card, picks the first interface (card order) whose
binding it supports and whose version is 1.0 or 0.3 (an absent version is 0.3), sends one message in that
version's shape, follows a non-terminal task with polite GetTask polling (>= 100 ms apart, at most 10 times)
until a terminal or interrupted state, and writes {"kind", "state", "text"} to A2A_LAB_RESULT. It falls back
to the legacy /.well-known/agent.json when the card path answers 404, reads at most 64 KiB of card, refuses
JSON-RPC responses that are not answers to its request (wrong id, both or neither of result and error), and
reports an error when a call ends in one. Asked (A2A_LAB_ACTION follow_up) to continue a task, it sends the
text with the task's taskId and contextId once the task stops; asked for a new_message, it sends one with no
taskId once the first answer stopped; asked to cancel, it sends CancelTask for the open task (--cancel-after).
Each `--defect` switches on one specific mistake (see DEFECTS). Over https it trusts the CA in A2A_LAB_CA_FILE,
presents the client certificate of A2A_LAB_CLIENT_CERT_FILE when given one, and refuses the plain-http interfaces
of a card read over https.
`--generation 0.3` makes it a genuine 0.3 client: it reads only the card's `url`, `preferredTransport`,
`additionalInterfaces` and top-level `protocolVersion` (0.3 §5.6), never `supportedInterfaces`, refuses a card
without `url` (as a 0.3 card model does), and speaks only 0.3.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import ssl
import subprocess
import sys
import time
import traceback
import urllib.parse
from typing import Any

import httpx

WELL_KNOWN = "/.well-known/agent-card.json"
LEGACY_PATH = "/.well-known/agent.json"
CARD_LIMIT = 64 * 1024
USER_AGENT = "a2a-lab-fake-client/1.0"
POLL_GAP_S = 0.1
MAX_POLLS = 10
#: Answers no retry will change: method not found, version not supported (JSON-RPC codes; gRPC status / reason;
#: ROUTE_NOT_FOUND: an HTTP+JSON 404/405 for the route itself, see rest_dead_end).
DEAD_END_CODES = (-32601, -32009, "UNIMPLEMENTED", "VERSION_NOT_SUPPORTED", "ROUTE_NOT_FOUND")
STOPS = {"completed", "failed", "canceled", "cancelled", "rejected", "input-required", "auth-required"}
#: The spellings the `exact-states` defect knows: 1.0 ProtoJSON names and 0.3 JSON-RPC names.
EXACT_STATES = {
    *(f"TASK_STATE_{s.upper().replace('-', '_')}" for s in STOPS - {"cancelled"}),
    *(STOPS - {"cancelled"}),
}
INTERRUPTED = {"input-required", "auth-required"}
#: ErrorInfo reasons (§10.6) and the A2A codes they name; what a client reading the status alone takes them for.
REASON_CODES = {
    "TASK_NOT_FOUND": -32001,
    "TASK_NOT_CANCELABLE": -32002,
    "PUSH_NOTIFICATION_NOT_SUPPORTED": -32003,
    "UNSUPPORTED_OPERATION": -32004,
}
GRPC_STATUS_CODES = {"NOT_FOUND": -32001, "FAILED_PRECONDITION": -32002}


class CardModelError(ValueError):
    """What a strict card model raises on a field the spec makes optional (the crash-after-card defect)."""


DEFECTS = {
    "api-key-wrong-place": "send the API key in a header when the card says query or cookie, else in the query",
    "token-to-wrong-origin": (
        "set the credentials on the whole HTTP session: they go with every request, the card fetch and the token "
        "endpoint (another origin) included"
    ),
    "credentials-to-card-origin": (
        "send to the interface's path on the card's own origin (as card-origin does) and present the credentials "
        "there too, as if the card's origin were the agent's"
    ),
    "token-per-request": "fetch a new access token before every A2A call",
    "token-without-scope": "ask the token endpoint for a token without the scopes the card's requirement names",
    "no-card": "skip the card fetch and guess the endpoint ({base}/a2a, JSON-RPC 1.0)",
    "legacy-card-path": "read only /.well-known/agent.json and, when that fails, guess the endpoint as no-card does",
    "wrong-header": "send A2A-Version: 0.3 on 1.0 calls",
    "no-header": "send no A2A-Version on 1.0 calls",
    "patch-header": "send A2A-Version: 1.0.1 on 1.0 calls",
    "v03-body-under-v1": "send a 0.3-shaped message (role user, kind fields) as SendMessage with A2A-Version 1.0",
    "v1-method-on-v03": "send 1.0 SendMessage (1.0 shape and header) to a 0.3 interface",
    "v03-methods-on-v1": "speak 0.3 (method names, shapes, no A2A-Version) to every interface, 1.0 ones included",
    "ignore-interfaces": (
        "use the last entry of supportedInterfaces (or the top-level url) instead of the first supported one"
    ),
    "poll-after-message": "call GetTask after a direct message answer",
    "get-task-loop": "poll GetTask 50 times with no delay, even after the task completed",
    "no-follow-up": "never poll a task, whatever its state",
    "stream-without-capability": "call SendStreamingMessage even when capabilities.streaming is not true",
    "abandon-unknown-event": "close a stream at an event of a kind it does not know and report an error",
    "retry-loop": "repeat a call that answered -32601/-32009 five times",
    "no-fallback": "give up at the first method-not-found instead of trying the next interface",
    "bad-envelope": 'send "jsonrpc": "1.0"',
    "no-id": "send JSON-RPC requests without an id",
    "null-id": 'send JSON-RPC requests with "id": null',
    "wrong-content-type": "send bodies as text/plain",
    "get-with-body": "send HTTP+JSON GET requests (GetTask) with a JSON body instead of query parameters",
    "no-message-id": "send messages without messageId",
    "duplicate-message-id": "send two different messages with the same messageId",
    "wrong-url": "post to {base}/wrong instead of the interface URL",
    "print-answer": "print the answer's text and task id on stdout, as a command-line client shows its user the reply",
    "wrong-result": "write a result whose state and text differ from what the server sent",
    "garbled-result": "write an A2A_LAB_RESULT that is not JSON",
    "nested-result": "write an A2A_LAB_RESULT nested 500 000 levels deep (1 MB)",
    "directory-result": "make A2A_LAB_RESULT a directory",
    "result-without-text": "write the right kind and state in A2A_LAB_RESULT, but no text",
    "result-without-state": "write a result with kind and text but no state, as many client libraries report an answer",
    "interrupted-as-failure": "report an INPUT_REQUIRED / AUTH_REQUIRED task as failed",
    "hang": "sleep forever after the card fetch (with a sleeping child)",
    "no-timeout": "wait for every answer without a read timeout (hangs on an agent that never answers)",
    "impatient": "give up on any answer after 0.5 s (a sub-second timeout)",
    "crash": "exit 3 with a traceback before any call",
    "never-connect": "exit 0 without any request",
    "flood": "send hundreds of requests as fast as possible",
    "fork-and-exit": "spawn a sleeping child in the same process group, then exit",
    "big-stdout": "write about 50 MB to stdout, then behave",
    # discovery
    "guess-without-card": (
        "when the card cannot be fetched or read (404, not JSON, too large), guess the endpoint as no-card does"
    ),
    "any-version": "read an interface version the client does not know (0.2.5, banana) as 0.3",
    "no-version-as-1.0": "read an interface without protocolVersion as 1.0 (as the a2a-sdk does), not 0.3",
    "exact-version": 'recognise only the exact strings "1.0" and "0.3" (a patch version such as "1.0.1" is unknown)',
    "prefer-1.0": "prefer a 1.0 interface over the card's order (as the a2a-sdk does)",
    "own-binding-order": "rank interfaces by the client's own --binding order first, the card's order second",
    "top-level-first": "on a card with 0.3 top-level fields, use url/protocolVersion before supportedInterfaces",
    "first-interface": "take supportedInterfaces[0] whatever its binding, and speak JSON-RPC to it",
    "refuse-other-origin": (
        "refuse, as a local security policy, every interface on another origin than the card's (and report an error)"
    ),
    "card-origin": "send to the interface's path on the card's own origin, whatever host the interface URL names",
    "reject-unknown-fields": "validate strictly: refuse a card or an answer holding a member the spec does not define",
    "no-redirects": "do not follow a redirect when fetching the card (an httpx client's default)",
    "exact-states": (
        "know a state only by its exact 1.0 or 0.3 JSON-RPC name: TASK_STATE_CANCELLED (the old proto's spelling) is "
        "not terminal"
    ),
    # responses
    "text-only-parts": "give up (report an error) on an answer holding a part that is not text",
    "failed-as-error": "report a FAILED or REJECTED task as an error instead of a task",
    "stale-task-on-error": "when a GetTask follow-up fails, report the last task state seen instead of the error",
    "follow-up-new-task": "send the follow-up (A2A_LAB_ACTION follow_up) as a new message without taskId or contextId",
    "follow-up-wrong-context": "send the follow-up with the right taskId but a contextId of the client's own",
    "follow-up-unknown-task": "send the follow-up with a taskId of the client's own",
    "follow-up-no-context": "send the follow-up with the taskId but without the task's contextId",
    "new-message-bound": "send the unrelated new message (A2A_LAB_ACTION new_message) with the earlier task's taskId",
    "cancel-unknown-task": "send CancelTask (A2A_LAB_ACTION cancel) with a task id of the client's own",
    "assume-canceled": "report the task CANCELED once CancelTask is sent, whatever the agent answered",
    "failure-as-empty-success": "report a FAILED, CANCELED or REJECTED task without artifacts as an empty message",
    "grpc-status-only": "read a gRPC error by its status alone, not its ErrorInfo (FAILED_PRECONDITION as -32002)",
    "first-status-part": "read the first part of a SUBMITTED task's status message (IndexError on an empty list)",
    "invent-context-id": "send the first message with a contextId of the client's own (as 0.3 libraries do)",
    "subscribe-no-fallback": (
        "follow a task by SubscribeToTask (tasks/resubscribe) and give up when it is refused, without GetTask"
    ),
    # errors
    "assume-success": "report an error or unreadable answer as an (empty) message",
    "lax-response": "take `result` from any JSON-RPC response: ignore its id and an `error` beside it",
    "refuse-card": "read the card, then give up without a call, as if it offered no interface the client supports",
    "crash-after-card": (
        "read the card, then exit 1 with a traceback before any call, as a client whose strict card model raises on a "
        "field the spec makes optional does"
    ),
    "read-supported-interfaces": (
        "as a --generation 0.3 client, take the first 0.3 entry of supportedInterfaces instead of the card's url"
    ),
    "guess-other-version": (
        "after a dead end (-32601/-32009) on the last interface, retry its URL with the other version"
    ),
    # spec revisions (notes D3, D5)
    "ignore-content-encoding": (
        "offer gzip (httpx's default Accept-Encoding) but parse bodies as they came, without undoing Content-Encoding"
    ),
    "strip-trailing-slash": "normalise a JSON-RPC interface URL by stripping its trailing slash",
    "history-reply": (
        "ask for historyLength 1 and take the task's reply from its first history message (history[0]), trusting "
        "the server to have kept only the latest"
    ),
    "wrapper-only": (
        "read a 1.0 SendMessage result only by its `task` or `message` member (a 0.3 bare task with `kind` counts as "
        "unreadable)"
    ),
    "a2a-json-only": (
        "refuse an HTTP+JSON 1.0 answer that is not application/a2a+json (v1.0.1's SHOULD read as a MUST: a v1.0.0 "
        "server's application/json is unreadable)"
    ),
    # transport security (tls/ scenarios)
    "no-verify": "skip TLS certificate verification (accept any certificate)",
    "follow-downgrade": "follow an https card to its plain-http interfaces",
    "no-client-cert": "never present the client certificate (A2A_LAB_CLIENT_CERT_FILE), even when asked",
    "client-cert-first-call-only": (
        "present the client certificate for the first call only (GetTask follows on a new connection without it)"
    ),
    "assume-generations": (
        "long-poll every GetTask with currentGeneration 1 (spec 1.1 draft), whether the agent gave the task a "
        "generation or not"
    ),
    "generation-ahead": (
        "long-poll GetTask with a currentGeneration one above the latest generation the agent gave the task"
    ),
    "stale-generation": (
        "guard the follow-up with an ifGenerationMatch one below the latest generation the agent gave the task"
    ),
    "mismatch-blind-retry": (
        "after TaskGenerationMismatchError, send the same follow-up again at once, without re-reading the task"
    ),
    "gateway-retry": (
        "take an HTTP+JSON 502, 503 or 504 for a gateway's transient failure and repeat the call at once, up to 50 "
        "times, without reading the body (a v1.0.0 server answers InvalidAgentResponse as 502)"
    ),
    # the field's client-breaking quirks (tests/harness/test_field_quirks.py)
    "interface-map": (
        "gather the supported interfaces into a map keyed by binding and version: of two alike, the later entry "
        "overwrites the earlier (a2a-js#734)"
    ),
    "route-in-url": (
        "read an interface url that ends in a method route (.../message:stream) as a base plus that route, and post "
        "each call to the base plus the route of the method sent (.../message:send)"
    ),
    "artifacts-only": "read a task's answer from its artifacts alone, never from its status message",
    "card-under-interface-url": (
        "after reading the card, look for it again under the chosen interface's url ({url}/.well-known/"
        "agent-card.json), as a registry that takes the endpoint for the agent's base does, and give up when that fails"
    ),
    "card-at-origin-root": (
        "keep only the origin of the card URL it was given and fetch the card at the origin's root "
        "({origin}/.well-known/agent-card.json), as a client that builds every card URL so does (api7/aisix#913)"
    ),
    "supported-interfaces-only": (
        "as a 1.0 client, read only supportedInterfaces: a 0.3 card (top-level url) offers it nothing (a2a-js#601)"
    ),
}


#: The members the spec defines (1.0 and 0.3), for the reject-unknown-fields defect.
KNOWN_MEMBERS = {
    "card": {
        "name",
        "description",
        "supportedInterfaces",
        "provider",
        "version",
        "documentationUrl",
        "capabilities",
        "securitySchemes",
        "securityRequirements",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
        "signatures",
        "iconUrl",
        "protocolVersion",
        "url",
        "preferredTransport",
        "additionalInterfaces",
        "supportsAuthenticatedExtendedCard",
        "security",
    },
    "supportedInterfaces": {"url", "protocolBinding", "protocolVersion", "tenant"},
    "capabilities": {"streaming", "pushNotifications", "extensions", "extendedAgentCard", "stateTransitionHistory"},
    "provider": {"url", "organization"},
    "skills": {
        "id",
        "name",
        "description",
        "tags",
        "examples",
        "inputModes",
        "outputModes",
        "securityRequirements",
        "security",
    },
    "answer": {
        "kind",
        "id",
        "contextId",
        "status",
        "artifacts",
        "history",
        "metadata",
        "messageId",
        "role",
        "parts",
        "taskId",
        "referenceTaskIds",
        "extensions",
        "content",
    },
}


def unknown_members(card: dict[str, Any]) -> list[str]:
    found = [k for k in card if k not in KNOWN_MEMBERS["card"]]
    for key in ("supportedInterfaces", "skills"):
        for entry in card.get(key) or []:
            found += [f"{key}.{k}" for k in (entry if isinstance(entry, dict) else {}) if k not in KNOWN_MEMBERS[key]]
    for key in ("capabilities", "provider"):
        value = card.get(key)
        found += [f"{key}.{k}" for k in (value if isinstance(value, dict) else {}) if k not in KNOWN_MEMBERS[key]]
    return found


class KeptEncoding(httpx.BaseTransport):
    """The `ignore-content-encoding` defect: answers reach the client with their Content-Encoding header dropped, so
    httpx hands over the bytes as they came (gzip stays gzip), while the request still offers httpx's default
    Accept-Encoding."""

    def __init__(self, verify: ssl.SSLContext | bool) -> None:
        self.inner = httpx.HTTPTransport(verify=verify)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        resp = self.inner.handle_request(request)
        headers = [(k, v) for k, v in resp.headers.raw if k.lower() != b"content-encoding"]
        return httpx.Response(resp.status_code, headers=headers, stream=resp.stream, extensions=resp.extensions)

    def close(self) -> None:
        self.inner.close()


class CardProblem(Exception):
    """The card cannot be had or used."""


class Defects:
    def __init__(self, names: list[str]) -> None:
        unknown = [n for n in names if n not in DEFECTS]
        if unknown:
            raise SystemExit(f"fake_client: unknown defect(s) {unknown}; known: {', '.join(DEFECTS)}")
        self.names = set(names)

    def __contains__(self, name: str) -> bool:
        return name in self.names


# ------------------------------------------------------------------------------------------ the card


def major_minor(value: Any, defects: Defects | None = None) -> str | None:
    """An interface's version as Major.Minor; absent means 0.3."""
    defects = defects or Defects([])
    if value is None or str(value).strip() == "":
        return "1.0" if "no-version-as-1.0" in defects else "0.3"
    text = str(value).strip()
    if "exact-version" in defects:
        return text if text in ("1.0", "0.3") else None
    parts = text.split(".")
    known = f"{int(parts[0])}.{int(parts[1])}" if len(parts) >= 2 and all(p.isdigit() for p in parts[:2]) else None
    if known not in ("1.0", "0.3") and "any-version" in defects:
        return "0.3"
    return known


def binding_name(value: Any) -> str:
    text = str(value or "").strip().upper()
    return {
        "JSONRPC": "jsonrpc",
        "JSON-RPC": "jsonrpc",
        "HTTP+JSON": "http+json",
        "REST": "http+json",
        "GRPC": "grpc",
    }.get(text, text.lower())


def interfaces(card: dict[str, Any], defects: Defects | None = None, generation: str = "1.0") -> list[dict[str, Any]]:
    """The card's interfaces in its own order: {url, binding, version, tenant}. A 0.3 client's card model has no
    supportedInterfaces: it reads the top-level url, preferredTransport and additionalInterfaces only."""
    defects = defects or Defects([])
    out: list[dict[str, Any]] = []
    listed = card.get("supportedInterfaces")
    if generation == "0.3" and "read-supported-interfaces" in defects and isinstance(listed, list):
        return [i for i in interfaces(card, defects) if i["version"] == "0.3"][:1]
    if generation == "0.3":
        listed = None
    elif "supported-interfaces-only" in defects and not isinstance(listed, list):
        return []
    if isinstance(listed, list) and not ("top-level-first" in defects and isinstance(card.get("url"), str)):
        for entry in listed:
            if isinstance(entry, dict):
                out.append(
                    {
                        "url": str(entry.get("url", "")),
                        "binding": binding_name(entry.get("protocolBinding")),
                        "version": major_minor(entry.get("protocolVersion"), defects),
                        "tenant": entry.get("tenant") or None,
                    }
                )
        return out
    if isinstance(card.get("url"), str):
        version = major_minor(card.get("protocolVersion"), defects)
        main = binding_name(card.get("preferredTransport") or "JSONRPC")
        out.append({"url": card["url"], "binding": main, "version": version, "tenant": None})
        for entry in card.get("additionalInterfaces") or []:
            if isinstance(entry, dict) and (entry.get("url"), binding_name(entry.get("transport"))) != (
                card["url"],
                main,
            ):
                out.append(
                    {
                        "url": str(entry.get("url", "")),
                        "binding": binding_name(entry.get("transport")),
                        "version": version,
                        "tenant": None,
                    }
                )
    return out


# ------------------------------------------------------------------------------------------ the client


# ------------------------------------------------------------------------------------------ credentials


def _origin(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}".lower()


def read_schemes(card: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The card's securitySchemes flattened to {type, in, name, scheme, tokenUrl, openIdConnectUrl} (1.0 or 0.3)."""
    out: dict[str, dict[str, Any]] = {}
    raw: dict[str, Any] = card["securitySchemes"] if isinstance(card.get("securitySchemes"), dict) else {}
    kinds = {
        "apiKeySecurityScheme": "apiKey",
        "httpAuthSecurityScheme": "http",
        "oauth2SecurityScheme": "oauth2",
        "openIdConnectSecurityScheme": "openIdConnect",
    }
    for name, scheme in raw.items():
        if not isinstance(scheme, dict):
            continue
        flat: dict[str, Any] = dict(scheme)
        for member, kind in kinds.items():
            if isinstance(scheme.get(member), dict):
                flat = {**scheme[member], "type": kind, "in": scheme[member].get("location")}
        flows: dict[str, Any] = flat["flows"] if isinstance(flat.get("flows"), dict) else {}
        cc: dict[str, Any] = flows["clientCredentials"] if isinstance(flows.get("clientCredentials"), dict) else {}
        flat["tokenUrl"] = cc.get("tokenUrl")
        out[str(name)] = flat
    return out


def read_requirements(card: dict[str, Any]) -> list[dict[str, list[str]]]:
    if isinstance(card.get("securityRequirements"), list):
        return [
            {k: list((v or {}).get("list", [])) for k, v in (r.get("schemes") or {}).items()}
            for r in card["securityRequirements"]
            if isinstance(r, dict)
        ]
    return [r for r in card.get("security") or [] if isinstance(r, dict)]


class FakeAuth(httpx.Auth):
    """Presents the first requirement of the card it holds credentials for, as the schemes say (bugs on request)."""

    def __init__(self, card: dict[str, Any], creds: dict[str, str], token: str | None, defects: Defects) -> None:
        self.schemes, self.creds, self.static, self.defects = read_schemes(card), creds, token, defects
        self.access: str | None = None
        self.requirement: dict[str, list[str]] = {}
        for req in read_requirements(card) or [{n: [] for n in self.schemes}]:
            if all(self.holds(self.schemes.get(n, {})) for n in req):
                self.requirement = req
                break
        ifaces: list[Any] = card["supportedInterfaces"] if isinstance(card.get("supportedInterfaces"), list) else []
        self.origins = {_origin(i["url"]) for i in ifaces if isinstance(i, dict) and isinstance(i.get("url"), str)}
        if isinstance(card.get("url"), str):
            self.origins.add(_origin(card["url"]))

    def holds(self, scheme: dict[str, Any]) -> bool:
        kind = scheme.get("type")
        if kind == "apiKey":
            return "apiKey" in self.creds
        if kind == "http":
            return ("username" in self.creds) if str(scheme.get("scheme")).lower() == "basic" else bool(self.static)
        return kind in ("oauth2", "openIdConnect") and "client_secret" in self.creds

    def token_request(self, name: str) -> httpx.Request:
        scheme = self.schemes[name]
        url = scheme.get("tokenUrl") or ""
        scopes = [] if "token-without-scope" in self.defects else self.requirement.get(name, [])
        form = {"grant_type": "client_credentials", **({"scope": " ".join(scopes)} if scopes else {})}
        headers = {"Accept": "application/json"}
        if "token-to-wrong-origin" in self.defects and self.access:
            form |= {"client_id": self.creds.get("client_id", ""), "client_secret": self.creds["client_secret"]}
            headers["Authorization"] = f"Bearer {self.access}"
        else:
            pair = f"{self.creds.get('client_id', '')}:{self.creds.get('client_secret', '')}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        return httpx.Request("POST", url, data=form, headers=headers)

    def auth_flow(self, request: httpx.Request) -> Any:
        if _origin(str(request.url)) not in self.origins and "token-to-wrong-origin" not in self.defects:
            yield request
            return
        tokens = [n for n in self.requirement if self.schemes.get(n, {}).get("type") == "oauth2"]
        for name in tokens:
            if self.access is None or "token-per-request" in self.defects:
                got = yield self.token_request(name)
                got.read()
                self.access = got.json().get("access_token")
        self.apply(request)
        response = yield request
        if response.status_code == 401 and tokens:
            got = yield self.token_request(tokens[0])
            got.read()
            self.access = got.json().get("access_token")
            retry = httpx.Request(request.method, request.url, headers=request.headers, content=request.content)
            self.apply(retry)
            yield retry

    def apply(self, request: httpx.Request) -> None:
        for name in self.requirement:
            scheme = self.schemes.get(name, {})
            kind = scheme.get("type")
            if kind == "apiKey":
                where, key = scheme.get("in"), self.creds["apiKey"]
                if "api-key-wrong-place" in self.defects:
                    where = "header" if where != "header" else "query"
                if where == "header":
                    request.headers[scheme.get("name") or "X-API-Key"] = key
                elif where == "query":
                    request.url = request.url.copy_merge_params({scheme.get("name") or "api_key": key})
                else:
                    request.headers["Cookie"] = f"{scheme.get('name')}={key}"
            elif kind == "http" and str(scheme.get("scheme")).lower() == "basic":
                pair = f"{self.creds['username']}:{self.creds.get('password', '')}".encode()
                request.headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
            elif kind == "http":
                request.headers["Authorization"] = f"Bearer {self.static}"
            elif self.access:
                request.headers["Authorization"] = f"Bearer {self.access}"


class Client:
    def __init__(self, args: argparse.Namespace, card_url: str) -> None:
        self.args = args
        self.defects = Defects(args.defect or [])
        if "card-at-origin-root" in self.defects:
            card_url = _origin(card_url) + WELL_KNOWN
        self.card_url = card_url
        self.base = card_url.split("/.well-known/", 1)[0]
        timeout = None if "no-timeout" in self.defects else 0.5 if "impatient" in self.defects else 5.0
        verify = self.tls_verify()
        self.http = httpx.Client(
            timeout=timeout,
            trust_env=False,
            headers={"User-Agent": USER_AGENT},
            verify=verify,
            transport=KeptEncoding(verify) if "ignore-content-encoding" in self.defects else None,
        )
        self.rpc_id = 0
        self.message_count = 0
        #: The latest task generation an answer carried (spec 1.1 draft), for the generation-ahead defect.
        self.generation_seen = 0
        #: The task was re-read after a TaskGenerationMismatchError: its generation is fresh.
        self.refetched = False
        self.last_message: dict[str, Any] = {}
        self.scenario = os.environ.get("A2A_LAB_SCENARIO", "")
        self.text = os.environ.get("A2A_LAB_MESSAGE", "hello")
        try:
            action = json.loads(os.environ.get("A2A_LAB_ACTION") or "{}")
        except ValueError:
            action = {}
        self.action: dict[str, Any] = action if isinstance(action, dict) and not args.ignore_action else {}

    def tls_verify(self) -> ssl.SSLContext | bool:
        """Verify against the CA the harness hands over (A2A_LAB_CA_FILE), presenting the client certificate when
        one is given; `no-verify` accepts any certificate. Outside TLS scenarios: httpx's own default."""
        if not os.environ.get("A2A_LAB_CA_FILE") and "no-verify" not in self.defects:
            return True
        context = ssl.create_default_context(cafile=os.environ.get("A2A_LAB_CA_FILE") or None)
        if "no-verify" in self.defects:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        cert = os.environ.get("A2A_LAB_CLIENT_CERT_FILE")
        if cert and "no-client-cert" not in self.defects:
            context.load_cert_chain(cert, os.environ.get("A2A_LAB_CLIENT_KEY_FILE") or None)
        return context

    # -------------------------------------------------------------------- wire

    def headers(self, iface: dict[str, Any]) -> dict[str, str]:
        rest = iface["binding"] == "http+json"
        version = iface["version"]
        headers = {"Content-Type": ("application/a2a+json" if rest and version == "1.0" else "application/json")}
        if "wrong-content-type" in self.defects:
            headers["Content-Type"] = "text/plain"
        if version == "1.0":
            value: str | None = "1.0"
            if "wrong-header" in self.defects:
                value = "0.3"
            elif "patch-header" in self.defects:
                value = "1.0.1"
            elif "no-header" in self.defects:
                value = None
            if value is not None:
                headers["A2A-Version"] = value
        return headers

    def url_of(self, iface: dict[str, Any]) -> str:
        if "wrong-url" in self.defects:
            return self.base + "/wrong"
        if "card-origin" in self.defects or "credentials-to-card-origin" in self.defects:
            _, _, rest = iface["url"].partition("://")
            return self.base + "/" + rest.partition("/")[2].rstrip("/")
        # A JSON-RPC URL is the endpoint itself, trailing slash and all; an HTTP+JSON one is a base for the routes.
        if "route-in-url" in self.defects:
            head, sep, _route = str(iface["url"]).rpartition("/message:")
            if sep:
                return f"{head}/message:send"  # the route of the call the client makes (it does not stream)
        if iface["binding"] == "jsonrpc" and "strip-trailing-slash" not in self.defects:
            return str(iface["url"])
        return str(iface["url"]).rstrip("/")

    def tenant_of(self, iface: dict[str, Any]) -> str | None:
        if self.args.send_tenant:
            return "intruder"
        if self.args.drop_tenant:
            return None
        return iface.get("tenant")

    def rpc(self, iface: dict[str, Any], method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.rpc_id += 1
        tenant = self.tenant_of(iface)
        if tenant:
            params = {**params, "tenant": tenant}
        if iface["binding"] == "grpc":
            return self.grpc_call(iface, method, params)
        body: dict[str, Any] = {
            "jsonrpc": "1.0" if "bad-envelope" in self.defects else "2.0",
            "method": method,
            "params": params,
        }
        if "no-id" not in self.defects:
            body["id"] = None if "null-id" in self.defects else self.rpc_id
        resp = self.http.post(self.url_of(iface), content=json.dumps(body).encode(), headers=self.headers(iface))
        try:
            data = resp.json()
        except ValueError:
            return {"error": {"code": resp.status_code, "message": resp.text[:200]}}
        if not isinstance(data, dict):
            return {"error": {"code": 0, "message": "not an object"}}
        if "lax-response" in self.defects:
            return {"result": data["result"]} if "result" in data else data
        # A JSON-RPC 2.0 response answers this request: the same id, exactly one of result and error.
        if data.get("jsonrpc") != "2.0" or data.get("id") != body.get("id") or ("result" in data) == ("error" in data):
            return {
                "error": {
                    "code": None,
                    "message": f"not a JSON-RPC response to request {body.get('id')!r}: {json.dumps(data)[:120]}",
                }
            }
        return data

    def grpc_call(
        self, iface: dict[str, Any], method: str, params: dict[str, Any], stream: bool = False
    ) -> dict[str, Any]:
        """A gRPC call (spec §10) to `host:port` (the card's url), the A2A-Version as `a2a-version` metadata; the
        answer as ProtoJSON ({"result"}, {"stream"} or {"error": {"code": status name, "message", "reason"}})."""
        import grpc  # a2a-sdk[grpc]
        from a2a.types import a2a_pb2
        from google.protobuf import json_format
        from google.rpc import error_details_pb2, status_pb2

        service = a2a_pb2.DESCRIPTOR.services_by_name["A2AService"]
        rpc = service.methods_by_name[method]
        request = getattr(a2a_pb2, rpc.input_type.name)()
        json_format.ParseDict(params, request, ignore_unknown_fields=True)
        answer_type = rpc.output_type
        address = iface["url"]
        if "wrong-url" in self.defects:
            address = self.base.split("://", 1)[1]  # the HTTP origin, as if gRPC lived there
        headers = self.headers(iface)
        metadata = [("a2a-version", headers["A2A-Version"])] if "A2A-Version" in headers else []
        timeout = None if "no-timeout" in self.defects else 0.5 if "impatient" in self.defects else 5.0

        def decode(data: bytes) -> dict[str, Any]:
            if answer_type.full_name == "google.protobuf.Empty":
                return {}
            msg = getattr(a2a_pb2, answer_type.name)()
            msg.ParseFromString(data)
            out: dict[str, Any] = json_format.MessageToDict(msg)
            return out

        with grpc.insecure_channel(address) as opened:
            channel: Any = opened  # the calls below are built by name, as grpcio's stubs cannot type them
            path = f"/{service.full_name}/{method}"
            try:
                if stream:
                    call = channel.unary_stream(path, request_serializer=lambda m: m.SerializeToString())
                    events: list[dict[str, Any]] = []
                    try:
                        for data in call(request, metadata=metadata, timeout=timeout):
                            events.append(decode(data))
                    except grpc.RpcError:
                        if not events:
                            raise
                        return {"stream": events, "broken": True}  # the task may go on: follow it up
                    return {"stream": events}
                unary = channel.unary_unary(path, request_serializer=lambda m: m.SerializeToString())
                data = unary(request, metadata=metadata, timeout=timeout)
                if data is None:  # the call ended OK without its message
                    return {"error": {"code": "OK", "message": "the call ended without an answer message"}}
                return {"result": decode(data)}
            except grpc.RpcError as exc:
                error: dict[str, Any] = {"code": exc.code().name, "message": exc.details()}
                trailers: Any = exc.trailing_metadata() or ()
                for key, value in trailers:
                    if key == "grpc-status-details-bin":
                        status = status_pb2.Status.FromString(value)
                        for detail in status.details:
                            info = error_details_pb2.ErrorInfo()
                            if detail.Unpack(info):
                                error["reason"] = info.reason
                                if info.reason == "VERSION_NOT_SUPPORTED":
                                    error["code"] = info.reason
                return {"error": error}

    def rest(self, iface: dict[str, Any], verb: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        tenant = self.tenant_of(iface)
        prefix = "/v1" if iface["version"] == "0.3" else (f"/{tenant}" if tenant else "")
        url = self.url_of(iface) + prefix + path
        headers = self.headers(iface)
        if body is None and verb == "GET" and "get-with-body" in self.defects:
            body = {"historyLength": 1}
        content = json.dumps(body).encode() if body is not None else None
        if content is None:
            headers.pop("Content-Type", None)
        resp = self.http.request(verb, url, content=content, headers=headers)
        for _ in range(50 if "gateway-retry" in self.defects else 0):
            if resp.status_code not in (502, 503, 504):
                break
            resp = self.http.request(verb, url, content=content, headers=headers)
        media = resp.headers.get("content-type", "").split(";")[0].strip()
        if "a2a-json-only" in self.defects and iface["version"] == "1.0" and media != "application/a2a+json":
            return {"error": {"code": resp.status_code, "message": f"answer Content-Type {media!r} is not a2a+json"}}
        try:
            data = resp.json()
        except ValueError:
            data = None
        if resp.status_code >= 400 or not isinstance(data, dict):
            error = data.get("error", data) if isinstance(data, dict) else {"code": resp.status_code}
            return {"error": error, "dead_end": self.rest_dead_end(resp.status_code, error)}
        return {"result": data}

    @staticmethod
    def rest_dead_end(status: int, error: Any) -> bool:
        """An HTTP+JSON answer no retry will change: 404/405 for the route itself (method not found), not for a task
        (a TASK_NOT_FOUND reason, or a 0.3 body's JSON-RPC code other than -32601)."""
        if status not in (404, 405) or not isinstance(error, dict) or "TASK_NOT_FOUND" in json.dumps(error):
            return False
        return error.get("code") in (None, 404, 405, -32601)

    # -------------------------------------------------------------------- operations

    def message(self, iface: dict[str, Any], text: str, v1_shape: bool) -> dict[str, Any]:
        self.message_count += 1
        mid = f"fake-{self.scenario.replace('/', '-')}-{self.message_count}"
        if "duplicate-message-id" in self.defects:
            mid = f"fake-{self.scenario.replace('/', '-')}-dup"
        if "no-message-id" in self.defects:
            mid = ""
        rest = iface["binding"] == "http+json"
        if v1_shape and "v03-body-under-v1" not in self.defects:
            return {"role": "ROLE_USER", "parts": [{"text": text}], "messageId": mid}
        if rest:
            return {"role": "ROLE_USER", "content": [{"text": text}], "messageId": mid}
        return {"kind": "message", "role": "user", "parts": [{"kind": "text", "text": text}], "messageId": mid}

    def send(
        self,
        iface: dict[str, Any],
        text: str,
        stream: bool = False,
        again: dict[str, Any] | None = None,
        task_ids: tuple[str, str | None] | None = None,
    ) -> dict[str, Any]:
        """One send (`again`: resend that exact message; `task_ids`: continue that task and context); returns
        {"result"}, {"error"} or, for a stream, {"stream": [events]}."""
        v1 = iface["version"] == "1.0" or "v1-method-on-v03" in self.defects
        if "v1-method-on-v03" in self.defects and iface["version"] == "0.3":
            iface = {**iface, "version": "1.0"}  # 1.0 header and shape too: only the interface is wrong
        self.last_message = again or self.message(iface, text, v1)
        if task_ids is None and "invent-context-id" in self.defects and self.message_count == 1:
            self.last_message = {**self.last_message, "contextId": "fake-client-own-context"}
        if task_ids is not None:
            task_id, context_id = task_ids
            self.last_message = {
                **self.last_message,
                **({"taskId": task_id} if task_id else {}),
                **({"contextId": context_id} if context_id else {}),
            }
        body: dict[str, Any] = {"message": self.last_message}
        if self.args.accepted_output_modes:
            body["configuration"] = {"acceptedOutputModes": ["text/plain", "application/json"]}
        if "history-reply" in self.defects:
            body["configuration"] = {**body.get("configuration", {}), "historyLength": 1}
        if task_ids is not None and "stale-generation" in self.defects and self.generation_seen:
            stale = self.generation_seen - (0 if self.refetched else 1)
            body["configuration"] = {**body.get("configuration", {}), "ifGenerationMatch": stale}
        if iface["binding"] == "http+json":
            return self.rest(iface, "POST", "/message:stream" if stream else "/message:send", body)
        method = (
            ("SendStreamingMessage" if v1 else "message/stream")
            if stream
            else ("SendMessage" if v1 else "message/send")
        )
        if stream:
            return self.stream_rpc(iface, method, body)
        return self.rpc(iface, method, body)

    def stream_rpc(self, iface: dict[str, Any], method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.rpc_id += 1
        if iface["binding"] == "grpc":
            return self.grpc_call(iface, method, params, stream=True)
        body = {"jsonrpc": "2.0", "id": self.rpc_id, "method": method, "params": params}
        headers = {**self.headers(iface), "Accept": "text/event-stream"}
        events: list[Any] = []
        with self.http.stream("POST", self.url_of(iface), content=json.dumps(body).encode(), headers=headers) as resp:
            if "text/event-stream" not in resp.headers.get("content-type", ""):
                resp.read()
                try:
                    return resp.json()
                except ValueError:
                    return {"error": {"code": resp.status_code}}
            for line in resp.iter_lines():
                if line.startswith("data:"):
                    try:
                        events.append(json.loads(line[5:].strip()))
                    except ValueError:
                        pass
                    if "abandon-unknown-event" in self.defects and self.unknown_event(events[-1:]):
                        return {"error": {"code": -32603, "message": "stream event is neither task nor message"}}
        for ev in events:
            if isinstance(ev, dict) and "error" in ev:
                return ev
        return {"stream": [ev.get("result") for ev in events if isinstance(ev, dict)]}

    def subscribe(self, iface: dict[str, Any], task_id: str) -> dict[str, Any]:
        """SubscribeToTask (0.3: tasks/resubscribe), JSON-RPC only: {"stream": events} or {"error": ...}."""
        method = "SubscribeToTask" if iface["version"] == "1.0" else "tasks/resubscribe"
        return self.stream_rpc(iface, method, {"id": task_id})

    def get_task(self, iface: dict[str, Any], task_id: str) -> dict[str, Any]:
        if "client-cert-first-call-only" in self.defects and "no-client-cert" not in self.defects:
            self.defects.names.add("no-client-cert")
            self.http = httpx.Client(
                timeout=5.0, trust_env=False, headers={"User-Agent": USER_AGENT}, verify=self.tls_verify()
            )
        current = self.long_poll_generation()
        if iface["binding"] == "http+json":
            return self.rest(iface, "GET", f"/tasks/{task_id}" + (f"?currentGeneration={current}" if current else ""))
        v1 = iface["version"] == "1.0"
        params = {"id": task_id, **({"currentGeneration": current} if current else {})}
        resp = self.rpc(iface, "GetTask" if v1 else "tasks/get", params)
        if "result" in resp and isinstance(resp["result"], dict) and v1:
            resp = {"result": {"task": resp["result"]}}
        return resp

    def long_poll_generation(self) -> str | None:
        """The currentGeneration a defect sends on GetTask (a correct fake client polls plainly)."""
        if "assume-generations" in self.defects:
            return "1"
        if "generation-ahead" in self.defects and self.generation_seen:
            return str(self.generation_seen + 1)
        return None

    def saw(self, task: dict[str, Any]) -> None:
        value = task.get("generation")
        if isinstance(value, (int, str)) and str(value).isdigit():
            self.generation_seen = int(value)

    # -------------------------------------------------------------------- reading answers

    @staticmethod
    def texts(parts: Any) -> list[str]:
        return [p["text"] for p in parts or [] if isinstance(p, dict) and isinstance(p.get("text"), str)]

    def read(self, result: Any) -> tuple[str, dict[str, Any]] | None:
        """('message', msg) or ('task', task) from a send/get result in any version's form."""
        if not isinstance(result, dict):
            return None
        kind = result.get("kind")
        if kind in ("message", "task"):
            return kind, result
        for key, kind in (("task", "task"), ("message", "message"), ("msg", "message")):
            if isinstance(result.get(key), dict):
                return kind, result[key]
        if "status" in result and "id" in result:
            return "task", result
        return None

    @staticmethod
    def state_of(task: dict[str, Any]) -> str:
        status = task.get("status") or {}
        return str(status.get("state", "")) if isinstance(status, dict) else ""

    def stops(self, state: str) -> bool:
        """Polling ends at this state (terminal or interrupted)."""
        if "exact-states" in self.defects and state not in EXACT_STATES:
            return False
        return self.short(state) in STOPS

    @staticmethod
    def short(state: str) -> str:
        """A state in 0.3 spelling (completed, input-required), whatever form it came in."""
        return state.removeprefix("TASK_STATE_").lower().replace("_", "-")

    def task_text(self, task: dict[str, Any]) -> str:
        texts = [t for a in task.get("artifacts") or [] if isinstance(a, dict) for t in self.texts(a.get("parts"))]
        if "artifacts-only" in self.defects:
            return " ".join(texts)
        status = task.get("status") or {}
        msg = status.get("message") if isinstance(status, dict) else None
        if isinstance(msg, dict):
            texts += self.texts(msg.get("parts") or msg.get("content"))
        return " ".join(texts)

    # -------------------------------------------------------------------- the run

    def choose(self, card: dict[str, Any]) -> list[dict[str, Any]]:
        found = interfaces(card, self.defects, self.args.generation)
        if "refuse-other-origin" in self.defects:
            card_origin = urllib.parse.urlsplit(self.card_url).netloc
            found = [i for i in found if urllib.parse.urlsplit(i["url"]).netloc == card_origin]
        if "v03-methods-on-v1" in self.defects:
            found = [{**i, "version": "0.3"} if i["version"] == "1.0" else i for i in found]
        if "crash-after-card" in self.defects:
            raise CardModelError("AgentCard.capabilities.pushNotifications: field required (strict card model)")
        if "refuse-card" in self.defects:
            return []
        if "ignore-interfaces" in self.defects:
            listed = card.get("supportedInterfaces")
            if isinstance(listed, list) and listed:
                return found[-1:]
            return found[:1]
        if "first-interface" in self.defects and found:
            return [
                {
                    **found[0],
                    "binding": "jsonrpc",
                    "version": found[0]["version"] if found[0]["version"] in ("1.0", "0.3") else "1.0",
                }
            ]
        supported = self.args.binding or ["jsonrpc"]
        spoken = ("0.3",) if self.args.generation == "0.3" else ("1.0", "0.3")
        usable = [i for i in found if i["binding"] in supported and i["version"] in spoken]
        if self.card_url.startswith("https:") and "follow-downgrade" not in self.defects:
            usable = [i for i in usable if not str(i["url"]).startswith("http:")]  # no downgrade to plain http
        if "prefer-1.0" in self.defects:
            usable.sort(key=lambda i: i["version"] != "1.0")  # stable: card order within each version
        if "interface-map" in self.defects:
            by_kind: dict[tuple[str, str | None], dict[str, Any]] = {}
            for i in usable:
                by_kind[(i["binding"], i["version"])] = i  # a key keeps its first place, takes the last value
            usable = list(by_kind.values())
        if "own-binding-order" in self.defects:
            usable.sort(key=lambda i: supported.index(i["binding"]))
        return usable

    def fetch_card(self) -> dict[str, Any]:
        """The card, from the well-known path or (on 404) the legacy one; raises CardProblem when there is none to
        use."""
        follow = "no-redirects" not in self.defects
        resp = self.http.get(self.card_url, headers={"Accept": "application/json"}, follow_redirects=follow)
        if resp.status_code == 404 and "guess-without-card" not in self.defects:
            resp = self.http.get(self.base + LEGACY_PATH, headers={"Accept": "application/json"})
        if resp.status_code != 200:
            raise CardProblem(f"no card: HTTP {resp.status_code}")
        if self.args.card_limit and len(resp.content) > self.args.card_limit:
            raise CardProblem(f"the card is {len(resp.content)} bytes, more than {self.args.card_limit}")
        try:
            card = resp.json()
        except ValueError:
            raise CardProblem("the card is not JSON") from None
        if not isinstance(card, dict):
            raise CardProblem("the card is not a JSON object")
        if self.args.generation == "0.3" and not isinstance(card.get("url"), str):
            raise CardProblem("the card has no url: a 0.3 card model cannot parse it (url Field required)")
        if "reject-unknown-fields" in self.defects and unknown_members(card):
            raise CardProblem(f"the card has members the spec does not define: {', '.join(unknown_members(card)[:5])}")
        return card

    def run(self) -> dict[str, Any]:
        guess = "no-card" in self.defects
        if "legacy-card-path" in self.defects:
            # Only the legacy path is tried; its 404 does not stop the client from guessing.
            guess = self.http.get(self.base + "/.well-known/agent.json").status_code != 200
        if guess:
            card: dict[str, Any] = {}
            candidates = [{"url": self.base + "/a2a", "binding": "jsonrpc", "version": "1.0", "tenant": None}]
        else:
            try:
                card = self.fetch_card()
            except CardProblem as problem:
                if "guess-without-card" not in self.defects:
                    return {"kind": "error", "state": None, "text": str(problem)}
                card = {}
                candidates = [{"url": self.base + "/a2a", "binding": "jsonrpc", "version": "1.0", "tenant": None}]
        if not guess and card:
            if "hang" in self.defects:
                if self.args.ignore_sigterm:
                    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # inherited by the child: only SIGKILL ends them
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
                self.write_pids([os.getpid(), child.pid])
                while True:
                    time.sleep(60)
            candidates = self.choose(card)
            creds: dict[str, str] = (
                self.action["credentials"] if isinstance(self.action.get("credentials"), dict) else {}
            )
            if creds or isinstance(self.action.get("token"), str):
                self.http.auth = auth = FakeAuth(card, creds, self.action.get("token"), self.defects)
                if "credentials-to-card-origin" in self.defects:
                    auth.origins.add(_origin(self.base))
        if not candidates:
            return {"kind": "error", "state": None, "text": "no supported interface"}
        if "card-under-interface-url" in self.defects:
            again = self.http.get(str(candidates[0]["url"]).rstrip("/") + WELL_KNOWN)
            if again.status_code != 200:
                return {
                    "kind": "error",
                    "state": None,
                    "text": f"no agent card under the agent's url: {again.status_code}",
                }
        if "flood" in self.defects:
            for _ in range(300):
                self.http.get(self.card_url)
        caps: dict[str, Any] = card["capabilities"] if isinstance(card.get("capabilities"), dict) else {}
        stream = "stream-without-capability" in self.defects or (self.args.stream and caps.get("streaming") is True)
        resp: dict[str, Any] = {}
        iface = candidates[0]
        for iface in candidates:
            resp = self.send(iface, self.text, stream)
            code = (resp.get("error") or {}).get("code") if isinstance(resp.get("error"), dict) else None
            if resp.get("dead_end"):
                code = "ROUTE_NOT_FOUND"
            if code in DEAD_END_CODES and "retry-loop" in self.defects:
                for _ in range(5):
                    resp = self.send(iface, self.text, stream)
            for _ in range(self.args.retries if code is not None and code not in DEAD_END_CODES else 0):
                resp = self.send(iface, self.text, stream, again=self.last_message)  # same message, same messageId
                code = (resp.get("error") or {}).get("code") if isinstance(resp.get("error"), dict) else None
                if code is None:
                    break
            if code not in DEAD_END_CODES or "no-fallback" in self.defects:
                break
        if code in DEAD_END_CODES and "guess-other-version" in self.defects:
            resp = self.send({**iface, "version": "0.3" if iface["version"] == "1.0" else "1.0"}, self.text, stream)
        if self.args.messages > 1 or "duplicate-message-id" in self.defects:
            for n in range(2, max(2, self.args.messages) + 1):
                self.send(iface, f"{self.text} (message {n})")
        outcome, task = self.conclude(iface, resp)
        follow_up = self.action.get("follow_up")
        if isinstance(follow_up, str) and task is not None and self.short(outcome.get("state") or "") in STOPS:
            task_id, context_id = str(task.get("id")), task.get("contextId")
            if "follow-up-new-task" in self.defects:
                task_id, context_id = "", None
            elif "follow-up-wrong-context" in self.defects:
                context_id = "fake-client-own-context"
            elif "follow-up-unknown-task" in self.defects:
                task_id = "fake-client-own-task"
            elif "follow-up-no-context" in self.defects:
                context_id = None
            resp = self.send(iface, follow_up, stream, task_ids=(task_id, context_id))
            if "TASK_GENERATION_MISMATCH" in json.dumps(resp.get("error")):
                if "mismatch-blind-retry" not in self.defects:  # re-read the task, then answer what it is now
                    got = self.read(self.get_task(iface, task_id).get("result"))
                    if got is not None:
                        self.saw(got[1])
                        self.refetched = True
                resp = self.send(iface, follow_up, stream, task_ids=(task_id, context_id))
            outcome, _ = self.conclude(iface, resp)
        new_message = self.action.get("new_message")
        first_stopped = outcome["kind"] == "message" or self.short(outcome.get("state") or "") in STOPS
        if isinstance(new_message, str) and outcome["kind"] != "error" and first_stopped:
            # An unrelated message: no taskId (the earlier task's contextId kept), unless the defect binds it.
            ids = None if task is None else ("", task.get("contextId"))
            if task is not None and "new-message-bound" in self.defects:
                ids = (str(task.get("id")), task.get("contextId"))
            resp = self.send(iface, new_message, stream, task_ids=ids)
            outcome, _ = self.conclude(iface, resp)
        if "token-to-wrong-origin" in self.defects and isinstance(self.http.auth, FakeAuth):
            self.http.get(self.card_url)  # the session's credentials go along
        return outcome

    def conclude(self, iface: dict[str, Any], resp: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """What an answer to a send says, following a task up; and the task it was about (if any)."""
        if "error" in resp:
            error = resp["error"] if isinstance(resp["error"], dict) else {}
            code = self.grpc_error_code(error) if iface["binding"] == "grpc" else None
            return self.failure(str(error.get("message", "")), code), None
        if "stream" in resp:
            said = self.read_stream(resp["stream"])
            task_id = self.stream_task_id(resp["stream"])
            if resp.get("broken") and said["kind"] == "task" and task_id and self.short(said["state"]) not in STOPS:
                return self.follow(iface, {"id": task_id, "status": {"state": said["state"]}}), None
            return said, None
        result = resp.get("result")
        if "wrapper-only" in self.defects and iface["version"] == "1.0" and isinstance(result, dict):
            result = {k: result[k] for k in ("task", "message") if k in result}
        answer = self.read(result)
        if answer is None:
            return self.failure("unreadable answer"), None
        kind, value = answer
        if "reject-unknown-fields" in self.defects and set(value) - KNOWN_MEMBERS["answer"]:
            return self.failure(
                f"the answer has members the spec does not define: {sorted(set(value) - KNOWN_MEMBERS['answer'])}"
            ), None
        if "text-only-parts" in self.defects and self.non_text_parts(value):
            return self.failure("the answer holds a part that is not text"), None
        if kind == "message":
            if "poll-after-message" in self.defects:
                self.get_task(iface, str(value.get("taskId") or "no-such-task"))
            return {
                "kind": "message",
                "state": None,
                "text": " ".join(self.texts(value.get("parts") or value.get("content"))),
            }, None
        if "first-status-part" in self.defects and self.short(self.state_of(value)) == "submitted":
            status = value.get("status") or {}
            (status.get("message") or {"parts": [{}]})["parts"][0]["thought"] = True  # IndexError on []
        if self.action.get("cancel") is True and not self.stops(self.state_of(value)):
            value = self.cancel(iface, value)
        outcome = self.follow(iface, value)
        history = value.get("history")
        if "history-reply" in self.defects and isinstance(history, list) and history and isinstance(history[0], dict):
            outcome = {**outcome, "text": " ".join(self.texts(history[0].get("parts") or history[0].get("content")))}
        return outcome, value

    def cancel(self, iface: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
        """The cancel action: after --cancel-after seconds, CancelTask for the open task; the task as the answer
        tells it, or unchanged when the agent refused (follow() then reads how it ended)."""
        time.sleep(self.args.cancel_after)
        task_id = "fake-client-own-task" if "cancel-unknown-task" in self.defects else str(task.get("id"))
        if iface["binding"] == "http+json":
            resp = self.rest(iface, "POST", f"/tasks/{task_id}:cancel", {})
        else:
            v1 = iface["version"] == "1.0"
            resp = self.rpc(iface, "CancelTask" if v1 else "tasks/cancel", {"id": task_id})
        if "assume-canceled" in self.defects:
            return {**task, "status": {"state": "canceled"}}
        result = resp.get("result") if "error" not in resp else None
        if isinstance(result, dict) and isinstance(result.get("status"), dict):
            return result
        return task

    def failure(self, text: str, code: int | None = None) -> dict[str, Any]:
        if "assume-success" in self.defects:
            return {"kind": "message", "state": None, "text": ""}
        return {"kind": "error", "state": None, "text": text, **({"error": {"code": code}} if code is not None else {})}

    def grpc_error_code(self, error: dict[str, Any]) -> int | None:
        """The A2A code of a gRPC error: from its ErrorInfo reason (§10.6); by the status alone with the defect."""
        if "grpc-status-only" in self.defects:
            return GRPC_STATUS_CODES.get(str(error.get("code")))
        return REASON_CODES.get(str(error.get("reason")))

    @staticmethod
    def non_text_parts(value: dict[str, Any]) -> bool:
        groups = [value.get("parts") or value.get("content")] + [
            a.get("parts") for a in value.get("artifacts") or [] if isinstance(a, dict)
        ]
        return any(isinstance(p, dict) and "text" not in p for group in groups for p in group or [])

    def follow(self, iface: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
        task_id = str(task.get("id"))
        self.saw(task)
        texts = [self.task_text(task)]
        state = self.state_of(task)
        if "get-task-loop" in self.defects:
            for _ in range(50):
                got = self.read(self.get_task(iface, task_id).get("result"))
                if got:
                    task, state = got[1], self.state_of(got[1])
                    texts.append(self.task_text(task))
        elif self.short(state) not in STOPS and (self.args.subscribe or "subscribe-no-fallback" in self.defects):
            resp = self.subscribe(iface, task_id)
            if "stream" in resp:
                return self.read_stream(resp["stream"])
            if "subscribe-no-fallback" in self.defects:
                error = resp.get("error")
                reason = error.get("message", "") if isinstance(error, dict) else ""
                return self.failure(f"SubscribeToTask failed: {reason}")
        if "get-task-loop" not in self.defects and "no-follow-up" not in self.defects:
            polls = 0
            while not self.stops(state) and polls < self.args.polls:
                time.sleep(self.args.poll_gap)
                polls += 1
                resp = self.get_task(iface, task_id)
                got = self.read(resp.get("result")) if "error" not in resp else None
                if got is None:
                    if "stale-task-on-error" in self.defects:
                        break
                    error = resp.get("error")
                    reason = error.get("message", "") if isinstance(error, dict) else "unreadable answer"
                    return self.failure(f"GetTask failed: {reason}")
                task, state = got[1], self.state_of(got[1])
                self.saw(task)
                texts.append(self.task_text(task))
        unsuccessful = self.short(state) in ("failed", "canceled", "cancelled", "rejected")
        if "failure-as-empty-success" in self.defects and unsuccessful and not task.get("artifacts"):
            return {"kind": "message", "state": None, "text": ""}
        if "failed-as-error" in self.defects and self.short(state) in ("failed", "rejected"):
            return {"kind": "error", "state": None, "text": next((t for t in reversed(texts) if t), "")}
        return {"kind": "task", "state": state, "text": next((t for t in reversed(texts) if t), "")}

    @staticmethod
    def stream_task_id(events: list[Any]) -> str | None:
        for ev in events:
            if isinstance(ev, dict):
                inner = ev.get("task") or ev.get("statusUpdate") or ev.get("artifactUpdate") or ev
                found = inner.get("id") or inner.get("taskId") if isinstance(inner, dict) else None
                if found:
                    return str(found)
        return None

    @staticmethod
    def unknown_event(last: list[Any]) -> bool:
        """The last event read is a JSON-RPC result naming no event kind this client knows."""
        result = last[0].get("result") if last and isinstance(last[0], dict) else None
        known = ("task", "message", "statusUpdate", "artifactUpdate")
        kinds = ("task", "message", "status-update", "artifact-update")
        return isinstance(result, dict) and result.get("kind") not in kinds and not any(k in result for k in known)

    def read_stream(self, events: list[Any]) -> dict[str, Any]:
        state, texts, kind = "", [], "task"
        for ev in events:
            if not isinstance(ev, dict):
                continue
            k = ev.get("kind")
            if k == "message" or ("message" in ev and k is None):
                msg = ev if k == "message" else ev["message"]
                return {"kind": "message", "state": None, "text": " ".join(self.texts(msg.get("parts")))}
            if k == "task" or (k is None and "task" in ev):
                task = ev if k == "task" else ev["task"]
                state = self.state_of(task) or state
                texts.append(self.task_text(task))
            elif k == "status-update" or (k is None and "statusUpdate" in ev):
                upd = ev if k else ev["statusUpdate"]
                state = self.state_of(upd) or state
            elif k == "artifact-update" or (k is None and "artifactUpdate" in ev):
                upd = ev if k else ev["artifactUpdate"]
                texts.extend(self.texts((upd.get("artifact") or {}).get("parts")))
        return {"kind": kind, "state": state, "text": " ".join(t for t in texts if t)}

    def write_pids(self, pids: list[int]) -> None:
        if self.args.pid_file:
            with open(self.args.pid_file, "w", encoding="utf-8") as fh:
                json.dump(pids, fh)


#: How deep the `nested-result` defect nests its A2A_LAB_RESULT (issue 13: it used to end the run as a harness ERROR).
NESTED_RESULT_LEVELS = 500_000


def finish(client: Client, outcome: dict[str, Any]) -> None:
    defects = client.defects
    if "wrong-result" in defects:
        if outcome["kind"] == "task":
            outcome = {
                **outcome,
                "state": "failed" if client.short(outcome.get("state") or "") != "failed" else "completed",
            }
        outcome = {**outcome, "text": "an answer the server never gave"}
    if "result-without-text" in defects:
        outcome = {**outcome, "text": ""}
    if "result-without-state" in defects:
        outcome = {k: v for k, v in outcome.items() if k != "state"}
    if "interrupted-as-failure" in defects and client.short(outcome.get("state") or "") in INTERRUPTED:
        outcome = {**outcome, "state": "failed"}
    if "print-answer" in defects:
        print(f"answer ({outcome.get('kind')}, task {outcome.get('taskId') or '-'}): {outcome.get('text') or ''}")
    path = os.environ.get("A2A_LAB_RESULT")
    if path and "directory-result" in defects:
        os.mkdir(path)
    elif path and not client.args.no_result:
        with open(path, "w", encoding="utf-8") as fh:
            if "nested-result" in defects:
                fh.write('{"kind": "task", "deep": ' + "[" * NESTED_RESULT_LEVELS + "]" * NESTED_RESULT_LEVELS + "}")
            elif "garbled-result" in defects:
                fh.write("kind=task state=completed")
            else:
                json.dump(outcome, fh)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="fake_client")
    parser.add_argument("--defect", action="append", choices=sorted(DEFECTS))
    parser.add_argument(
        "--binding",
        action="append",
        choices=["jsonrpc", "http+json", "grpc"],
        help="bindings supported, in no particular order (default jsonrpc; grpc needs a2a-sdk[grpc])",
    )
    parser.add_argument(
        "--generation",
        choices=["1.0", "0.3"],
        default="1.0",
        help="the protocol generation: 1.0 (reads supportedInterfaces, speaks 1.0 and 0.3) or 0.3 (reads url, "
        "preferredTransport and additionalInterfaces only; speaks 0.3 only)",
    )
    parser.add_argument("--stream", action="store_true", help="use streaming when the card's capabilities allow it")
    parser.add_argument(
        "--subscribe",
        action="store_true",
        help="follow an open task by SubscribeToTask (tasks/resubscribe) first; on an error, by GetTask",
    )
    parser.add_argument(
        "--polls", type=int, default=MAX_POLLS, help=f"GetTask calls at most per task (default {MAX_POLLS})"
    )
    parser.add_argument(
        "--poll-gap", type=float, default=POLL_GAP_S, help=f"seconds between GetTask calls (default {POLL_GAP_S})"
    )
    parser.add_argument(
        "--defects-for", metavar="SCENARIO", help="apply the defects only when A2A_LAB_SCENARIO is this id"
    )
    parser.add_argument(
        "--retries", type=int, default=0, help="resend the same message (same messageId) after a transient error"
    )
    parser.add_argument(
        "--cancel-after", type=float, default=0.0, help="asked to cancel: wait this many seconds first (default 0)"
    )
    parser.add_argument("--messages", type=int, default=1, help="messages to send (each with its own messageId)")
    parser.add_argument("--send-tenant", action="store_true", help='send tenant "intruder" whatever the interface says')
    parser.add_argument("--drop-tenant", action="store_true", help="never send the interface's tenant")
    parser.add_argument(
        "--accepted-output-modes",
        action="store_true",
        help="send configuration.acceptedOutputModes (text/plain, application/json) with every message",
    )
    parser.add_argument(
        "--ignore-sigterm", action="store_true", help="with --defect hang: ignore SIGTERM (so does the child)"
    )
    parser.add_argument("--no-result", action="store_true", help="do not write A2A_LAB_RESULT")
    parser.add_argument(
        "--ignore-action", action="store_true", help="do not act on A2A_LAB_ACTION (a client that knows nothing of it)"
    )
    parser.add_argument(
        "--card-limit",
        type=int,
        default=CARD_LIMIT,
        help=f"refuse a card larger than this many bytes (default {CARD_LIMIT}; 0: no limit)",
    )
    parser.add_argument("--pid-file", help="write the pids of this client (and its children) here as JSON")
    parser.add_argument("--argv-file", help="write argv and the A2A_LAB_* environment here as JSON")
    parser.add_argument("url", nargs="?", help="the card URL (or a base URL: the well-known path is added)")
    args = parser.parse_args(argv)
    if args.defects_for and os.environ.get("A2A_LAB_SCENARIO") != args.defects_for:
        args.defect = []
    if args.argv_file:
        with open(args.argv_file, "w", encoding="utf-8") as fh:
            json.dump({"argv": argv, "env": {k: v for k, v in os.environ.items() if k.startswith("A2A_LAB_")}}, fh)
    defects = set(args.defect or [])
    if "never-connect" in defects:
        return 0
    if "crash" in defects:
        try:
            raise RuntimeError("fake_client: crashing on purpose before any call")
        except RuntimeError:
            traceback.print_exc()
            return 3
    if "fork-and-exit" in defects:
        # The child inherits stdout and stderr, as a careless client's children do: the pipes stay open until it dies.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        if args.pid_file:
            with open(args.pid_file, "w", encoding="utf-8") as fh:
                json.dump([child.pid], fh)
        return 0
    if "big-stdout" in defects:
        chunk = ("x" * 1023 + "\n").encode()
        for _ in range(50 * 1024):
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.write(b"THE-END-OF-STDOUT\n")
        sys.stdout.flush()
    url = args.url or os.environ.get("A2A_LAB_CARD_URL", "")
    if "/.well-known/" not in url:
        url = url.rstrip("/") + WELL_KNOWN
    client = Client(args, url)
    try:
        outcome = client.run()
    except httpx.HTTPError as exc:
        print(f"fake_client: {type(exc).__name__}: {exc}", file=sys.stderr)
        outcome = {"kind": "error", "state": None, "text": str(exc)}
    finish(client, outcome)
    return 0


def console() -> int:
    """The script's entry point, as a console script's: its arguments from sys.argv (tests/harness/client_launch.py
    forks it from a zygote)."""
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(console())
