"""The `card:` section: the agent card as served (typed members, edits, signing, paths), its endpoints and tenants."""

from __future__ import annotations

import json
from typing import Any

from a2a_lab.protocol import cards, grpcwire, signing
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version

from ..edits import Edit
from ..placeholders import ALT_BASE_URL, BASE_URL, GRPC_ADDRESS, HTTP_BASE_URL
from ..scenario import (
    CardPath,
    CardPathMode,
    CardSigning,
    CardSpec,
    Endpoint,
    Tamper,
    TenantRoutes,
)
from .changes import read_edits
from .reader import Reader
from .reply import read_headers
from .tables import MAX_PAD_TO, MIB


def _card_path(r: Reader, value: Any, path: str, option: str, default: CardPathMode) -> CardPath:
    """`serve`, `missing` (or 404), or a mapping: what one well-known path answers."""
    if isinstance(value, dict):
        p = r.mapping(value, path, "card path")
        r.used.add((option, CardPathMode.RAW.value))
        body = r.string(p.get("body", ""), f"{path}.body").encode()
        return CardPath(
            CardPathMode.RAW,
            r.status(p.get("status", 200), f"{path}.status", has_body=bool(body)),
            body,
            r.header_value(p.get("content_type", "application/json"), f"{path}.content_type"),
            read_headers(r, p["headers"], f"{path}.headers") if "headers" in p else (),
        )
    hint = "serve, missing (404), or {status, body, content_type}"
    mode = (
        default
        if value is None
        else r.choice(CardPathMode.MISSING.value if value == 404 else value, path, option, hint)
    )
    if mode is CardPathMode.RAW:
        raise r.fail(path, "raw takes a mapping", "e.g. {status: 200, body: '<html>', content_type: text/html}")
    return CardPath(mode, 404 if mode is CardPathMode.MISSING else 200)


def _signing(r: Reader, value: Any) -> CardSigning:
    s = r.mapping(value, "card.sign", "card.sign")
    key = r.mapping(s.get("key"), "card.sign.key")
    try:
        signing.import_key(key)
    except Exception as exc:
        raise r.fail(
            "card.sign.key", f"not a usable private JWK: {exc}", "an EC P-256 private JWK with kty, crv, x, y, d"
        ) from None
    tamper = r.choice(s["tamper"], "card.sign.tamper", "card.sign.tamper") if "tamper" in s else Tamper.NONE
    return CardSigning(key, r.string(s.get("kid", key.get("kid", "a2a-lab-test")), "card.sign.kid"), tamper)


def read_card(r: Reader, value: Any) -> CardSpec:
    c = r.mapping(value, "card", "card")
    if ("object" in c) == ("raw" in c):
        raise r.fail(
            "card", "a card needs exactly one of `object` (a mapping, {base_url} filled in) or `raw` (exact text)"
        )
    return CardSpec(
        object=read_typed_card(r, c["object"], "card.object") if "object" in c else None,
        raw=r.string(c["raw"], "card.raw").encode() if "raw" in c else None,
        content_type=r.header_value(c.get("content_type", "application/json"), "card.content_type"),
        cache_control=r.header_value(c["cache_control"], "card.cache_control")
        if "cache_control" in c
        else "public, max-age=300",
        etag=r.boolean(c.get("etag", True), "card.etag"),
        well_known=_card_path(r, c.get("well_known"), "card.well_known", "card.well_known", CardPathMode.SERVE),
        legacy=_card_path(r, c.get("legacy"), "card.legacy", "card.legacy", CardPathMode.MISSING),
        pad_to=(
            r.integer(
                c["pad_to"],
                "card.pad_to",
                1,
                MAX_PAD_TO,
                f"an oversize card needs only to pass a client's limit (a careful client reads 64 KiB; "
                f"discovery/huge-card serves 8 MB): give at most {MAX_PAD_TO} ({MAX_PAD_TO // MIB} MiB)",
            )
            if "pad_to" in c
            else None
        ),
        substitute_raw=r.boolean(c.get("substitute_raw", True), "card.substitute_raw"),
        sign=_signing(r, c["sign"]) if "sign" in c else None,
        by_version=_card_versions(r, c["versions"], "raw" in c) if "versions" in c else (),
        last_modified=r.boolean(c.get("last_modified", True), "card.last_modified"),
        edits=_card_edits(r, c),
        origin_root=_card_path(r, c.get("origin_root"), "card.origin_root", "card.origin_root", CardPathMode.MISSING),
    )


def _card_edits(r: Reader, c: dict[str, Any]) -> tuple[Edit, ...]:
    if "edit" not in c:
        return ()
    if "object" not in c:
        raise r.fail("card.edit", "edits change the card `object`; a `raw` card is served as written", "drop `edit`")
    return read_edits(r, c["edit"], "card.edit")


def read_typed_card(r: Reader, value: Any, path: str) -> dict[str, Any]:
    """A card object whose members have the spec's types (protocol/cards.py CARD_TYPES): an unquoted `protocolVersion:
    1.0` is YAML's number, which a strict client's card model refuses; a card that means it gives the card as `raw`."""
    card = r.mapping(value, path)
    for wrong in cards.mistyped(card):
        example = f'{wrong.path.rsplit(".", 1)[-1]}: "{wrong.value}"' if wrong.expected == "a string" else ""
        raise r.fail(
            f"{path}.{wrong.path}",
            f"{wrong.actual} ({wrong.value!r}) where A2A types it as {wrong.expected} (A2A 1.0 §4.4; 0.3 §5.5)",
            (f"quote it ({example}): YAML reads an unquoted 1.0 as a number; " if example else "")
            + f"to serve the wrong type on purpose, set it with card.edit ({{at: {wrong.path}, set: ...}})",
        )
    return card


def _card_versions(r: Reader, value: Any, raw: bool) -> tuple[tuple[Version, bytes], ...]:
    """`card.versions`: per A2A-Version asked for, the exact card text served instead (a server that negotiates its
    card on the header)."""
    if not raw:
        raise r.fail("card.versions", "goes with `card.raw`", "give the card as `raw` text, and each variant too")
    out: list[tuple[Version, bytes]] = []
    for key, text in r.mapping(value, "card.versions").items():
        out.append((r.version(key, f"card.versions.{key}"), r.string(text, f"card.versions.{key}").encode()))
    return tuple(out)


def _card_document(card: CardSpec) -> Any:
    """The card as data: its object, or its raw text decoded (None where that is not JSON)."""
    if card.object is None and card.raw is not None:
        try:
            return json.loads(card.raw.decode("utf-8", "replace"))
        except ValueError:
            return None
    return card.object


def read_tenants(r: Reader, value: Any, card: CardSpec) -> frozenset[str] | None:
    """`tenant_routes`: the tenants an HTTP+JSON route may name (None: any)."""
    mode = r.choice(value, "tenant_routes", "scenario.tenant_routes")
    if mode is TenantRoutes.ANY:
        return None
    if mode is TenantRoutes.NONE:
        return frozenset()
    doc = _card_document(card)
    return frozenset(i.tenant for reader in Version for i in cards.interfaces(doc, reader) if i.tenant)


def derive_endpoints(card: CardSpec) -> tuple[Endpoint, ...]:
    """By default a scenario answers where its card says: every JSONRPC/HTTP+JSON interface under {base_url}, as
    either generation of client reads the card (a dual card's 0.3 `url` may name an endpoint of its own)."""
    doc = _card_document(card)
    grouped: dict[tuple[str, Binding], list[Version]] = {}
    for iface in [i for reader in Version for i in cards.interfaces(doc, reader)]:
        binding = iface.core_binding
        if binding is Binding.GRPC and GRPC_ADDRESS in iface.url:
            # The scenario's own gRPC server, whatever else the url says (a card mistake such as a scheme or a path
            # is the card's business); gRPC is served in A2A 1.0.
            grouped.setdefault((grpcwire.ENDPOINT_PATH, binding), [Version.V1_0])
            continue
        prefix = next((p for p in (BASE_URL, ALT_BASE_URL, HTTP_BASE_URL) if iface.url.startswith(p)), None)
        if prefix is None or binding not in (Binding.JSONRPC, Binding.HTTP_JSON):
            continue
        version = iface.known_version
        if version is None:
            continue
        path = iface.url[len(prefix) :] or "/"
        listed = grouped.setdefault((path, binding), [])
        if version not in listed:
            listed.append(version)
    return tuple(Endpoint(p, b, tuple(v)) for (p, b), v in grouped.items())


def read_endpoints(r: Reader, value: Any) -> tuple[Endpoint, ...]:
    if not isinstance(value, list):
        raise r.fail("endpoints", "expected a list", 'e.g. [{path: /a2a, binding: JSONRPC, versions: ["1.0", "0.3"]}]')
    out = []
    for i, item in enumerate(value):
        e = r.mapping(item, f"endpoints[{i}]", "endpoints[]")
        path = r.string(e.get("path"), f"endpoints[{i}].path")
        if not path.startswith("/"):
            raise r.fail(f"endpoints[{i}].path", "must start with /")
        vs = e.get("versions")
        if not isinstance(vs, list) or not vs:
            raise r.fail(f"endpoints[{i}].versions", "expected a non-empty list", 'e.g. ["1.0", "0.3"]')
        out.append(
            Endpoint(
                path.rstrip("/") or "/",
                r.binding(e.get("binding"), f"endpoints[{i}].binding"),
                tuple(r.version(v, f"endpoints[{i}].versions") for v in vs),
            )
        )
    return tuple(out)


def read_not_found(r: Reader, value: Any) -> CardPath:
    if not isinstance(value, dict):
        raise r.fail("not_found", "expected a mapping", "e.g. {status: 404, body: Not Found, content_type: text/plain}")
    return _card_path(r, value, "not_found", "not_found", CardPathMode.RAW)


#: What a segment of `base_path` may hold: RFC 3986 pchar less `%` (a prefix is matched as written, never decoded).
_SEGMENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@")


def read_base_path(r: Reader, value: Any) -> str:
    """`base_path`: the path prefix everything is served under (`/agents/demo`), without a trailing slash."""
    path = r.string(value, "base_path")
    hint = "a path such as /agents/demo: starts with /, plain segments, no query, no . or .. segment"
    if not path.startswith("/"):
        raise r.fail("base_path", f"{path!r} must start with /", hint)
    if "?" in path or "#" in path:
        raise r.fail("base_path", f"{path!r} holds a query or fragment; a prefix is a path alone", hint)
    segments = path.rstrip("/").split("/")[1:]
    if not segments:
        raise r.fail("base_path", "/ is the origin's root: leave base_path out to serve there", hint)
    for segment in segments:
        if segment in ("", ".", ".."):
            raise r.fail("base_path", f"{path!r} has an empty, . or .. segment (a prefix is matched as written)", hint)
        bad = sorted(set(segment) - _SEGMENT_CHARS)
        if bad:
            raise r.fail("base_path", f"{path!r} holds {''.join(bad)!r}, which a URL path segment cannot hold", hint)
    if segments[0] in (".well-known", "_lab"):
        raise r.fail("base_path", f"{path!r} shadows the origin's own paths (/.well-known/, /_lab/)", hint)
    return "/" + "/".join(segments)


def check_origin_root(r: Reader, card: Any, base_path: str) -> None:
    """`card.origin_root` says what the origin's card path answers beside a prefix: it needs `base_path`."""
    if not base_path and isinstance(card, dict) and "origin_root" in card:
        raise r.fail(
            "card.origin_root",
            "answers only where the scenario is served under a prefix",
            "add base_path (e.g. base_path: /agents/demo), or give what /.well-known/agent-card.json answers as "
            "card.well_known",
        )
