"""Choosing interfaces (§8.3.2, 0.3 §5.6.3): the first one this client supports, then the rest as fallbacks.

Oddities of a card (a 0.3 leftover beside 1.0 interfaces, a patch version, no version at all) are
warnings, never a reason to give up (field notes S1, S3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.protocol import cards, versions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface, Support
from a2a_lab.protocol.versions import Version

#: What the reference client speaks, in no particular order (the card's order decides).
SUPPORTED: tuple[Support, ...] = tuple(
    (b, v) for b in (Binding.JSONRPC, Binding.HTTP_JSON) for v in (Version.V1_0, Version.V0_3)
)


@dataclass
class Selection:
    """Interfaces to try, best first (the first is the §8.3.2 choice), and what the card made us notice."""

    candidates: list[Interface]
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def supported(binding: Binding | None = None) -> tuple[Support, ...]:
    return tuple(s for s in SUPPORTED if binding is None or s[0] is binding)


def _usable_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _why_skipped(iface: Interface) -> str:
    spoken = (iface.core_binding, iface.known_version) in SUPPORTED
    return f"{iface.label}: {'excluded by the binding restriction' if spoken else 'not spoken by this client'}"


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


def select_interfaces(card: dict[str, Any], binding: Binding | None = None) -> Selection:
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
        if not _usable_url(chosen.url):
            warnings.append(f"{chosen.label}: the URL is not an absolute http(s) URL; skipped")
            continue
        candidates.append(chosen)
    skipped.extend(_why_skipped(i) for i in remaining)
    return Selection(candidates, warnings, skipped)
