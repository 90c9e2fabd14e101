"""HTTP+JSON error bodies (spec §11.6: google.rpc.Status; 0.3 SDKs: `{"message": ...}`)."""

from __future__ import annotations

from typing import Any

from . import errors
from .bindings import JSON
from .errors import A2AError, EnvelopeProblem, ErrorType, detail_problems
from .revisions import DEFAULT, HTTP_JSON_MEDIA_TYPE, SpecRevision
from .versions import Version


def http_status(error: ErrorType, version: Version, revision: SpecRevision = DEFAULT) -> int:
    """The HTTP status an error answers on the HTTP+JSON binding of a version (1.0: as the spec revision maps it)."""
    if version is Version.V1_0:
        return errors.http_status(error, revision)
    return error.kind.http_status_v03 or error.kind.http_status


def media_type(version: Version, revision: SpecRevision = DEFAULT) -> str:
    """The Content-Type of an HTTP+JSON body: 1.0 as the spec revision says (notes D5), 0.3 application/json."""
    return HTTP_JSON_MEDIA_TYPE[revision] if version is Version.V1_0 else JSON


def error(err: A2AError, version: Version, revision: SpecRevision = DEFAULT) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of an error answer: 1.0 a google.rpc.Status whose `status` is the error's gRPC status
    name as the revision maps it; 0.3 the 0.3 SDKs' `{"message"}`."""
    status = http_status(err.type, version, revision)
    if version is Version.V1_0:
        return status, {
            "error": {
                "code": status,
                "status": errors.grpc_status(err.type, revision),
                "message": err.text,
                "details": err.details(),
            }
        }
    return status, {"message": err.text, "code": err.code}


def status_problems(body: object, status: int, version: Version) -> list[EnvelopeProblem]:
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
