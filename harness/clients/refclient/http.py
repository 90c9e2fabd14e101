"""The HTTP side: one httpx client with timeouts and a descriptive User-Agent, bounded reads, and
httpx exceptions translated into sentences."""

from __future__ import annotations

import json
import os
import ssl
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import metadata
from typing import Any

import httpx

from a2a_lab.contract import userfile
from a2a_lab.harness.clients.refclient.failures import ClientFailure, UsageFailure
from a2a_lab.harness.clients.refclient.options import ClientOptions

PROJECT_URL = "https://github.com/a2a-lab/a2a-lab"


def user_agent() -> str:
    try:
        version = metadata.version("a2a-lab")
    except metadata.PackageNotFoundError:
        version = "0+unknown"
    return f"a2a-lab-refclient/{version} (+{PROJECT_URL})"


#: TLS contexts built so far, by what they were built from (at most CONTEXTS_KEPT): loading a CA bundle costs
#: 20-60 ms of CPU, and a loop-mode client (or the probe) makes a new httpx client for every scenario.
CONTEXTS_KEPT = 16
_contexts: OrderedDict[tuple[object, ...], ssl.SSLContext] = OrderedDict()
_contexts_lock = threading.Lock()


def _file_key(path: str) -> tuple[object, ...]:
    """A file as a cache key: its path and what tells a rewritten file apart (inode, size, modification time)."""
    try:
        st = os.stat(path)
    except OSError:
        return (path,)  # loading it fails next, with the error message
    return (path, st.st_ino, st.st_size, st.st_mtime_ns)


def _cached(key: tuple[object, ...], build: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
    with _contexts_lock:
        context = _contexts.get(key)
        if context is not None:
            _contexts.move_to_end(key)
            return context
    context = build()
    with _contexts_lock:
        _contexts[key] = context
        while len(_contexts) > CONTEXTS_KEPT:
            _contexts.popitem(last=False)
    return context


def _default_context() -> ssl.SSLContext:
    """httpx's own default (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when set), built once per setting."""
    env = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    key = ("default", *(_file_key(e) if e else None for e in env))
    return _cached(key, httpx.create_ssl_context)


def tls_context(options: ClientOptions) -> ssl.SSLContext:
    """How https is verified: against `ca_file` (and presenting `client_cert`) when given, else httpx's default
    (certificates and host names are always verified, against SSL_CERT_FILE when set). Contexts are reused while
    the files they were built from are unchanged."""
    if options.ca_file is None and options.client_cert is None:
        return _default_context()
    for path in (options.ca_file, *(options.client_cert or ())):
        try:
            if path is not None:
                userfile.read_bytes(path, userfile.TLS)  # OpenSSL reads it next: first, that it is a file, and small
        except userfile.Refused as exc:
            raise UsageFailure(str(exc)) from None
    files = (options.ca_file, *(options.client_cert or ()))
    key = ("files", *(_file_key(f) if f else None for f in files))

    def build() -> ssl.SSLContext:
        try:
            context = ssl.create_default_context(cafile=options.ca_file)
            if options.client_cert is not None:
                context.load_cert_chain(*options.client_cert)
        except (OSError, ssl.SSLError) as exc:
            raise UsageFailure(
                f"cannot load the TLS files (CA {options.ca_file}, client {options.client_cert}): {exc}"
            ) from None
        return context

    return _cached(key, build)


def make_client(options: ClientOptions, transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """The client's httpx client; `transport` replaces the network layer (e.g. a recording one)."""
    timeout = httpx.Timeout(options.read_timeout, connect=options.connect_timeout)
    return httpx.Client(
        timeout=timeout,
        headers={"User-Agent": user_agent()},
        follow_redirects=False,
        transport=transport,
        verify=tls_context(options),
    )


def describe(exc: httpx.HTTPError, what: str, options: ClientOptions) -> ClientFailure:
    """A transport failure as a sentence naming what was being done."""
    if isinstance(exc, httpx.ConnectTimeout):
        text = f"could not connect within {options.connect_timeout:g} s"
    elif isinstance(exc, httpx.ReadTimeout):
        text = f"no answer within {options.read_timeout:g} s"
    elif isinstance(exc, httpx.TimeoutException):
        text = f"timed out ({type(exc).__name__})"
    elif isinstance(exc, httpx.ConnectError):
        text = f"could not connect ({exc or 'connection refused'})"
    elif isinstance(exc, httpx.RemoteProtocolError):
        text = f"the server broke off the answer or sent malformed HTTP ({exc or 'connection closed early'})"
    elif isinstance(exc, httpx.ReadError):
        text = f"the connection was reset while reading the answer ({exc or 'read error'})"
    elif isinstance(exc, httpx.WriteError):
        text = f"the connection failed while sending the request ({exc or 'write error'})"
    elif isinstance(exc, httpx.TooManyRedirects):
        text = "too many redirects"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return ClientFailure("transport", f"{what}: {text}", {"exception": type(exc).__name__})


def read_limited(response: httpx.Response, limit: int, what: str) -> bytes:
    """Read a streamed body, refusing more than `limit` bytes (checked before and while reading)."""
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise ClientFailure(
            "invalid_response",
            f"{what}: the answer declares {declared} bytes, more than the limit of {limit} bytes",
            {"limit": limit, "size": int(declared)},
        )
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise ClientFailure(
                "invalid_response", f"{what}: the answer is larger than the limit of {limit} bytes", {"limit": limit}
            )
        chunks.append(chunk)
    return b"".join(chunks)


def read_head(response: httpx.Response, size: int = 2048) -> bytes:
    """The start of a body we only quote (an error page): never more than `size` bytes are read."""
    chunks, got = [], 0
    for chunk in response.iter_bytes():
        chunks.append(chunk)
        got += len(chunk)
        if got >= size:
            break
    return b"".join(chunks)[:size]


@contextmanager
def guarded(what: str, options: ClientOptions) -> Iterator[None]:
    """Turn httpx exceptions raised inside into ClientFailure."""
    try:
        yield
    except httpx.HTTPError as exc:
        raise describe(exc, what, options) from None
    except httpx.StreamError as exc:
        raise ClientFailure("transport", f"{what}: {exc}", {"exception": type(exc).__name__}) from None


def media_type(response: httpx.Response) -> str:
    value: str = response.headers.get("content-type", "")
    return value.split(";", 1)[0].strip().lower()


def snippet(body: bytes, size: int = 160) -> str:
    text = body[:size].decode("utf-8", "replace")
    text = " ".join(text.split())
    return text + ("..." if len(body) > size else "")


def decode_json(body: bytes, response: httpx.Response, what: str) -> Any:
    """JSON from a body, or a failure that says what came instead (an HTML error page, say)."""
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        kind = media_type(response) or "no content type"
        shown = f": {snippet(body)!r}" if body else " (empty body)"
        raise ClientFailure(
            "invalid_response",
            f"{what}: HTTP {response.status_code} answer is not JSON ({kind}){shown}",
            {"http_status": response.status_code, "content_type": kind},
        ) from None
