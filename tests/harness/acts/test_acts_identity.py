"""`acts run --credentials`: a second identity for the ACTS tests that need another user (`{{otherUserTaskId}}`,
`{{insufficientAuthToken}}`), and `spec/acts-sut-auth`, the ACTS SUT that declares and enforces authentication and
serves tck-auth-required, so that the draft's authentication tests run against a2a-lab rather than skip. The tests
here are a2a-lab's own, written after what the draft's SEC-AUTH tests ask (never its text)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from a2a_lab.harness.acts import identity
from a2a_lab.harness.cli import main
from tests.harness.acts.test_acts import results, run, send, suite, write

FIRST = "a2a-lab-test-token-acts-first"
SECOND = "client_id=a2a-lab-acts-second,client_secret=a2a-lab-test-secret-acts-second"
NEEDS_AUTH = {"capabilities": {"authentication": True}}


def rpc(method: str, params: dict[str, Any], auth: str | None = None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json", "A2A-Version": "1.0"}
    if auth:
        headers["Authorization"] = auth
    body = {"jsonrpc": "2.0", "id": "x", "method": method, "params": params}
    return {"method": "POST", "path": "/", "headers": headers, "body": body}


def refused(test_id: str, auth: str | None, statuses: list[int]) -> dict[str, Any]:
    step = {
        "id": "s",
        "raw": rpc("SendMessage", {"message": {**send("who am I")["message"], "messageId": "m-1"}}, auth),
        "expect": {"status": {"one_of": statuses}, "body": {"error": {"exists": True}}},
    }
    return {
        "id": test_id,
        "name": test_id,
        "level": "must",
        "transport": ["jsonrpc"],
        "preconditions": NEEDS_AUTH,
        "steps": [step],
    }


NO_AUTH = refused("A-NONE", None, [401])
INSUFFICIENT = refused("A-SCOPE", "Bearer {{insufficientAuthToken}}", [403])
OTHERS_TASK = {
    "id": "A-OTHER",
    "name": "another user's task is not found by the first user (auth.tasks_per_user)",
    "level": "must",
    "preconditions": NEEDS_AUTH,
    "steps": [
        {
            "id": "get",
            "operation": "get_task",
            "params": {"id": "{{otherUserTaskId}}"},
            "expect_error": {"code": "TaskNotFoundError"},
        }
    ],
}
AUTH_REQUIRED = {
    "id": "A-INTASK",
    "name": "in-task authorization",
    "level": "must",
    "requires_behaviors": ["tck-auth-required"],
    "steps": [
        {
            "id": "send",
            "operation": "send_message",
            "params": send("tck-auth-required please"),
            "expect": {
                "body": {"task": {"status": {"state": "TASK_STATE_AUTH_REQUIRED", "message": {"exists": True}}}}
            },
        }
    ],
}
ALL = (NO_AUTH, INSUFFICIENT, OTHERS_TASK, AUTH_REQUIRED)


def behaviors(tmp_path: Path) -> Path:
    path = tmp_path / "behaviors.yaml"
    prefixes = ["tck-complete-task", "tck-auth-required"]
    path.write_text(
        "acts_version: '1.0'\nbehaviors:\n" + "".join(f"  - {{prefix: {p}, description: {p}}}\n" for p in prefixes)
    )
    return path


def test_the_auth_sut_runs_the_security_tests_with_a_second_identity(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut-auth")
    extra = ("--token", FIRST, "--credentials", SECOND, "--behaviors", str(behaviors(tmp_path)))
    for binding in ("jsonrpc", "rest", "grpc"):
        code, reports = run(tmp_path, served.url, suite(*ALL), "--binding", binding, *extra)
        got = {k: (v["result"], v.get("skip_reason", "")) for k, v in results(reports[binding]).items()}
        if binding == "jsonrpc":
            assert got == dict.fromkeys(["A-NONE", "A-SCOPE", "A-OTHER", "A-INTASK"], ("pass", "")), got
            assert code == 0
        else:  # the raw steps are JSON-RPC requests, listed for jsonrpc only
            assert got["A-OTHER"] == ("pass", "") and got["A-INTASK"] == ("pass", ""), (binding, got)
            assert code == 0
    issued = served.app.state.auth.tokens.issued
    # the second user is the card's OAuth 2.0 client: its task made with the scope the requirement names, the
    # insufficient token asked with none (once per binding run, each)
    assert {(t.client_id, t.scopes) for t in issued} == {
        ("a2a-lab-acts-second", ("a2a.tasks",)),
        ("a2a-lab-acts-second", ()),
    }
    # the second user's call that made the task carried its access token, not the first user's
    made = [e for e in served.journal if "the second user" in str(e.get("body"))]
    assert len(made) == 3, [sorted(e) for e in served.journal][:2]
    assert all(e["auth"]["schemes"] == {"bearer": "invalid", "oauth": "valid"} for e in made), made[0].get("auth")


def test_without_a_second_identity_the_tests_that_need_one_skip_saying_how_to_give_it(
    tmp_path: Path, serve: Any
) -> None:
    served = serve("spec/acts-sut-auth")
    code, reports = run(tmp_path, served.url, suite(*ALL), "--binding", "jsonrpc", "--token", FIRST)
    assert code == 0
    got = results(reports["jsonrpc"])
    for test_id in ("A-SCOPE", "A-OTHER"):
        assert got[test_id]["result"] == "skip" and got[test_id]["skip_category"] == "runner"
        assert "--credentials" in got[test_id]["skip_reason"], got[test_id]
    assert got["A-NONE"]["result"] == "pass"
    # a SUT whose card requires no authentication: the draft's capabilities.authentication is a precondition unmet
    plain = serve("spec/acts-sut")
    code, reports = run(tmp_path, plain.url, suite(NO_AUTH), "--binding", "jsonrpc", "--credentials", SECOND)
    assert code == 0
    skipped = results(reports["jsonrpc"])["A-NONE"]
    assert skipped["skip_category"] == "precondition" and "security requirements" in skipped["skip_reason"]


def test_credentials_the_token_endpoint_refuses_end_the_test_in_error_not_judged(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut-auth")
    wrong = "client_id=a2a-lab-acts-second,client_secret=not-the-secret"
    code, reports = run(
        tmp_path, served.url, suite(OTHERS_TASK), "--binding", "jsonrpc", "--token", FIRST, "--credentials", wrong
    )
    assert code == 3
    got = results(reports["jsonrpc"])["A-OTHER"]
    assert got["result"] == "error" and "second identity" in got["failure"]["message"], got
    assert "not-the-secret" not in str(reports)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("client_id", "KEY=VALUE"),
        ("clientid=x", "no such key"),
        ("client_secret=s", "give client_id too"),
    ],
)
def test_bad_credentials_are_refused_saying_how_to_write_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, said: str
) -> None:
    path = write(tmp_path, suite(NO_AUTH))
    assert main(["acts", "run", str(path), "--server", "http://127.0.0.1:9", "--credentials", given]) == 2
    assert said in capsys.readouterr().err


def test_what_a_test_refers_to_and_what_the_credentials_can_make() -> None:
    card = {
        "securitySchemes": {"b": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
        "securityRequirements": [{"schemes": {"b": {"list": []}}}],
    }
    both = frozenset(identity.VARIABLES)
    assert "--credentials" in identity.missing(both, {}, card)
    # a bearer-only card: the other user's token must be given, the insufficient one cannot be made
    assert "insufficient_token" in identity.missing(both, {"token": "t"}, card)
    assert identity.missing(both, {"token": "t", "insufficient_token": "u"}, card) == ""
    assert identity.missing(frozenset(), {}, card) == ""
    assert identity.parse("token=a,insufficient_token=b") == {"token": "a", "insufficient_token": "b"}
