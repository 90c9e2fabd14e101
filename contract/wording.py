"""A scenario's `error_messages`: how a framework words the errors a2a-lab answers (personas). Each entry names an
error (its JSON-RPC code) and, optionally, where it applies; the first that matches gives the message (placeholders
filled from the error and the request), and may answer another error, carry an ErrorInfo reason of its own, take
another HTTP status, or go out as an SSE error event. A worded error carries no field and none of a2a-lab's own
ErrorInfo metadata (the framework's carry none)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version


@dataclass(frozen=True, slots=True)
class ErrorWording:
    """One entry: the error a2a-lab would answer (by code), where (every condition given must hold), and how it is
    answered instead. `message` fills `{taskId}` and any other key of the error's ErrorInfo metadata,
    `{version}` / `{requestedVersion}` (the A2A version the request asked for), `{method}` (the JSON-RPC method or
    the HTTP+JSON route) and `{contentType}` (the request's)."""

    code: int
    #: Only for an error about this request field (`params`, `jsonrpc`, `message.role`, ...).
    field: str | None = None
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
            err.code == self.code
            and (self.field is None or self.field == err.field)
            and (self.operation is None or self.operation is op)
            and (self.binding is None or self.binding is binding)
            and (self.version is None or self.version is version)
            and (self.requested is None or self.requested == requested)
        )


@dataclass(frozen=True, slots=True)
class Worded:
    """An error as the scenario answers it: the error, the HTTP status its wording names (None: the binding's own),
    and whether it goes out as an SSE `event: error`."""

    error: A2AError
    http_status: int | None = None
    sse: bool = False


#: A placeholder in a message: `{name}`; any other brace is text.
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class Asked:
    """What a wording may depend on besides the error: where the request came and what it asked for."""

    op: Operation | None
    binding: Binding
    version: Version
    requested: str
    method: str = ""
    content_type: str = ""


def _filled(message: str, err: A2AError, asked: Asked) -> str:
    """The message with its placeholders filled in; an unknown `{name}`, and any other brace, stays as written."""
    fill = {"requestedVersion": asked.requested, "version": asked.requested, **err.metadata}
    fill.update(method=asked.method, contentType=asked.content_type)
    return _PLACEHOLDER.sub(lambda m: fill.get(m[1], m[0]), message)


def word(wordings: tuple[ErrorWording, ...], err: A2AError, asked: Asked, error_metadata: bool = True) -> Worded:
    """The error as the first matching entry words it (unchanged where none does), its ErrorInfo without metadata
    when the scenario's style says so."""
    for entry in wordings:
        if not entry.matches(err, asked.op, asked.binding, asked.version, asked.requested):
            continue
        message = err.text if entry.message is None else _filled(entry.message, err, asked)
        worded = dataclasses.replace(
            err,
            type=entry.answer or err.type,
            message=message,
            field=None,
            metadata={},
            code_override=None if entry.answer is not None else err.code_override,
            info_metadata=error_metadata,
            reason_override=entry.reason,
        )
        return Worded(worded, entry.http_status, entry.sse)
    if error_metadata:
        return Worded(err)
    return Worded(dataclasses.replace(err, info_metadata=False))
