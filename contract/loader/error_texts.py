"""Error types and their wording (`error_messages:`): how a scenario words the A2A errors it sends."""

from __future__ import annotations

from typing import Any

from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation

from ..suggest import one_of
from ..wording import ErrorWording
from .reader import Reader


def _error_type(r: Reader, value: Any, path: str) -> ErrorType:
    """An error a2a-lab knows, by name (`TaskNotFound`) or JSON-RPC code (-32001)."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise r.fail(path, "expected an error name or a JSON-RPC code", "e.g. TaskNotFound or -32601")
    err, _ = r.error(value, path, "reply.stream.error")
    if err.code_override is not None:
        raise r.fail(path, f"{value!r} is not an A2A or JSON-RPC error a2a-lab knows", "e.g. TaskNotFound or -32601")
    return err.type


def _error_wording(r: Reader, item: Any, path: str) -> ErrorWording:
    """One `error_messages[]` entry: the error (name or code), where it applies, and how it is answered instead."""
    e = r.mapping(item, path, "error_messages[]")
    if "code" not in e:
        raise r.fail(f"{path}.code", "required: the error a2a-lab would answer (a name or a JSON-RPC code)")
    op = None
    if "operation" in e:
        try:
            op = Operation(r.string(e["operation"], f"{path}.operation"))
        except ValueError:
            raise r.fail(
                f"{path}.operation", "unknown operation", one_of(str(e["operation"]), [o.value for o in Operation])
            ) from None
    code, _ = r.error(e["code"], path, "reply.stream.error")
    return ErrorWording(
        code=code.code,
        field=r.string(e["field"], f"{path}.field") if "field" in e else None,
        operation=op,
        binding=r.binding(e["binding"], f"{path}.binding") if "binding" in e else None,
        version=r.version(e["version"], f"{path}.version") if "version" in e else None,
        requested=r.string(e["requested"], f"{path}.requested") if "requested" in e else None,
        answer=_error_type(r, e["answer"], f"{path}.answer") if "answer" in e else None,
        message=r.string(e["message"], f"{path}.message") if "message" in e else None,
        reason=r.string(e["reason"], f"{path}.reason") if "reason" in e else None,
        http_status=r.status(e["http_status"], f"{path}.http_status", has_body=True) if "http_status" in e else None,
        sse=r.boolean(e.get("sse", False), f"{path}.sse"),
    )


def read_error_messages(r: Reader, value: Any) -> tuple[ErrorWording, ...]:
    """`error_messages`: a mapping, per error (name or code) the message every answer of it carries; or a list of
    entries that say where each applies and what else changes (a framework's wording)."""
    if isinstance(value, list):
        return tuple(_error_wording(r, item, f"error_messages[{i}]") for i, item in enumerate(value))
    out: list[ErrorWording] = []
    for key, text in r.mapping(value, "error_messages").items():
        err, _ = r.error(key, f"error_messages.{key}", "reply.error")
        out.append(ErrorWording(err.code, message=r.string(text, f"error_messages.{key}")))
    return tuple(out)
