"""Spec revisions of A2A 1.0 whose wire differs (notes §11 D3, D5), and the 1.1 draft.

v1.0.1 changed two things a server puts on the wire, and real servers exist of both revisions:
- the error-to-status mapping (§5.4): v1.0.0 answered TaskNotCancelable 409, ContentTypeNotSupported 415,
  InvalidAgentResponse 502, and gRPC UNIMPLEMENTED for PushNotSupported, UnsupportedOperation and
  VersionNotSupported; v1.0.1 answers 400 / 500 / FAILED_PRECONDITION (`errors.http_status`, `errors.grpc_status`);
- the HTTP+JSON media type (§11.1, PR #1753): v1.0.0 said `application/json`, v1.0.1 `application/a2a+json`
  (a SHOULD). Push notifications use the HTTP+JSON form, so they follow it too. JSON-RPC stays `application/json`.

Both revisions speak protocol version 1.0 (`A2A-Version: 1.0`); clients must read either (score on the ErrorInfo
reason and the JSON-RPC code, accept both media types).

v1.0.2 (a2aproject/A2A cfc9d34b, #1997, after v1.0.1) changed one comment with a wire consequence: a gRPC
`AgentInterface.url` is `hostname:port` (v1.0.1's proto example was `https://grpc.example.com/a2a`). Everything
else is v1.0.1's.

1.1 is the `dev-1.1` branch of the spec (a2aproject/A2A 28491879, #1810, 2026-08-12), which calls itself "version
1.1 of this specification" and is not released: its examples still send `A2A-Version: 1.0` and no card field names
it. On top of v1.0.2 it adds task generations (§3.2.7, `GENERATION_*` below): `generation` on Task,
TaskStatusUpdateEvent and TaskArtifactUpdateEvent (1 at creation, +1 per state change or artifact, one event per
change), GetTask `currentGeneration` as a long-poll, and `SendMessageConfiguration.ifGenerationMatch`, refused with
TaskGenerationMismatchError (`errors.ErrorType.TASK_GENERATION_MISMATCH`). A client learns that a server implements
them from a generation >= 1 on what it answers (0 or absent: it does not, and the client MUST NOT use them).
"""

from __future__ import annotations

from enum import StrEnum

from .bindings import A2A_JSON, JSON


class SpecRevision(StrEnum):
    V1_0_0 = "1.0.0"
    V1_0_1 = "1.0.1"
    V1_0_2 = "1.0.2"
    #: The `dev-1.1` draft (unreleased): v1.0.2 plus task generations.
    V1_1 = "1.1"


#: The revision a2a-lab follows unless a scenario says otherwise: the current one.
DEFAULT = SpecRevision.V1_0_1

#: The Content-Type of an A2A 1.0 HTTP+JSON body (answers, error answers, push notifications) per revision.
HTTP_JSON_MEDIA_TYPE: dict[SpecRevision, str] = {
    SpecRevision.V1_0_0: JSON,
    SpecRevision.V1_0_1: A2A_JSON,
    SpecRevision.V1_0_2: A2A_JSON,
    SpecRevision.V1_1: A2A_JSON,
}

#: The revisions whose proto says a gRPC interface's url is `hostname:port` (v1.0.2 on). Earlier revisions' example
#: was an https URL with a path; clients read both (the address in it), and a2a-lab's cards always name host:port.
GRPC_URL_HOST_PORT: frozenset[SpecRevision] = frozenset({SpecRevision.V1_0_2, SpecRevision.V1_1})

#: The revisions with task generations (dev-1.1 §3.2.7).
GENERATIONS: frozenset[SpecRevision] = frozenset({SpecRevision.V1_1})
#: The member on Task, TaskStatusUpdateEvent and TaskArtifactUpdateEvent (proto `int64 generation`, ProtoJSON: a
#: number or a decimal string).
GENERATION = "generation"
#: A task's generation when it is created; each state change or artifact adds exactly 1.
FIRST_GENERATION = 1
#: GetTaskRequest's long-poll member (HTTP+JSON: the query parameter of the same name, §11.5).
CURRENT_GENERATION = "currentGeneration"
#: SendMessageConfiguration's precondition member.
IF_GENERATION_MATCH = "ifGenerationMatch"
#: Where the draft says all of this (a check's spec reference).
GENERATION_SECTION = "A2A 1.1 §3.2.7"


#: The specification documents a check's spec references (`A2A 1.0 §8.3.2`, `0.3 §5.6.3`) point into. 1.0: the
#: page the A2A site publishes (built with MkDocs from a2aproject/A2A docs/specification.md), whose headings carry
#: the anchors a section links to (harness/reports/spec_links.py).
SPEC_DOCUMENTS: dict[str, str] = {
    "A2A 1.0": "https://a2a-protocol.org/latest/specification/",
    "A2A 1.1": "https://github.com/a2aproject/A2A/blob/28491879ff41a9c230fb51f3f7bd6096b80cc341/docs/specification.md",
    "A2A 0.3": "https://github.com/a2aproject/A2A/blob/v0.3.0/docs/specification.md",
    "JSON-RPC 2.0": "https://www.jsonrpc.org/specification",
}


def spec_document(reference: str) -> str | None:
    """The document a spec reference cites (`A2A 1.0 §3.6.1, §10.2`; a bare `0.3 §7.9` is A2A 0.3), if known."""
    ref = reference.strip()
    if ref.startswith(("0.3 ", "1.0 ")):
        ref = "A2A " + ref
    return next((url for name, url in SPEC_DOCUMENTS.items() if ref.startswith(name + " ")), None)


def has_generations(revision: SpecRevision) -> bool:
    return revision in GENERATIONS


def read_generation(value: object) -> int:
    """The generation a task or event carries (an int64: a number, or a decimal string as ProtoJSON writes it); 0
    when it carries none or something else, which §3.2.7 reads as "this server does not implement generations"."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return 0
