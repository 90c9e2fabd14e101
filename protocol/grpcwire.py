"""The gRPC binding's names (spec §10): the service, its method paths, the version metadata key, status codes.

Pure data: nothing here needs grpcio or protobuf, so every command can speak of gRPC even where an install left the gRPC
dependencies out.
"""

from __future__ import annotations

import base64
import functools
import importlib.machinery
import importlib.util
from collections.abc import Iterable, Mapping
from enum import StrEnum

from .errors import ERROR_INFO_TYPE, EnvelopeProblem, detail_problems
from .operations import SPECS, Operation
from .versions import HEADER, Version

#: The A2A 1.0 gRPC service (package `lf.a2a.v1` since 1.0; it was `a2a.v1` in 0.3).
SERVICE = "lf.a2a.v1.A2AService"
#: The 0.3 service name, which a 1.0-only server does not serve (a client that still calls it is told so).
SERVICE_V03 = "a2a.v1.A2AService"
#: Where a2a-lab's journal says a gRPC call went (an endpoint's `path`): the service, as the method paths begin.
ENDPOINT_PATH = "/" + SERVICE
#: Service parameters travel as gRPC metadata (§10.2): the version under the lower-cased header name.
VERSION_METADATA = HEADER.lower()
#: The trailing metadata key carrying a serialized google.rpc.Status (the rich error model).
STATUS_DETAILS_KEY = "grpc-status-details-bin"
#: What a gRPC answer is journaled as (HTTP/2 content type).
CONTENT_TYPE = "application/grpc"


class Code(StrEnum):
    """The canonical gRPC status codes, in number order (grpc/status.h; the same in every gRPC implementation)."""

    OK = "OK"
    CANCELLED = "CANCELLED"
    UNKNOWN = "UNKNOWN"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    NOT_FOUND = "NOT_FOUND"
    ALREADY_EXISTS = "ALREADY_EXISTS"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    ABORTED = "ABORTED"
    OUT_OF_RANGE = "OUT_OF_RANGE"
    UNIMPLEMENTED = "UNIMPLEMENTED"
    INTERNAL = "INTERNAL"
    UNAVAILABLE = "UNAVAILABLE"
    DATA_LOSS = "DATA_LOSS"
    UNAUTHENTICATED = "UNAUTHENTICATED"

    @property
    def number(self) -> int:
        return _NUMBERS[self]


_NUMBERS: dict[Code, int] = {code: number for number, code in enumerate(Code)}
_BY_NUMBER: dict[int, Code] = {number: code for code, number in _NUMBERS.items()}


def code_of(number: int) -> Code | None:
    return _BY_NUMBER.get(number)


_BY_PATH: dict[str, Operation] = {
    f"/{SERVICE}/{spec.jsonrpc[Version.V1_0]}": spec.operation
    for spec in SPECS.values()
    if Version.V1_0 in spec.jsonrpc
}


#: Why gRPC is unavailable, for every message that says so.
MISSING = (
    "gRPC needs grpcio, protobuf and the A2A proto types (a2a-sdk), a2a-lab's own dependencies, missing from this"
    " environment (installed with --no-deps?): pip install 'a2a-lab[grpc]' (the grpc extra) puts them back"
)


#: What gRPC needs importable: grpcio, protobuf, google.rpc's Status, the A2A proto types (a2a-sdk's generated ones).
MODULES = ("grpc", "google.protobuf", "google.rpc.status_pb2", "a2a.types.a2a_pb2")


def missing() -> str | None:
    """None when this Python can speak gRPC (grpcio and the A2A proto types are installed), else why not."""
    for module in MODULES:
        try:
            if not _installed(module):
                return f"{MISSING}; {module} is not installed"
        except (ImportError, ValueError, AttributeError):
            return f"{MISSING}; {module} is not installed"
    return None


@functools.cache  # what is installed does not change while a process runs; the reference client asks per scenario
def _installed(module: str) -> bool:
    """Whether `module` can be found, its parent packages looked up on sys.path without importing them
    (importlib.util.find_spec of `a2a.types.a2a_pb2` imports a2a.types and protobuf: 70 ms for every command that
    only asks)."""
    top, *rest = module.split(".")
    spec = importlib.util.find_spec(top)
    name = top
    try:
        for part in rest:
            if spec is None or not spec.submodule_search_locations:
                return False
            name += "." + part
            spec = importlib.machinery.PathFinder.find_spec(name, list(spec.submodule_search_locations))
    except KeyError:  # a namespace package on the way (google): importing one runs no code, so let importlib look
        return importlib.util.find_spec(module) is not None
    return spec is not None


def metadata_headers(metadata: Iterable[tuple[str, str | bytes]]) -> list[tuple[bytes, bytes]]:
    """Call metadata as a journal keeps headers: keys lower-cased, binary (`-bin`) values base64 as they travel."""
    out: list[tuple[bytes, bytes]] = []
    for key, value in metadata:
        text = base64.b64encode(value) if isinstance(value, bytes) else str(value).encode("latin-1", "replace")
        out.append((key.lower().encode("latin-1"), text))
    return out


def method_path(op: Operation) -> str:
    """`/lf.a2a.v1.A2AService/SendMessage`: the RPC names are the 1.0 JSON-RPC method names (§10.3)."""
    return f"/{SERVICE}/{SPECS[op].jsonrpc[Version.V1_0]}"


def operation_of(path: str) -> Operation | None:
    """The operation a gRPC method path calls, or None for anything the 1.0 service does not define."""
    return _BY_PATH.get(path)


def status_name(number: int) -> str:
    code = code_of(number)
    return code.value if code is not None else f"CODE_{number}"


#: Target schemes gRPC's resolvers read in place of a host (`unix:5555` is a Unix socket named 5555, not TCP).
RESOLVER_SCHEMES = frozenset({"unix", "unix-abstract", "vsock", "ipv4", "ipv6", "dns", "xds", "google-c2p"})


def split_address(url: str) -> tuple[str, int] | None:
    """`host:port` (or `[v6]:port`) as the spec wants a gRPC interface url; None for anything else (a scheme, a path,
    no port, a host gRPC reads as a resolver's scheme: `unix:5555`)."""
    if "/" in url or not url:
        return None
    host, sep, port = url.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 or host.lower() in RESOLVER_SCHEMES:
        return None
    if host.startswith("["):
        if not host.endswith("]"):
            return None
        host = host[1:-1]
    elif ":" in host:
        return None
    return host, int(port)


#: The port an http(s) URL without one means. Spec revision v1.0.1's proto wrote its gRPC url example as an https URL
#: (`https://grpc.example.com/a2a`); v1.0.2 says `hostname:port` (revisions.GRPC_URL_HOST_PORT). Clients read both.
_DEFAULT_PORTS = {"https://": 443, "http://": 80}


def address_of(url: str) -> str | None:
    """The `host:port` a client can dial for a gRPC interface url, reading the common mistakes too (`grpc://h:p`,
    `http://h:p/path`, `dns:///h:p`) and v1.0.1's example form (`https://h/path`: h:443); None when no address can
    be found."""
    rest, default = url.strip(), None
    for scheme in ("dns:///", "grpc://", "grpcs://", "http://", "https://", "dns://"):
        if rest.lower().startswith(scheme):
            rest, default = rest[len(scheme) :], _DEFAULT_PORTS.get(scheme)
            break
    rest = rest.split("/", 1)[0]
    if split_address(rest) is None and default is not None and rest and ":" not in rest:
        rest = f"{rest}:{default}"  # spec revision v1.0.1's own example: https://grpc.example.com/a2a
    return rest if split_address(rest) is not None else None


#: The schemes a gRPC interface url is written with that say the connection is TLS, and those that say it is not.
_TLS_SCHEMES = ("grpcs://", "https://")
_PLAIN_SCHEMES = ("grpc://", "http://")


def tls_of(url: str) -> bool | None:
    """Whether a gRPC interface url says its connection is TLS (`grpcs://`, `https://`), plaintext (`grpc://`,
    `http://`), or nothing (`host:port`, `dns:///host:port`: None, the dialer decides)."""
    lowered = url.strip().lower()
    if lowered.startswith(_TLS_SCHEMES):
        return True
    if lowered.startswith(_PLAIN_SCHEMES):
        return False
    return None


def with_address(url: str, address: str) -> str:
    """The gRPC interface url `url` written for another `host:port` in the same form: `host:port` stays `host:port`,
    `grpc://h:p/x` becomes `grpc://ADDRESS/x`, `dns:///h:p` `dns:///ADDRESS`; a TLS scheme (`grpcs://`,
    `https://`) becomes its plaintext one (`grpc://`, `http://`), since `address` is dialed in plaintext."""
    rest = url.strip()
    scheme = ""
    for known in ("dns:///", "grpc://", "grpcs://", "http://", "https://", "dns://"):
        if rest.lower().startswith(known):
            scheme, rest = known, rest[len(known) :]
            break
    plain = {"grpcs://": "grpc://", "https://": "http://"}.get(scheme, scheme)
    _, slash, tail = rest.partition("/")
    return f"{plain}{address}{slash}{tail}"


def url_problem(url: str) -> str | None:
    """Why a gRPC interface url is not the `host:port` the spec asks for (§5.6 AgentInterface.url), or None when it
    is; the message names the address a lenient client would dial, if any."""
    if split_address(url) is not None:
        return None
    rest = url.strip()
    flaws = []
    if "://" in rest or rest.lower().startswith("dns:") or rest.split(":", 1)[0].lower() in RESOLVER_SCHEMES:
        flaws.append("a scheme")
        rest = (rest.split("://", 1)[1] if "://" in rest else rest[4:]).lstrip("/")
    if "/" in rest.rstrip("/"):
        flaws.append("a path")
    elif rest.endswith("/"):
        flaws.append("a trailing slash")
    host, sep, port = rest.split("/", 1)[0].rpartition(":")
    if not sep or not port.isdigit() or host.endswith(":"):
        flaws.append("no port")
    elif not 0 < int(port) < 65536:
        flaws.append(f"port {port}")
    said = ", ".join(flaws[:-1]) + " and " + flaws[-1] if len(flaws) > 1 else "".join(flaws) or "an unbracketed IPv6"
    address = address_of(url)
    dialed = f"a client can only guess it means {address}" if address else "no address a client can dial"
    return f"{url!r} is not host:port (it has {said}); {dialed}"


def status_problems(code: Code, status: Mapping[str, object] | None) -> list[EnvelopeProblem]:
    """What is wrong with a gRPC error answer: the call's status `code` and its google.rpc.Status (the
    `grpc-status-details-bin` trailer as ProtoJSON; None when it was not sent).

    §10.6: the error travels as a google.rpc.Status whose details carry, for A2A errors, an ErrorInfo with reason and
    domain. Whether an error was an A2A one is for whoever knows which error was due: a missing ErrorInfo is a SHOULD
    here (a client cannot tell which error it is), the checks that provoke a named error demand its reason.
    """
    if status is None:
        return [
            EnvelopeProblem(
                f"{code.value} without {STATUS_DETAILS_KEY}: no google.rpc.Status details, so no ErrorInfo "
                "(§10.6 requires one for A2A errors)",
                should=True,
            )
        ]
    out: list[EnvelopeProblem] = []
    number = status.get("code", 0)  # ProtoJSON leaves out a zero code
    if number != code.number:
        out.append(
            EnvelopeProblem(
                f"the google.rpc.Status code {number} ({status_name(number) if isinstance(number, int) else '?'}) "
                f"differs from the call's status {code.number} ({code.value})"
            )
        )
    details = status.get("details", [])
    out.extend(detail_problems(details, "status.details"))
    if isinstance(details, list) and not any(
        isinstance(d, dict) and d.get("@type") == ERROR_INFO_TYPE for d in details
    ):
        out.append(EnvelopeProblem("status.details has no ErrorInfo (§10.6 requires one for A2A errors)", should=True))
    return out
