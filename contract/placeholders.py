"""Placeholders in scenario data: `{base_url}` in cards, `{text}` (the user's text) in replies."""

from __future__ import annotations

from typing import Any

from a2a_lab.protocol import jsontext
from a2a_lab.protocol.exceptions import LabError

BASE_URL = "{base_url}"
TEXT = "{text}"


def fill(value: Any, placeholder: str, replacement: str) -> Any:
    """A copy of JSON-like data with the placeholder replaced in every string (keys are kept as they are)."""
    kind = type(value)  # the plain types scenario data is made of first: an artifact is filled on every new task
    if kind is dict:
        return {
            k: v.replace(placeholder, replacement) if type(v) is str else fill(v, placeholder, replacement)
            for k, v in value.items()
        }
    if kind is list:
        return [
            v.replace(placeholder, replacement) if type(v) is str else fill(v, placeholder, replacement) for v in value
        ]
    if kind is str:
        return value.replace(placeholder, replacement)
    if isinstance(value, str):
        return value.replace(placeholder, replacement)
    if isinstance(value, list):
        return [fill(v, placeholder, replacement) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, placeholder, replacement) for k, v in value.items()}
    return value


class Template:
    """Scenario data filled again and again (an artifact or a reply's parts, once per task or answer): `fill` gives what
    `fill(value, placeholder, replacement)` gives, a fresh copy. Data that is plain JSON (and reads back from its
    text as itself, with the placeholder in no key) is filled in its JSON text, by one replacement and one decode;
    anything else by the recursive `fill`."""

    __slots__ = ("_marker", "_text", "placeholder", "value")

    def __init__(self, value: Any, placeholder: str) -> None:
        self.value, self.placeholder = value, placeholder
        self._marker = placeholder.encode()
        self._text = _json_text(value, placeholder)

    @property
    def by_text(self) -> bool:
        """Filled in its JSON text (else by the recursive `fill`)."""
        return self._text is not None

    def fill(self, replacement: str) -> Any:
        if self._text is None:
            return fill(self.value, self.placeholder, replacement)
        # the placeholder has no character JSON escapes: in the text it stands exactly where it stands in a string
        return jsontext.loads_checked(self._text.replace(self._marker, jsontext.string_content(replacement)))


def _json_text(value: Any, placeholder: str) -> bytes | None:
    """The JSON text of `value` when it reads back as `value` (types kept: no tuple, NaN or non-string key) and no key
    holds the placeholder; else None."""
    try:
        text = jsontext.dumps(value)
        same = jsontext.loads(text) == value and _same_types(jsontext.loads(text), value)
    except (TypeError, ValueError, RecursionError):
        return None
    return text if same and jsontext.orjson_reads(text) and not _in_keys(value, placeholder) else None


def _same_types(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return all(_same_types(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return True


def _in_keys(value: Any, placeholder: str) -> bool:
    if isinstance(value, dict):
        return any(placeholder in k or _in_keys(v, placeholder) for k, v in value.items())
    if isinstance(value, list):
        return any(_in_keys(v, placeholder) for v in value)
    return False


def occurrences(value: Any, placeholder: str) -> int:
    """How many times the placeholder appears in the strings of JSON-like data."""
    if isinstance(value, str):
        return value.count(placeholder)
    if isinstance(value, list):
        return sum(occurrences(v, placeholder) for v in value)
    if isinstance(value, dict):
        return sum(occurrences(v, placeholder) for v in value.values())
    return 0


#: The same server under another name: its other loopback name (127.0.0.1 <-> localhost), or the name `a2a-lab serve
#: --other-origin` gives it (where client and server are different hosts): an interface on another origin.
ALT_BASE_URL = "{alt_base_url}"
_ALIASES = {"127.0.0.1": "localhost", "localhost": "127.0.0.1"}


def split_host(hostport: str) -> tuple[str, str]:
    """`host:port` -> (host, port); `[::1]:80` -> (`[::1]`, `80`); no port: (host, "")."""
    if hostport.startswith("["):
        end = hostport.find("]")
        if end != -1:
            return hostport[: end + 1], hostport[end + 2 :] if hostport[end + 1 : end + 2] == ":" else ""
    if hostport.count(":") == 1:
        host, _, port = hostport.partition(":")
        return host, port
    return hostport, ""


class OriginError(LabError, ValueError):
    pass


def other_origin(text: str) -> str:
    """The `host[:port]` an `--other-origin` value names (`server-alt`, `server-alt:8000`, `http://server-alt:8000`);
    OriginError saying how to write it when it names none."""
    given = text.strip()
    scheme, sep, rest = given.partition("://")
    hostport = (rest if sep else given).rstrip("/")
    host, port = split_host(hostport)
    usage = (
        f"--other-origin {text!r}: give another name of this server that clients can reach, as HOST or HOST:PORT "
        "(e.g. server-alias, server-alias:8000, [::1]:8000), with no path"
    )
    if (sep and scheme.lower() not in ("http", "https")) or not host or "/" in hostport or "@" in hostport:
        raise OriginError(usage)
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise OriginError(usage)
    if not host.startswith("[") and (":" in host or any(c.isspace() for c in host)):
        raise OriginError(usage)
    return f"{host.lower()}:{port}" if port else host.lower()


def alt_origin(base_url: str, other: str | None = None) -> str:
    """`http://127.0.0.1:8000/x` -> `http://localhost:8000/x` (and back); other hosts map to 127.0.0.1. With `other`
    (`host[:port]`, as `other_origin` reads it), that host (and its port, else the base URL's) instead, unless the
    base URL is at that host already (then the loopback mapping)."""
    scheme, sep, rest = base_url.partition("://")
    hostport, slash, path = rest.partition("/")
    host, port = split_host(hostport)
    if other:
        other_host, other_port = split_host(other)
        if other_host.lower() != host.lower() or (other_port and other_port != port):
            chosen = other_port or port
            return f"{scheme}{sep}{other_host}{':' + chosen if chosen else ''}{slash}{path}"
    alias = _ALIASES.get(host, "127.0.0.1")
    return f"{scheme}{sep}{alias}{':' + port if port else ''}{slash}{path}"


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
    value: Any,
    base_url: str,
    grpc_address: str = NO_GRPC_ADDRESS,
    http_base_url: str | None = None,
    alt_base_url: str | None = None,
) -> Any:
    filled = fill(fill(value, ALT_BASE_URL, alt_base_url or alt_origin(base_url)), BASE_URL, base_url)
    if occurrences(value, HTTP_BASE_URL):
        filled = fill(filled, HTTP_BASE_URL, http_base_url or base_url)
    return fill(filled, GRPC_ADDRESS, grpc_address) if occurrences(value, GRPC_ADDRESS) else filled
