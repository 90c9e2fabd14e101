"""Placeholders in scenario data: `{base_url}` in cards, `{text}` (the user's text) in replies."""

from __future__ import annotations

from typing import Any

BASE_URL = "{base_url}"
TEXT = "{text}"


def fill(value: Any, placeholder: str, replacement: str) -> Any:
    """A copy of JSON-like data with the placeholder replaced in every string."""
    if isinstance(value, str):
        return value.replace(placeholder, replacement)
    if isinstance(value, list):
        return [fill(v, placeholder, replacement) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, placeholder, replacement) for k, v in value.items()}
    return value


def occurrences(value: Any, placeholder: str) -> int:
    """How many times the placeholder appears in the strings of JSON-like data."""
    if isinstance(value, str):
        return value.count(placeholder)
    if isinstance(value, list):
        return sum(occurrences(v, placeholder) for v in value)
    if isinstance(value, dict):
        return sum(occurrences(v, placeholder) for v in value.values())
    return 0


#: The same server under its other loopback name (127.0.0.1 <-> localhost): an interface on another origin.
ALT_BASE_URL = "{alt_base_url}"
_ALIASES = {"127.0.0.1": "localhost", "localhost": "127.0.0.1"}


def alt_origin(base_url: str) -> str:
    """`http://127.0.0.1:8000/x` -> `http://localhost:8000/x` (and back); other hosts map to 127.0.0.1."""
    scheme, sep, rest = base_url.partition("://")
    hostport, slash, path = rest.partition("/")
    host, colon, port = hostport.rpartition(":") if hostport.count(":") == 1 else (hostport, "", "")
    alias = _ALIASES.get(host, "127.0.0.1")
    return f"{scheme}{sep}{alias}{colon}{port}{slash}{path}"


#: The `host:port` of the scenario's gRPC server (the spec's form of a gRPC interface url, §5.6).
GRPC_ADDRESS = "{grpc_address}"
#: What `{grpc_address}` reads where no gRPC server runs (the extra is not installed, or it has not started).
NO_GRPC_ADDRESS = "grpc-not-served.invalid:1"


#: The same server's plain-HTTP origin (a listener without TLS beside a TLS one): a card served over https that
#: names it offers a downgrade. Where the scenario is not served over TLS it is `{base_url}` itself.
HTTP_BASE_URL = "{http_base_url}"


def plain_origin(base_url: str, port: int | None) -> str:
    """`https://127.0.0.1:8443/x` -> `http://127.0.0.1:<port>/x` (None: the base URL as it is)."""
    if port is None:
        return base_url
    hostport, slash, path = base_url.partition("://")[2].partition("/")
    host = hostport[: hostport.index("]") + 1] if hostport.startswith("[") else hostport.split(":", 1)[0]
    return f"http://{host}:{port}{slash}{path}"


def fill_origins(
    value: Any, base_url: str, grpc_address: str = NO_GRPC_ADDRESS, http_base_url: str | None = None
) -> Any:
    filled = fill(fill(value, ALT_BASE_URL, alt_origin(base_url)), BASE_URL, base_url)
    if occurrences(value, HTTP_BASE_URL):
        filled = fill(filled, HTTP_BASE_URL, http_base_url or base_url)
    return fill(filled, GRPC_ADDRESS, grpc_address) if occurrences(value, GRPC_ADDRESS) else filled
