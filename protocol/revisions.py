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


#: The specification documents a check's spec references (`A2A 1.0 §8.3.2`, `0.3 §5.6.3`) point into.
SPEC_DOCUMENTS: dict[str, str] = {
    "A2A 1.0": "https://github.com/a2aproject/A2A/blob/v1.0.1/docs/specification.md",
    "A2A 0.3": "https://github.com/a2aproject/A2A/blob/v0.3.0/docs/specification.md",
    "JSON-RPC 2.0": "https://www.jsonrpc.org/specification",
}


def spec_document(reference: str) -> str | None:
    """The document a spec reference cites (`A2A 1.0 §3.6.1, §10.2`; a bare `0.3 §7.9` is A2A 0.3), if known."""
    ref = reference.strip()
    if ref.startswith(("0.3 ", "1.0 ")):
        ref = "A2A " + ref
    return next((url for name, url in SPEC_DOCUMENTS.items() if ref.startswith(name + " ")), None)
