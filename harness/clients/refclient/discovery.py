"""Finding the agent card: the well-known URI (§8.2), the legacy `agent.json` only on 404, bounded reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from a2a_lab.harness.clients.refclient.failures import ClientFailure, UsageFailure
from a2a_lab.harness.clients.refclient.http import decode_json, guarded, media_type, read_head, read_limited, snippet
from a2a_lab.harness.clients.refclient.options import ClientOptions
from a2a_lab.protocol.bindings import JSON
from a2a_lab.protocol.cards import LEGACY_WELL_KNOWN_PATH, WELL_KNOWN_PATH

_MAX_REDIRECTS = 5


@dataclass
class Discovered:
    card: dict[str, Any]
    url: str
    size: int
    warnings: list[str] = field(default_factory=list)


def card_urls(target: str) -> tuple[str, str | None]:
    """The card URL to fetch and the legacy one to try on 404 (None when the target is a custom card URL).

    A base URL (`http://host[/prefix]`) gets the well-known path appended; a URL that already ends in the
    well-known path is used as given.
    """
    parts = urlsplit(target.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageFailure(f"{target!r} is not an http(s) URL; give the agent's base URL or its card URL")
    base = target.strip().split("?", 1)[0].split("#", 1)[0].rstrip("/")
    if base.endswith(WELL_KNOWN_PATH):
        root = base[: -len(WELL_KNOWN_PATH)]
        return base, root + LEGACY_WELL_KNOWN_PATH
    if base.endswith(LEGACY_WELL_KNOWN_PATH) or parts.path.endswith(".json"):
        return target.strip(), None
    return base + WELL_KNOWN_PATH, base + LEGACY_WELL_KNOWN_PATH


def _fetch(http: httpx.Client, url: str, options: ClientOptions) -> tuple[httpx.Response, bytes]:
    for _ in range(_MAX_REDIRECTS + 1):
        with (
            guarded(f"fetching the card {url}", options),
            http.stream("GET", url, headers={"Accept": JSON}) as response,
        ):
            if response.is_redirect and response.headers.get("location"):
                url = str(response.url.join(response.headers["location"]))
                continue
            body = (
                read_limited(response, options.card_size_limit, f"card {url}")
                if response.status_code == 200
                else read_head(response)
            )
            return response, body
    raise ClientFailure("discovery", f"fetching the card: more than {_MAX_REDIRECTS} redirects (last {url})")


def discover(http: httpx.Client, target: str, options: ClientOptions) -> Discovered:
    """Fetch and decode the card; raises ClientFailure (type `discovery`) with the reason."""
    primary, legacy = card_urls(target)
    warnings: list[str] = []
    try:
        response, body = _fetch(http, primary, options)
    except ClientFailure as failure:
        raise ClientFailure("discovery", failure.message, failure.details) from None
    if response.status_code == 404 and legacy is not None:
        try:
            legacy_response, legacy_body = _fetch(http, legacy, options)
        except ClientFailure as failure:
            raise ClientFailure("discovery", failure.message, failure.details) from None
        if legacy_response.status_code == 200:
            warnings.append(f"{primary} answered 404; used the legacy pre-0.3 card path {legacy}")
            response, body = legacy_response, legacy_body
        else:
            raise ClientFailure(
                "discovery",
                f"no agent card: {primary} answered 404 and {legacy} answered {legacy_response.status_code}",
                {"url": primary, "http_status": 404},
            )
    url = str(response.url)
    if response.status_code != 200:
        shown = f": {snippet(body)!r}" if body else ""
        raise ClientFailure(
            "discovery",
            f"the card {url} answered HTTP {response.status_code}{shown}",
            {"url": url, "http_status": response.status_code},
        )
    try:
        card = decode_json(body, response, f"card {url}")
    except ClientFailure as failure:
        raise ClientFailure("discovery", failure.message, {"url": url, **failure.details}) from None
    if not isinstance(card, dict):
        raise ClientFailure(
            "discovery", f"the card {url} is JSON but not an object (got {type(card).__name__})", {"url": url}
        )
    kind = media_type(response)
    if kind and kind != JSON and not kind.endswith("+json"):
        warnings.append(f"the card is served as {kind!r}, not {JSON}")
    return Discovered(card, url, len(body), warnings)
