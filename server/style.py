"""How a scenario's JSON answers are written where a framework writes them its own way (personas): timestamps with
`+00:00` instead of `Z`, object members in sorted order, HTTP+JSON errors as application/json. Applied to every JSON
answer of the A2A endpoints (unary bodies and stream events; raw replies and the card are sent as written)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from a2a_lab.protocol import jsontext


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
    #: Per interface (`JSONRPC 0.3`: binding and version), the style of its answers instead of this one.
    interfaces: dict[str, Style] = field(default_factory=dict)

    def of(self, interface: str | None) -> Style:
        """The style of one interface's answers (`JSONRPC 0.3`); None (not known yet): this one."""
        return self.interfaces.get(interface, self) if interface is not None else self

    @property
    def plain(self) -> bool:
        return not (self.offset_timestamps or self.sort_keys or self.member_order or self.null_error_data)

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
        keys = self._ordered(list(value))
        out: dict[str, Any] = {}
        for key in keys:
            item = value[key]
            if key == "timestamp" and self.offset_timestamps and isinstance(item, str) and item.endswith("Z"):
                out[key] = item[:-1] + "+00:00"
            else:
                out[key] = self._walk(item)
        return out
