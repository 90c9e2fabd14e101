"""HTTP+JSON error bodies (spec §11.6: google.rpc.Status; 0.3 SDKs: `{"message": ...}`)."""

from __future__ import annotations

from typing import Any

from .errors import A2AError, EnvelopeProblem, ErrorKind, detail_problems
from .versions import Version


def http_status(kind: ErrorKind, version: Version) -> int:
    """The HTTP status an error answers on the HTTP+JSON binding of a version."""
    return kind.http_status if version is Version.V1_0 else kind.http_status_v03 or kind.http_status


def error(err: A2AError, version: Version) -> tuple[int, dict[str, Any]]:
    kind = err.type.kind
    status = http_status(kind, version)
    if version is Version.V1_0:
        return status, {
            "error": {"code": status, "status": kind.grpc_status, "message": err.text, "details": err.details()}
        }
    return status, {"message": err.text, "code": err.code}


def status_problems(body: Any, status: int, version: Version) -> list[EnvelopeProblem]:
    """What is wrong with an HTTP+JSON error body someone sent with this HTTP status.

    1.0 (§11.6): a google.rpc.Status `{"error": {"code": <the HTTP status>, "status": <gRPC name>, "message",
    "details": [...]}}`. Only the form is judged here: whether an A2A error carries its ErrorInfo reason is for
    whoever knows which error was due. 0.3 defines no body ("appropriate status codes and a consistent JSON
    format"): a JSON object is enough.
    """
    if version is not Version.V1_0:
        return (
            []
            if isinstance(body, dict)
            else [EnvelopeProblem("a 0.3 HTTP+JSON error body is expected to be a JSON object", should=True)]
        )
    inner = body.get("error") if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        return [
            EnvelopeProblem(
                'not a google.rpc.Status body: expected {"error": {"code", "status", "message", "details"}}'
            )
        ]
    out: list[EnvelopeProblem] = []
    code = inner.get("code")
    if isinstance(code, bool) or not isinstance(code, int):
        out.append(EnvelopeProblem(f"error.code must be the HTTP status as an integer, not {code!r}"))
    elif code != status:
        out.append(EnvelopeProblem(f"error.code {code} differs from the HTTP status {status}"))
    for name in ("status", "message"):
        if not isinstance(inner.get(name), str):
            out.append(EnvelopeProblem(f"error.{name} must be a string"))
    if "details" in inner:  # a repeated field: ProtoJSON may omit it when empty
        out.extend(detail_problems(inner["details"], "error.details"))
    return out
