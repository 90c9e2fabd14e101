"""The well-known card paths (spec §8.2; legacy `agent.json`), with ETag, Last-Modified and Cache-Control (§8.6)."""

from __future__ import annotations

import hashlib
from email.utils import formatdate, parsedate_to_datetime

from starlette.types import Receive, Scope, Send

from a2a_lab.contract.journal_record import EntryKind
from a2a_lab.contract.placeholders import plain_origin
from a2a_lab.contract.scenario import CardPath, CardPathMode
from a2a_lab.protocol.cards import LEGACY_WELL_KNOWN_PATH
from a2a_lab.protocol.versions import HEADER, to_known

from . import answer, http, intake
from .state import LabState, substitute_raw


async def handle(
    state: LabState,
    route_path: str,
    scope: Scope,
    receive: Receive,
    send: Send,
    base_url: str,
    serving: CardPath | None = None,
) -> None:
    """Answer a card path: `serving` says how (default: the scenario's well-known or legacy path, by `route_path`)."""
    entry = intake.journal_request(state, scope, b"", EntryKind.CARD)
    spec = state.scenario.card
    if serving is None:
        serving = spec.legacy if route_path == LEGACY_WELL_KNOWN_PATH else spec.well_known
    common = list(state.scenario.style.headers)  # style.headers: on every answer
    entry.card_path = route_path
    page = state.scenario.not_found
    if scope["method"] not in ("GET", "HEAD") and page is not None:  # the framework's own page for the verb
        await answer.send_page(scope, receive, send, entry, page, state.scenario.style)
        return
    if scope["method"] not in ("GET", "HEAD"):
        await answer.send_body(
            scope,
            receive,
            send,
            entry,
            405,
            b'{"error":"use GET"}',
            "application/json",
            extra=[("allow", "GET"), *common],
        )
        return
    if serving.mode is CardPathMode.MISSING:
        await answer.send_body(
            scope, receive, send, entry, 404, b"Not Found", "text/plain; charset=utf-8", extra=common
        )
        return
    if serving.mode is CardPathMode.RAW:
        await answer.send_body(
            scope,
            receive,
            send,
            entry,
            serving.status,
            serving.body,
            serving.content_type,
            extra=[*serving.headers, *common],
        )
        return
    body, extra, fresh = _card_answer(state, scope, base_url, common)
    if fresh:
        await answer.send_body(scope, receive, send, entry, 304, b"", spec.content_type, extra=extra)
        return
    entry.card_sha256 = hashlib.sha256(body).hexdigest()
    await answer.send_body(
        scope, receive, send, entry, 200, body if scope["method"] == "GET" else b"", spec.content_type, extra=extra
    )


def _card_answer(
    state: LabState, scope: Scope, base_url: str, common: list[tuple[str, str]]
) -> tuple[bytes, list[tuple[str, str]], bool]:
    """The card's bytes (negotiated on A2A-Version where `card.versions` says so), its headers, and whether the
    client's copy is fresh (ETag, Last-Modified: a 304)."""
    spec = state.scenario.card
    headers = http.headers_of(scope)
    body = state.card_bytes(base_url)
    extra: list[tuple[str, str]] = common
    if spec.by_version:
        # card.versions: the card negotiated on A2A-Version (absent means 0.3, §3.6.2), cached per version apart
        asked = to_known(http.requested_version(headers, http.query_of(scope))[0])
        variant = next((text for version, text in spec.by_version if version is asked), None)
        if variant is not None:
            body = substitute_raw(
                spec,
                variant,
                base_url,
                state.grpc_address,
                plain_origin(base_url, state.http_port),
                state.alt_base(base_url),
            )
        extra.append(("vary", HEADER))
    if spec.cache_control:
        extra.append(("cache-control", spec.cache_control))
    fresh = False
    if spec.etag:
        etag = f'W/"{hashlib.sha256(body).hexdigest()[:32]}"'
        extra.append(("etag", etag))
        fresh = etag in headers.get("if-none-match", "")
        # Last-Modified (§8.6, MAY): the card has not changed since this scenario started serving.
        if spec.last_modified:
            extra.append(("last-modified", formatdate(state.started_at, usegmt=True)))
        since = headers.get("if-modified-since") if spec.last_modified else None
        if since and "if-none-match" not in headers:  # If-None-Match wins (RFC 9110 §13.1.3)
            try:
                fresh = parsedate_to_datetime(since).timestamp() >= int(state.started_at)
            except (TypeError, ValueError):
                fresh = False
    return body, extra, fresh
