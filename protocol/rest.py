"""HTTP+JSON error bodies (spec §11.6: google.rpc.Status; 0.3 SDKs: `{"message": ...}`)."""

from __future__ import annotations

from typing import Any

from .errors import A2AError
from .versions import Version


def error(err: A2AError, version: Version) -> tuple[int, dict[str, Any]]:
    kind = err.type.kind
    if version is Version.V1_0:
        return kind.http_status, {"error": {"code": kind.http_status, "status": kind.grpc_status, "message": err.text, "details": err.details()}}
    status = kind.http_status_v03 or kind.http_status
    return status, {"message": err.text, "code": err.code}
