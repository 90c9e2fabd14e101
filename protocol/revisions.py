"""Spec revisions of A2A 1.0 whose wire differs (notes §11 D3, D5).

v1.0.1 changed two things a server puts on the wire, and real servers exist of both revisions:
- the error-to-status mapping (§5.4): v1.0.0 answered TaskNotCancelable 409, ContentTypeNotSupported 415,
  InvalidAgentResponse 502, and gRPC UNIMPLEMENTED for PushNotSupported, UnsupportedOperation and
  VersionNotSupported; v1.0.1 answers 400 / 500 / FAILED_PRECONDITION (`errors.http_status`, `errors.grpc_status`);
- the HTTP+JSON media type (§11.1, PR #1753): v1.0.0 said `application/json`, v1.0.1 `application/a2a+json`
  (a SHOULD). Push notifications use the HTTP+JSON form, so they follow it too. JSON-RPC stays `application/json`.

Both revisions speak protocol version 1.0 (`A2A-Version: 1.0`); clients must read either (score on the ErrorInfo
reason and the JSON-RPC code, accept both media types).
"""

from __future__ import annotations

from enum import StrEnum

from .bindings import A2A_JSON, JSON


class SpecRevision(StrEnum):
    V1_0_0 = "1.0.0"
    V1_0_1 = "1.0.1"


#: The revision a2a-lab follows unless a scenario says otherwise: the current one.
DEFAULT = SpecRevision.V1_0_1

#: The Content-Type of an A2A 1.0 HTTP+JSON body (answers, error answers, push notifications) per revision.
HTTP_JSON_MEDIA_TYPE: dict[SpecRevision, str] = {SpecRevision.V1_0_0: JSON, SpecRevision.V1_0_1: A2A_JSON}
