"""How a scenario's answers are written where a framework writes them its own way (personas). The JSON of every answer
of the A2A endpoints (unary bodies and stream events; raw replies and the card are sent as written): timestamps with
`+00:00` instead of `Z`, members in sorted or a framework's order, `data: null`, 0.3 stream flags; per interface if
need be (`interfaces`). And how they go out: the Content-Type of each kind of answer, SSE line ends and Cache-Control,
ErrorInfo without metadata, headers on every answer, express's body ETag."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from a2a_lab.protocol import jsontext, shapes
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version


class MediaKey(StrEnum):
    """Which answers a `style.media_types` entry names."""

    JSONRPC = Binding.JSONRPC.value
    HTTP_JSON = Binding.HTTP_JSON.value
    HTTP_JSON_0_3 = f"{Binding.HTTP_JSON.value} {Version.V0_3.value}"
    EVENT_STREAM = "event-stream"


class LineEnd(StrEnum):
    """How SSE lines end (WHATWG HTML §9.2.5 allows CRLF, LF and CR)."""

    CRLF = "crlf"
    LF = "lf"


def express_etag(body: bytes) -> str:
    """The weak ETag express (the `etag` package) puts on a body: its length in hex and the base64 SHA-1, cut."""
    digest = base64.b64encode(hashlib.sha1(body).digest()).decode()[:27]
    return f'W/"{len(body):x}-{digest}"'


@dataclass(frozen=True)
class Style:
    #: Timestamps end in `+00:00` (Python's datetime.isoformat) instead of `Z`.
    offset_timestamps: bool = False
    #: Every object's members in sorted order (pydantic/json.dumps(sort_keys=True) as some SDKs send them).
    sort_keys: bool = False
    #: HTTP+JSON error answers are `application/json` whatever the spec revision says for the binding's answers
    #: (a2a-sdk 1.3 answers successes as application/a2a+json, errors as application/json).
    json_errors: bool = False
    #: Stream events written by Python's json.dumps defaults (`, ` and `: ` separators), as sse-starlette servers
    #: that dump their events with the standard library send them.
    python_json_events: bool = False
    #: Member orders: an object whose members all appear in one of these lists (the first such) is written in that
    #: list's order, e.g. protobuf's field order (Task: id, contextId, status, artifacts, history, metadata).
    member_order: tuple[tuple[str, ...], ...] = ()
    #: A JSON-RPC error without `data` is written with `data: null` (pydantic's dump of an unset field).
    null_error_data: bool = False
    #: 0.3 JSON-RPC artifact updates (`kind: artifact-update`) carry `append` and `lastChunk` even when false.
    explicit_artifact_flags: bool = False
    #: 0.3 HTTP+JSON status updates (a `statusUpdate` with `final`) leave `final: false` out (ProtoJSON's default).
    omit_final_false: bool = False
    #: Per interface (`JSONRPC 0.3`: binding and version), the style of its answers' JSON instead of this one.
    interfaces: dict[str, Style] = field(default_factory=dict)
    #: The Content-Type of each kind of answer, where it is not a2a-lab's own.
    media_types: tuple[tuple[MediaKey, str], ...] = ()
    sse_line_end: LineEnd = LineEnd.CRLF
    #: The Cache-Control of SSE answers (None: sse-starlette's).
    sse_cache_control: str | None = None
    #: Errors' ErrorInfo carries `metadata` (some servers never send it).
    error_metadata: bool = True
    #: Extra response headers on every answer (the card's, streams' and `not_found`'s too), e.g. X-Powered-By.
    headers: tuple[tuple[str, str], ...] = ()
    #: Every non-streamed answer of the A2A endpoints carries a weak ETag of its body, computed as express does.
    body_etag: bool = False
    #: Its JSON is a2a-lab's own: nothing to restyle (set from the fields above, at creation).
    plain: bool = field(init=False, repr=False, compare=False)

    def of(self, interface: str | None) -> Style:
        """The style of one interface's answers (`JSONRPC 0.3`); None (not known yet): this one."""
        return self.interfaces.get(interface, self) if interface is not None else self

    def __post_init__(self) -> None:
        # Asked of every answer and every stream event: worked out once (frozen: nothing changes it later).
        plain = not (
            self.offset_timestamps
            or self.sort_keys
            or self.member_order
            or self.null_error_data
            or self.explicit_artifact_flags
            or self.omit_final_false
        )
        object.__setattr__(self, "plain", plain)

    def apply(self, value: Any) -> Any:
        if self.plain:
            return value
        if self.null_error_data and isinstance(value, dict) and isinstance(value.get("error"), dict):
            value = {**value, "error": {"data": None, **value["error"]}}
        return self._walk(value)

    def apply_body(self, body: bytes) -> bytes:
        """A JSON body restyled; anything that is not JSON is sent as it is."""
        if self.plain:
            return body
        try:
            value = jsontext.loads(body)
        except ValueError:
            return body
        return jsontext.dumps(self.apply(value))

    def _ordered(self, keys: list[str]) -> list[str]:
        """A member order that names every member wins; else sorted (`sort_keys`) or as they are."""
        for order in self.member_order:
            if all(k in order for k in keys):
                return sorted(keys, key=order.index)
        return sorted(keys) if self.sort_keys else keys

    def _walk(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._walk(v) for v in value]
        if not isinstance(value, dict):
            return value
        if self.explicit_artifact_flags and value.get("kind") == shapes.EVENT_KINDS_V03["artifactUpdate"]:
            value = {**value, "append": value.get("append", False), "lastChunk": value.get("lastChunk", False)}
        if self.omit_final_false and isinstance(value.get("statusUpdate"), dict):
            update = value["statusUpdate"]
            if update.get("final") is False:
                value = {**value, "statusUpdate": {k: v for k, v in update.items() if k != "final"}}
        keys = self._ordered(list(value))
        out: dict[str, Any] = {}
        for key in keys:
            item = value[key]
            if key == "timestamp" and self.offset_timestamps and isinstance(item, str) and item.endswith("Z"):
                out[key] = item[:-1] + "+00:00"
            else:
                out[key] = self._walk(item)
        return out

    def media_type(self, key: MediaKey, default: str) -> str:
        if not self.media_types:  # on every answer: most styles name none
            return default
        return next((value for k, value in self.media_types if k is key), default)

    def answer_type(self, binding: Binding, version: Version, default: str) -> str:
        """The Content-Type of a non-streamed JSON answer on this binding and version."""
        if binding is Binding.JSONRPC:
            return self.media_type(MediaKey.JSONRPC, default)
        if version is Version.V0_3:
            return self.media_type(MediaKey.HTTP_JSON_0_3, default)
        return self.media_type(MediaKey.HTTP_JSON, default)

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
