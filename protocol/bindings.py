"""Protocol bindings as spelled in agent cards (spec §5, §4.4.6)."""

from __future__ import annotations

from enum import Enum


class Binding(str, Enum):
    JSONRPC = "JSONRPC"
    HTTP_JSON = "HTTP+JSON"
    GRPC = "GRPC"


def parse(text: str | None) -> Binding | None:
    """The core binding a card string names, or None for a custom (URI) or unknown binding."""
    if text is None:
        return None
    for binding in Binding:
        if binding.value == text:
            return binding
    return None


#: Short names used on the command line and in scenario files.
SHORT_NAMES: dict[str, Binding] = {
    "jsonrpc": Binding.JSONRPC,
    "http+json": Binding.HTTP_JSON,
    "rest": Binding.HTTP_JSON,
    "grpc": Binding.GRPC,
}

#: Content types.
JSON = "application/json"
A2A_JSON = "application/a2a+json"
EVENT_STREAM = "text/event-stream"
#: Newline-delimited JSON: not an A2A framing (streams are SSE), but what some gateways stream; one JSON text a line.
NDJSON = "application/x-ndjson"
