"""Reading requests safely: size and time limits, JSON decoding with a depth limit, headers and query."""

from __future__ import annotations

import asyncio
import types
from collections.abc import Awaitable, Generator
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from starlette.types import Message, Receive, Scope

from a2a_lab.protocol import jsontext, versions
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.exceptions import LabError

#: How long a client has to send a whole request body (a slow or stalled body must not hold a handler forever).
BODY_SECONDS = 10.0
#: Sent with the 408 of a body that did not arrive in time: the rest of it may still be on its way.
CLOSE = [("connection", "close")]


_T = TypeVar("_T")


class BodyTooLarge(LabError):
    pass


class BodyTimeout(LabError):
    """The body did not arrive within the deadline; `received` is what came before it."""

    def __init__(self, received: bytes, seconds: float) -> None:
        super().__init__(f"the request body did not arrive within {seconds:g} s ({len(received)} bytes received)")
        self.received, self.seconds = received, seconds


async def read_body(receive: Receive, limit: int, seconds: float | None = BODY_SECONDS) -> bytes:
    """The whole body, or BodyTooLarge past `limit` bytes, or BodyTimeout when it takes longer than `seconds`
    (None: no deadline). A client that disconnects mid-body raises ConnectionResetError."""
    chunks: list[bytes] = []
    size = 0
    deadline = None if seconds is None else asyncio.get_running_loop().time() + seconds
    try:
        while True:
            message = await _receive_by(receive, deadline)
            if message["type"] == "http.disconnect":
                raise ConnectionResetError("client disconnected while sending the body")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge(size)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)
    except TimeoutError:
        raise BodyTimeout(b"".join(chunks), seconds or 0.0) from None


async def _receive_by(receive: Receive, deadline: float | None) -> Message:
    """The next ASGI message, or TimeoutError at `deadline` (event loop time; None: none).

    A message that is there already (a small body arrives with the request head) is taken without arming a timer
    (await_by): the timer costs more than the rest of reading a body."""
    return await await_by(receive(), deadline)


async def await_by(awaitable: Awaitable[_T], deadline: float | None, seconds: float | None = None) -> _T:
    """`await awaitable`, or TimeoutError at `deadline` (event loop time; None: none) or, given `seconds`, once it
    has waited that long.

    The awaitable is stepped once by hand, and only when it suspends does the rest run under asyncio.timeout_at: one
    that is ready at once (a body that came with its head, a stream's next event that is due) arms no timer and, with
    `seconds`, reads no clock."""
    step = awaitable.__await__()
    try:
        pending = step.send(None)
    except StopIteration as done:
        value: _T = done.value
        return value
    if seconds is not None:
        deadline = asyncio.get_running_loop().time() + seconds
    async with asyncio.timeout_at(deadline):
        return await _resume(step, pending)


@types.coroutine
def _resume(step: Generator[Any, None, _T], pending: Any) -> Generator[Any, None, _T]:
    """Go on awaiting an awaitable whose first step suspended, yielding `pending` to the event loop: what
    `yield from step` would do had it started the step itself (asyncio resumes with send(None) or throws in a
    cancellation, which goes on to the awaitable)."""
    try:
        yield pending
    except GeneratorExit:
        step.close()
        raise
    except BaseException as exc:
        try:
            pending = step.throw(exc)
        except StopIteration as done:
            value: _T = done.value  # the awaitable's result (StopIteration.value is untyped)
            return value
        return (yield from _resume(step, pending))
    return (yield from step)


def timeout_message(exc: BodyTimeout) -> str:
    return f"Request Timeout: {exc} (limits.body_seconds); the connection is closed"


_HEADERS_KEY = "a2a_lab.headers"


def headers_of(scope: Scope) -> dict[str, str]:
    """The request's headers, lowercased and joined; decoded once per request (several layers read them)."""
    cached: dict[str, str] | None = scope.get(_HEADERS_KEY)
    if cached is not None:
        return cached
    raw = scope.get("headers", [])
    out = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in raw}
    if len(out) != len(raw):
        # a name given more than once: its values joined, in order (the comprehension kept the last)
        out = {}
        for key, value in raw:
            name = key.decode("latin-1").lower()
            text = value.decode("latin-1")
            out[name] = f"{out[name]}, {text}" if name in out else text
    scope[_HEADERS_KEY] = out
    return out


def query_of(scope: Scope) -> dict[str, str]:
    raw = scope.get("query_string", b"").decode("latin-1")
    if not raw:
        return {}
    try:
        return dict(parse_qsl(raw, keep_blank_values=True))
    except ValueError:
        return {}


def requested_version(headers: dict[str, str], query: dict[str, str]) -> tuple[str, bool]:
    """(Major.Minor asked for, whether the client said anything); the header wins over the query."""
    given = headers.get(versions.HEADER.lower())
    if given is None:
        given = query.get(versions.QUERY_PARAM)
    return versions.requested(given), bool(given and given.strip())


def decode_json(body: bytes, depth_limit: int) -> Any:
    """Decode a JSON body or raise A2AError: -32700 for bad JSON, -32600 for excessive nesting.

    NaN, Infinity and numbers that overflow to infinity are refused (jsontext.loads)."""
    try:
        value = jsontext.loads(body)
    except UnicodeDecodeError as exc:
        raise A2AError(
            ErrorType.PARSE_ERROR, f"Invalid JSON payload: the body is not UTF-8 (byte {exc.start})"
        ) from None
    except RecursionError:
        raise A2AError(
            ErrorType.INVALID_REQUEST, f"Request payload validation error: JSON nested deeper than {depth_limit} levels"
        ) from None
    except ValueError as exc:
        raise A2AError(ErrorType.PARSE_ERROR, f"Invalid JSON payload: {exc}") from None
    # Nesting never exceeds the number of brackets: most bodies need no walk.
    if body.count(b"{") + body.count(b"[") > depth_limit and not jsontext.within_depth(value, depth_limit):
        raise A2AError(
            ErrorType.INVALID_REQUEST, f"Request payload validation error: JSON nested deeper than {depth_limit} levels"
        )
    return value


def is_json_type(content_type: str | None, allowed: tuple[str, ...]) -> bool:
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media in allowed


#: Compact UTF-8 JSON (jsontext.dumps).
dumps = jsontext.dumps
