"""Spec revisions v1.0.0 and v1.0.1: the error mapping (§5.4, notes §5.2 / D3) and the HTTP+JSON media type (D5)."""

from __future__ import annotations

import pytest

from a2a_lab.protocol import errors, rest
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
    assert DEFAULT is V101 and [r.value for r in SpecRevision] == ["1.0.0", "1.0.1"]


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
