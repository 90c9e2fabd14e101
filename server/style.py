"""How a scenario's answers are written where a framework writes them its own way (personas): timestamps with
`+00:00` instead of `Z`, object members in sorted order, the Content-Type of each kind of answer, SSE line ends and
Cache-Control, ErrorInfo without metadata, and what a request nothing routes gets. The JSON restyling applies to every
JSON answer of the A2A endpoints (unary bodies and stream events; raw replies and the card are sent as written)."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from a2a_lab.protocol import jsontext
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version


class MediaKey(StrEnum):
    """Which answers a `style.media_types` entry names."""

    JSONRPC = "JSONRPC"
    HTTP_JSON = "HTTP+JSON"
    HTTP_JSON_0_3 = "HTTP+JSON 0.3"
    EVENT_STREAM = "event-stream"


class LineEnd(StrEnum):
    """How SSE lines end (WHATWG HTML §9.2.5 allows CRLF, LF and CR)."""

    CRLF = "crlf"
    LF = "lf"


def express_etag(body: bytes) -> str:
    """The weak ETag express (the `etag` package) puts on a body: its length in hex and the base64 SHA-1, cut."""
    digest = base64.b64encode(hashlib.sha1(body).digest()).decode()[:27]
    return f'W/"{len(body):x}-{digest}"'


@dataclass(frozen=True, slots=True)
class NotFoundPage:
    """`style.not_found`: what the server answers a request nothing routes (an unknown path, an unknown HTTP+JSON
    route, a verb a path does not take), e.g. a web framework's own error page. `{verb}` and `{path}` in the body are
    the request's."""

    status: int
    content_type: str
    body: str
    #: Extra response headers of the page (a framework's security headers, say).
    headers: tuple[tuple[str, str], ...] = ()

    def render(self, verb: str, path: str) -> bytes:
        return self.body.replace("{verb}", verb).replace("{path}", path).encode()


@dataclass(frozen=True)
class Style:
    #: Timestamps end in `+00:00` (Python's datetime.isoformat) instead of `Z`.
    offset_timestamps: bool = False
    #: Every object's members in sorted order (pydantic/json.dumps(sort_keys=True) as some SDKs send them).
    sort_keys: bool = False
    #: HTTP+JSON error answers are `application/json` whatever the spec revision says for the binding's answers
    #: (a2a-sdk 1.3 answers successes as application/a2a+json, errors as application/json).
    json_errors: bool = False
    #: The Content-Type of each kind of answer, where it is not a2a-lab's own.
    media_types: tuple[tuple[MediaKey, str], ...] = ()
    sse_line_end: LineEnd = LineEnd.CRLF
    #: The Cache-Control of SSE answers (None: sse-starlette's).
    sse_cache_control: str | None = None
    #: Errors' ErrorInfo carries `metadata` (some servers never send it).
    error_metadata: bool = True
    #: What a request nothing routes gets instead of a2a-lab's own 404 (and 405).
    not_found: NotFoundPage | None = None
    #: Extra response headers on every answer (the card's, streams' and not_found's too), e.g. X-Powered-By.
    headers: tuple[tuple[str, str], ...] = ()
    #: Every non-streamed answer of the A2A endpoints carries a weak ETag of its body, computed as express does.
    body_etag: bool = False
    #: Member orders: an object whose members all appear in one of these lists (the first that holds them all) is
    #: written in that list's order (a framework writing its types' field order).
    member_order: tuple[tuple[str, ...], ...] = ()
    #: 0.3 JSON-RPC artifact updates (`kind: artifact-update`) carry `append` and `lastChunk` even when false.
    explicit_artifact_flags: bool = False
    #: 0.3 HTTP+JSON status updates (a `statusUpdate` with `final`) leave `final: false` out (ProtoJSON's default).
    omit_final_false: bool = False

    @property
    def plain(self) -> bool:
        return not (
            self.offset_timestamps
            or self.sort_keys
            or self.member_order
            or self.explicit_artifact_flags
            or self.omit_final_false
        )

    def apply(self, value: Any) -> Any:
        if self.plain:
            return value
        return self._walk(value)

    def apply_body(self, body: bytes) -> bytes:
        """A JSON body restyled; anything that is not JSON is sent as it is."""
        if self.plain:
            return body
        try:
            value = jsontext.loads(body)
        except ValueError:
            return body
        return jsontext.dumps(self._walk(value))

    def _walk(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._walk(v) for v in value]
        if not isinstance(value, dict):
            return value
        if self.explicit_artifact_flags and value.get("kind") == "artifact-update":
            value = {**value, "append": value.get("append", False), "lastChunk": value.get("lastChunk", False)}
        if self.omit_final_false and isinstance(value.get("statusUpdate"), dict):
            update = value["statusUpdate"]
            if update.get("final") is False:
                value = {**value, "statusUpdate": {k: v for k, v in update.items() if k != "final"}}
        keys = sorted(value) if self.sort_keys else self._ordered(list(value))
        out: dict[str, Any] = {}
        for key in keys:
            item = value[key]
            if key == "timestamp" and self.offset_timestamps and isinstance(item, str) and item.endswith("Z"):
                out[key] = item[:-1] + "+00:00"
            else:
                out[key] = self._walk(item)
        return out

    def _ordered(self, keys: list[str]) -> list[str]:
        for order in self.member_order:
            if all(key in order for key in keys):
                return sorted(keys, key=order.index)
        return keys

    def media_type(self, key: MediaKey, default: str) -> str:
        return next((value for k, value in self.media_types if k is key), default)

    def answer_type(self, binding: Binding, version: Version, default: str) -> str:
        """The Content-Type of a non-streamed JSON answer on this binding and version."""
        if binding is Binding.JSONRPC:
            return self.media_type(MediaKey.JSONRPC, default)
        if version is Version.V0_3:
            return self.media_type(MediaKey.HTTP_JSON_0_3, default)
        return self.media_type(MediaKey.HTTP_JSON, default)

    def page_headers(self, page: NotFoundPage) -> list[tuple[str, str]]:
        """The extra headers of the not_found page."""
        return [*self.headers, *page.headers]

    def answer_headers(self, body: bytes) -> list[tuple[str, str]]:
        """The extra headers of a non-streamed answer with this body."""
        if not self.body_etag:
            return list(self.headers)
        return [*self.headers, ("etag", express_etag(body))]

    def stream_headers(self) -> dict[str, str]:
        """Headers an SSE answer carries besides (or instead of) sse-starlette's own."""
        out: dict[str, str] = {name.lower(): value for name, value in self.headers}
        content_type = self.media_type(MediaKey.EVENT_STREAM, "")
        if content_type:
            out["content-type"] = content_type
        if self.sse_cache_control:
            out["cache-control"] = self.sse_cache_control
        return out

    @property
    def sse_separator(self) -> str:
        return "\n" if self.sse_line_end is LineEnd.LF else "\r\n"
