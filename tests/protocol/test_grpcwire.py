"""grpcwire's judgements of what gRPC peers send: interface urls (§5.6) and error statuses (§10.6)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from a2a_lab.protocol import grpcwire
from a2a_lab.protocol.errors import ERROR_INFO_TYPE
from a2a_lab.protocol.grpcwire import Code

INFO = {"@type": ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}


@pytest.mark.parametrize(
    ("url", "address", "says"),
    [
        ("h:1", "h:1", None),
        ("[::1]:50051", "[::1]:50051", None),
        ("grpc://h:1", "h:1", "(it has a scheme); a client can only guess it means h:1"),
        ("dns:///h:1", "h:1", "(it has a scheme)"),
        ("http://h:1/a2a/", "h:1", "(it has a scheme and a path)"),
        ("h:1/", "h:1", "(it has a trailing slash)"),
        # Spec revision v1.0.1's example form: an https URL means port 443 (v1.0.2: host:port).
        ("https://h/a2a", "h:443", "(it has a scheme, a path and no port); a client can only guess it means h:443"),
        ("http://h", "h:80", "(it has a scheme and no port)"),
        ("grpc://h/a2a", None, "no address a client can dial"),
        ("h:0", None, "(it has port 0)"),
    ],
)
def test_url_problem(url: str, address: str | None, says: str | None) -> None:
    assert grpcwire.address_of(url) == address
    problem = grpcwire.url_problem(url)
    assert (problem is None) if says is None else (problem is not None and says in problem), problem


def test_a_well_formed_status_has_no_problem() -> None:
    assert grpcwire.status_problems(Code.NOT_FOUND, {"code": 5, "message": "m", "details": [INFO]}) == []


@pytest.mark.parametrize(
    ("status", "says", "should"),
    [
        (None, "NOT_FOUND without grpc-status-details-bin", True),
        ({"code": 5, "message": "m"}, "status.details has no ErrorInfo", True),
        ({"code": 13, "details": [INFO]}, "code 13 (INTERNAL) differs from the call's status 5 (NOT_FOUND)", False),
        ({"code": 5, "details": [{"reason": "X"}]}, "status.details[0] is not an object with a string @type", False),
        ({"code": 5, "details": [{"@type": ERROR_INFO_TYPE, "reason": "X"}]}, "has no string `domain`", False),
    ],
)
def test_status_problems(status: dict | None, says: str, should: bool) -> None:
    problems = grpcwire.status_problems(Code.NOT_FOUND, status)
    assert problems and says in problems[0].text and problems[0].should is should, problems


def test_asking_whether_grpc_is_there_imports_nothing_of_it() -> None:
    """Every `a2a-lab run` asks (grpcwire.missing); finding the A2A proto types must not import them (70 ms)."""
    script = (
        "import sys; from a2a_lab.protocol import grpcwire; "
        "print(grpcwire.missing(), sorted(m for m in ('a2a.types', 'grpc', 'google.protobuf') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["None", "[]"], done.stdout + done.stderr


@pytest.mark.parametrize("module", ["a2a.types.no_such_pb2", "no_such_package.x", "google.rpc.no_such_pb2"])
def test_a_module_that_is_not_there_is_missing(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grpcwire, "MODULES", (*grpcwire.MODULES, module))
    assert grpcwire.missing() == f"{grpcwire.MISSING}; {module} is not installed"
