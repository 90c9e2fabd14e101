"""Spec revisions v1.0.0 and v1.0.1: the error mapping (§5.4, notes §5.2 / D3) and the HTTP+JSON media type (D5)."""

from __future__ import annotations

import pytest

from a2a_lab.protocol import errors, rest, revisions
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.revisions import DEFAULT, SpecRevision
from a2a_lab.protocol.versions import Version

V100, V101 = SpecRevision.V1_0_0, SpecRevision.V1_0_1

#: The notes' §5.2 table, written out: error -> (HTTP v1.0.1, gRPC v1.0.1, HTTP v1.0.0, gRPC v1.0.0).
TABLE = {
    ErrorType.TASK_NOT_FOUND: (404, "NOT_FOUND", 404, "NOT_FOUND"),
    ErrorType.TASK_NOT_CANCELABLE: (400, "FAILED_PRECONDITION", 409, "FAILED_PRECONDITION"),
    ErrorType.PUSH_NOT_SUPPORTED: (400, "FAILED_PRECONDITION", 400, "UNIMPLEMENTED"),
    ErrorType.UNSUPPORTED_OPERATION: (400, "FAILED_PRECONDITION", 400, "UNIMPLEMENTED"),
    ErrorType.CONTENT_TYPE_NOT_SUPPORTED: (400, "INVALID_ARGUMENT", 415, "INVALID_ARGUMENT"),
    ErrorType.INVALID_AGENT_RESPONSE: (500, "INTERNAL", 502, "INTERNAL"),
    ErrorType.EXTENDED_CARD_NOT_CONFIGURED: (400, "FAILED_PRECONDITION", 400, "FAILED_PRECONDITION"),
    ErrorType.EXTENSION_SUPPORT_REQUIRED: (400, "FAILED_PRECONDITION", 400, "FAILED_PRECONDITION"),
    ErrorType.VERSION_NOT_SUPPORTED: (400, "FAILED_PRECONDITION", 400, "UNIMPLEMENTED"),
}


@pytest.mark.parametrize("error", list(TABLE), ids=lambda e: e.name)
def test_each_a2a_error_maps_as_its_revision_says(error: ErrorType) -> None:
    http_101, grpc_101, http_100, grpc_100 = TABLE[error]
    assert (errors.http_status(error, V101), errors.grpc_status(error, V101)) == (http_101, grpc_101)
    assert (errors.http_status(error, V100), errors.grpc_status(error, V100)) == (http_100, grpc_100)
    assert (errors.http_status(error), errors.grpc_status(error)) == (http_101, grpc_101), "the default is v1.0.1"
    assert (error.kind.http_status, error.kind.grpc_status) == (http_101, grpc_101), "the fields stay v1.0.1's"


def test_the_other_errors_are_the_same_in_both_revisions() -> None:
    for error in set(ErrorType) - set(TABLE):
        assert errors.http_status(error, V100) == errors.http_status(error, V101) == error.kind.http_status
        assert errors.grpc_status(error, V100) == errors.grpc_status(error, V101) == error.kind.grpc_status


def test_the_default_revision_is_the_current_one() -> None:
    """v1.0.1 is the latest tagged release; v1.0.2 (host:port gRPC urls) is untagged and 1.1 a draft."""
    assert DEFAULT is V101 and [r.value for r in SpecRevision] == ["1.0.0", "1.0.1", "1.0.2", "1.1"]


def test_the_later_revisions_answer_as_v1_0_1_except_where_they_add() -> None:
    for later in (SpecRevision.V1_0_2, SpecRevision.V1_1):
        assert rest.media_type(Version.V1_0, later) == rest.media_type(Version.V1_0, V101)
        for error in ErrorType:
            assert errors.http_status(error, later) == errors.http_status(error, V101)
            assert errors.grpc_status(error, later) == errors.grpc_status(error, V101)
    assert {SpecRevision.V1_0_2, SpecRevision.V1_1} == revisions.GRPC_URL_HOST_PORT
    assert [r for r in SpecRevision if revisions.has_generations(r)] == [SpecRevision.V1_1]


def test_task_generation_mismatch_is_1_1s_minus_32010() -> None:
    """dev-1.1 §5.4: -32010, gRPC ABORTED, HTTP 409; a2a-lab's own Unauthenticated had -32010 first."""
    kind = ErrorType.TASK_GENERATION_MISMATCH.kind
    assert (kind.code, kind.grpc_status, kind.http_status, kind.reason) == (
        -32010,
        "ABORTED",
        409,
        "TASK_GENERATION_MISMATCH",
    )
    assert errors.by_code(-32010) is ErrorType.UNAUTHENTICATED
    assert errors.by_code(-32010, SpecRevision.V1_1) is ErrorType.TASK_GENERATION_MISMATCH
    assert errors.by_name("TaskGenerationMismatch") is ErrorType.TASK_GENERATION_MISMATCH


@pytest.mark.parametrize(
    ("value", "generation"),
    [("3", 3), (3, 3), ("0", 0), (0, 0), (None, 0), (True, 0), ("-1", 0), (-2, 0), ("x", 0), ("9" * 20, 0)],
)
def test_a_generation_reads_as_protojson_writes_it(value: object, generation: int) -> None:
    assert revisions.read_generation(value) == generation


def test_http_json_bodies_follow_the_revision() -> None:
    err = A2AError(ErrorType.TASK_NOT_CANCELABLE, metadata={"taskId": "t-1"})
    status, body = rest.error(err, Version.V1_0, V100)
    assert status == 409 and body["error"]["code"] == 409 and body["error"]["status"] == "FAILED_PRECONDITION"
    assert body["error"]["details"][0]["reason"] == "TASK_NOT_CANCELABLE"
    assert rest.error(err, Version.V1_0) == rest.error(err, Version.V1_0, V101)
    assert rest.error(err, Version.V1_0)[0] == 400
    push = rest.error(A2AError(ErrorType.PUSH_NOT_SUPPORTED), Version.V1_0, V100)
    assert push[0] == 400 and push[1]["error"]["status"] == "UNIMPLEMENTED", "the revision's gRPC name"
    # 0.3 has no revisions: the 0.3 SDKs' statuses and body whatever the scenario says.
    assert (
        rest.error(err, Version.V0_3, V100)
        == rest.error(err, Version.V0_3, V101)
        == (
            409,
            {"message": "Task cannot be canceled", "code": -32002},
        )
    )
    assert rest.http_status(ErrorType.CONTENT_TYPE_NOT_SUPPORTED, Version.V1_0, V100) == 415
    assert rest.http_status(ErrorType.CONTENT_TYPE_NOT_SUPPORTED, Version.V1_0) == 400


def test_media_types() -> None:
    assert rest.media_type(Version.V1_0, V101) == rest.media_type(Version.V1_0) == "application/a2a+json"
    assert rest.media_type(Version.V1_0, V100) == "application/json"
    assert rest.media_type(Version.V0_3, V101) == rest.media_type(Version.V0_3, V100) == "application/json"
