"""Which URLs a careful client will call (field notes: the "narrow client").

Strict for public agents, lenient for local tests.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

STRICT, LENIENT = "strict", "lenient"
POLICIES = (STRICT, LENIENT)
#: Why a policy was chosen when none was given (`default_for`), as the card check's report says it.
WHY_FILE = "the default for a file: a local draft"
WHY_LOOPBACK = "the default for a loopback URL: a local test"
WHY_PUBLIC = "the default for a URL: the card a public client reads"
_LOCAL_SUFFIXES = (".local", ".localhost", ".internal", ".lan", ".home", ".corp", ".intranet")


def default_for(source: str) -> tuple[str, str]:
    """The policy for a card read from `source` when none is given, and why: lenient for a file (a draft, local
    URLs expected) and for a loopback URL, strict for any other URL (a public agent's card)."""
    if not source.startswith(("http://", "https://")):
        return LENIENT, WHY_FILE
    host = (urlsplit(source).hostname or "").lower()
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost" or host.endswith(".localhost")
    return (LENIENT, WHY_LOOPBACK) if loopback else (STRICT, WHY_PUBLIC)


def problems(url: str, policy: str) -> list[tuple[str, str]]:
    """(message, hint) for each way the URL breaks the policy; empty when it is acceptable."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return [(f"not a valid URL ({exc})", "an absolute http(s) URL")]
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return [(f"not an absolute http(s) URL: {url!r}", "write the full URL, e.g. https://agent.example.com/a2a")]
    if policy == LENIENT:
        return []
    out: list[tuple[str, str]] = []
    host = parts.hostname.lower()
    if parts.scheme != "https":
        out.append(("not https", "serve the agent over TLS (https://)"))
    if port not in (None, 443):
        out.append(
            (f"port {port}, not 443", "serve on the default https port, or use --policy lenient for local testing")
        )
    try:
        ipaddress.ip_address(host)
        out.append((f"an IP literal ({host})", "use a DNS name"))
    except ValueError:
        if host == "localhost" or host.endswith(_LOCAL_SUFFIXES) or "." not in host:
            out.append(
                (f"a local or private name ({host})", "use a public DNS name, or --policy lenient for local testing")
            )
    return out
