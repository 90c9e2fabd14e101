"""The well-known card paths (spec §8.2; legacy `agent.json`), with ETag and Cache-Control (§8.6)."""

from __future__ import annotations

import hashlib

from starlette.types import Receive, Scope, Send

from a2a_lab.protocol.cards import LEGACY_WELL_KNOWN_PATH

from . import answer, http
from .state import LabState


async def handle(state: LabState, route_path: str, scope: Scope, receive: Receive, send: Send, base_url: str) -> None:
    entry = state.journal.open(scope["method"], scope["path"], scope.get("query_string", b"").decode("latin-1"), scope["headers"], b"", "card")
    spec = state.scenario.card
    serving = spec.legacy if route_path == LEGACY_WELL_KNOWN_PATH else spec.well_known
    entry["card_path"] = route_path
    if scope["method"] not in ("GET", "HEAD"):
        await answer.send_body(scope, receive, send, entry, 405, b'{"error":"use GET"}', "application/json", extra=[("allow", "GET")])
        return
    if serving.mode == "missing":
        await answer.send_body(scope, receive, send, entry, 404, b"Not Found", "text/plain; charset=utf-8")
        return
    if serving.mode == "raw":
        await answer.send_body(scope, receive, send, entry, serving.status, serving.body, serving.content_type)
        return
    body = state.card_bytes(base_url)
    extra: list[tuple[str, str]] = []
    if spec.cache_control:
        extra.append(("cache-control", spec.cache_control))
    if spec.etag:
        etag = f'W/"{hashlib.sha256(body).hexdigest()[:32]}"'
        extra.append(("etag", etag))
        if etag in http.headers_of(scope).get("if-none-match", ""):
            await answer.send_body(scope, receive, send, entry, 304, b"", spec.content_type, extra=extra)
            return
    entry["card_sha256"] = hashlib.sha256(body).hexdigest()
    await answer.send_body(scope, receive, send, entry, 200, body if scope["method"] == "GET" else b"", spec.content_type, extra=extra)
