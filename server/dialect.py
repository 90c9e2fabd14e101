"""A scenario's dialect (`dialect:`): how one official server words what a2a-lab answers, so that a persona
(scenarios/personas/) answers as that server does where the spec leaves the wording free: the Content-Type of its
answers, its SSE framing, the code and message of its errors, and whether an HTTP+JSON route reads a request without
A2A-Version as its own version (the path names it) or as 0.3 (§3.6.2)."""

from __future__ import annotations

import dataclasses
import string
from dataclasses import dataclass
from enum import StrEnum

from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version


class MediaKey(StrEnum):
    """Which answers a `dialect.media_types` entry names."""

    JSONRPC = "JSONRPC"
    HTTP_JSON = "HTTP+JSON"
    HTTP_JSON_0_3 = "HTTP+JSON 0.3"
    EVENT_STREAM = "event-stream"


class LineEnd(StrEnum):
    """How SSE lines end (WHATWG HTML §9.2.5 allows CRLF, LF and CR)."""

    CRLF = "crlf"
    LF = "lf"


@dataclass(frozen=True, slots=True)
class ErrorWording:
    """One `dialect.errors` entry: the error a2a-lab would answer, where (every condition given must hold), and how
    this server answers it instead. `message` fills `{taskId}`, `{requestedVersion}` (and any other ErrorInfo
    metadata key), `{method}` (the JSON-RPC method or the HTTP+JSON route) and `{contentType}` (the request's)."""

    code: ErrorType
    operation: Operation | None = None
    binding: Binding | None = None
    version: Version | None = None
    requested: str | None = None
    answer: ErrorType | None = None
    message: str | None = None
    #: The ErrorInfo reason the answer carries, as its only detail (no google.rpc.BadRequest).
    reason: str | None = None
    #: The HTTP status of the answer instead of the binding's own.
    http_status: int | None = None
    #: Answer as an SSE stream of one `event: error` (a server that answers a streaming method's refusal so).
    sse: bool = False

    def matches(self, err: A2AError, op: Operation | None, binding: Binding, version: Version, requested: str) -> bool:
        return (
            err.type is self.code
            and (self.operation is None or self.operation is op)
            and (self.binding is None or self.binding is binding)
            and (self.version is None or self.version is version)
            and (self.requested is None or self.requested == requested)
        )


@dataclass(frozen=True, slots=True)
class NotFoundPage:
    """`dialect.not_found`: what the server answers a request nothing routes (an unknown path, an unknown HTTP+JSON
    route, a verb a path does not take), e.g. a web framework's own error page. `{verb}` and `{path}` in the body are
    the request's."""

    status: int
    content_type: str
    body: str

    def render(self, verb: str, path: str) -> bytes:
        return self.body.replace("{verb}", verb).replace("{path}", path).encode()


@dataclass(frozen=True, slots=True)
class Worded:
    """An error as a dialect answers it: the error, the HTTP status it names (None: the binding's own), and whether
    it goes out as an SSE `event: error`."""

    error: A2AError
    http_status: int | None = None
    sse: bool = False


class _Fill(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@dataclass(frozen=True, slots=True)
class Dialect:
    media_types: tuple[tuple[MediaKey, str], ...] = ()
    errors: tuple[ErrorWording, ...] = ()
    #: HTTP+JSON: a request without A2A-Version is served at its route's version (the path names it).
    route_version: bool = False
    sse_line_end: LineEnd = LineEnd.CRLF
    sse_cache_control: str | None = None
    #: Errors' ErrorInfo carries `metadata` (some servers never send it).
    error_metadata: bool = True
    #: What a request nothing routes gets instead of a2a-lab's own 404 (and 405).
    not_found: NotFoundPage | None = None
    #: JSON-RPC: a request without `id` (a Notification) is answered like one with `"id": null`.
    answer_notifications: bool = False

    def media_type(self, key: MediaKey, default: str) -> str:
        return next((value for k, value in self.media_types if k is key), default)

    def answer_type(self, binding: Binding, version: Version, default: str) -> str:
        """The Content-Type of a non-streamed JSON answer on this binding and version."""
        if binding is Binding.JSONRPC:
            return self.media_type(MediaKey.JSONRPC, default)
        if version is Version.V0_3:
            return self.media_type(MediaKey.HTTP_JSON_0_3, default)
        return self.media_type(MediaKey.HTTP_JSON, default)

    def stream_headers(self) -> dict[str, str]:
        """Headers an SSE answer carries instead of sse-starlette's own (empty: theirs)."""
        out: dict[str, str] = {}
        content_type = self.media_type(MediaKey.EVENT_STREAM, "")
        if content_type:
            out["content-type"] = content_type
        if self.sse_cache_control:
            out["cache-control"] = self.sse_cache_control
        return out

    @property
    def sse_separator(self) -> str:
        return "\n" if self.sse_line_end is LineEnd.LF else "\r\n"

    def word(
        self,
        err: A2AError,
        op: Operation | None,
        binding: Binding,
        version: Version,
        requested: str,
        method: str,
        content_type: str = "",
    ) -> Worded:
        """The error as this server answers it (unchanged where no entry matches but for `error_metadata`)."""
        for entry in self.errors:
            if not entry.matches(err, op, binding, version, requested):
                continue
            fill = _Fill(err.metadata)
            fill["method"] = method
            fill["contentType"] = content_type
            fill.setdefault("requestedVersion", requested)
            message = string.Formatter().vformat(entry.message, (), fill) if entry.message is not None else err.text
            worded = dataclasses.replace(
                err,
                type=entry.answer or err.type,
                message=message,
                field=None if entry.message is not None or entry.reason is not None else err.field,
                code_override=None if entry.answer is not None else err.code_override,
                info_metadata=self.error_metadata,
                reason_override=entry.reason,
            )
            return Worded(worded, entry.http_status, entry.sse)
        return Worded(dataclasses.replace(err, info_metadata=self.error_metadata))


#: A scenario without `dialect:` answers in a2a-lab's own words.
PLAIN = Dialect()
