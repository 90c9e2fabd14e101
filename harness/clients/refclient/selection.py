"""Choosing interfaces (§8.3.2, 0.3 §5.6.3): the first one this client supports, then the rest as fallbacks.

Oddities of a card (a 0.3 leftover beside 1.0 interfaces, a patch version, no version at all) are
warnings, never a reason to give up (field notes S1, S3). A gRPC url that is not `host:port` (`grpc://h:p`,
`http://h:p/a2a`) is a card mistake: the client dials the address it can read and says so (`notices`, which the
command line prints on stderr). Without the grpc extra, GRPC interfaces are not spoken, and the client says that once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.protocol import cards, grpcwire, versions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface, Support
from a2a_lab.protocol.versions import Version

#: gRPC, which the reference client speaks in A2A 1.0 when the grpc extra is installed.
GRPC_SUPPORT: Support = (Binding.GRPC, Version.V1_0)
#: What the reference client can speak, in no particular order (the card's order decides); `spoken()` is what it
#: speaks in this Python.
SUPPORTED: tuple[Support, ...] = (
    *((b, v) for b in (Binding.JSONRPC, Binding.HTTP_JSON) for v in (Version.V1_0, Version.V0_3)),
    GRPC_SUPPORT,
)


@dataclass
class Selection:
    """Interfaces to try, best first (the first is the §8.3.2 choice), and what the card made us notice.
    `notices`: what a person running the client should hear at once (a gRPC url mistake, gRPC unavailable)."""

    candidates: list[Interface]
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def spoken() -> tuple[Support, ...]:
    """What the client speaks here: gRPC only with the grpc extra."""
    return SUPPORTED if grpcwire.missing() is None else tuple(s for s in SUPPORTED if s != GRPC_SUPPORT)


def supported(binding: Binding | None = None) -> tuple[Support, ...]:
    return tuple(s for s in spoken() if binding is None or s[0] is binding)


def _usable_url(iface: Interface) -> bool:
    if iface.core_binding is Binding.GRPC:
        return grpcwire.address_of(iface.url) is not None
    parts = urlsplit(iface.url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _why_skipped(iface: Interface) -> str:
    if iface.support == GRPC_SUPPORT and GRPC_SUPPORT not in spoken():
        return f"{iface.label}: not spoken here ({grpcwire.missing()})"
    said = "excluded by the binding restriction" if iface.support in SUPPORTED else "not spoken by this client"
    return f"{iface.label}: {said}"


def grpc_notices(listed: list[Interface], candidates: list[Interface]) -> list[str]:
    """What a person should hear about a card's gRPC interfaces: that gRPC is unavailable here (once), and the url
    mistakes of those the client may dial (it dials the address it can read)."""
    declared = sum(1 for i in listed if i.support == GRPC_SUPPORT)
    missing = grpcwire.missing()
    if declared and missing is not None:
        return [f"the card declares {declared} GRPC interface(s), treated as unsupported: {missing}"]
    out: list[str] = []
    for iface in candidates:
        problem = grpcwire.url_problem(iface.url) if iface.core_binding is Binding.GRPC else None
        if problem is not None:
            out.append(
                f"interface #{iface.index} (GRPC): url {problem} (§5.6 AgentInterface.url); "
                f"dialing {grpcwire.address_of(iface.url)}"
            )
    return out


def card_warnings(card: dict[str, Any], listed: list[Interface]) -> list[str]:
    out: list[str] = []
    shape = cards.shape(card)
    top = card.get("protocolVersion")
    if shape == "1.0" and top is not None:
        declared = sorted({i.version for i in listed})
        out.append(
            f"mixed-version card: top-level protocolVersion {top!r} is a 0.3 field; the interfaces declare "
            f"{', '.join(declared) or 'nothing'} (the interface list is what counts)"
        )
    if shape == "0.3" and top is None:
        out.append("0.3 card without protocolVersion; read as 0.3")
    for iface in listed:
        if iface.source != "supportedInterfaces":
            continue  # a 0.3 card's protocolVersion is "0.3.0" by its schema: no Major.Minor rule there
        where = f"interface #{iface.index} ({iface.binding} {iface.url})"
        if versions.has_patch(iface.declared_version):
            out.append(
                f"{where} declares protocolVersion {iface.declared_version!r}; "
                f"versions are Major.Minor, read as {iface.version}"
            )
        elif iface.declared_version is None or not str(iface.declared_version).strip():
            out.append(f"{where} declares no protocolVersion; read as 0.3 (§3.6.2)")
    return out


def _downgrade(iface: Interface, secure: bool) -> bool:
    """An http interface of a card read over https: following it would drop TLS (the reference client refuses)."""
    return secure and iface.core_binding is not Binding.GRPC and urlsplit(iface.url).scheme == "http"


def select_interfaces(card: dict[str, Any], binding: Binding | None = None, secure: bool = False) -> Selection:
    """`secure`: the card was read over https, so plain-http interfaces are refused (a downgrade)."""
    listed = cards.interfaces(card)
    wanted = supported(binding)
    warnings = card_warnings(card, listed)
    candidates: list[Interface] = []
    skipped: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    remaining = list(listed)
    while remaining:
        chosen = cards.select(remaining, wanted)
        if chosen is None:
            break
        position = remaining.index(chosen)
        skipped.extend(_why_skipped(passed) for passed in remaining[:position])
        remaining = remaining[position + 1 :]
        key = (chosen.url, chosen.binding, chosen.version)
        if key in seen:
            continue
        seen.add(key)
        if not _usable_url(chosen):
            what = "no host:port to dial" if chosen.core_binding is Binding.GRPC else "not an absolute http(s) URL"
            warnings.append(f"{chosen.label}: the URL is {what}; skipped")
            continue
        if _downgrade(chosen, secure):
            warnings.append(f"{chosen.label}: plain http from a card read over https (a downgrade); skipped")
            continue
        candidates.append(chosen)
    skipped.extend(_why_skipped(i) for i in remaining)
    notices = grpc_notices([i for i in listed if binding in (None, Binding.GRPC)], candidates)
    return Selection(candidates, warnings + notices, skipped, notices)
