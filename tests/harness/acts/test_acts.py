"""`a2a-lab acts run`: ACTS 0.1.0 files read (and refused) as the grammar says, run against a live server
(`spec/acts-sut`, in-process uvicorn on loopback) over JSON-RPC and HTTP+JSON, and reported as §13 says. Each
judgement is shown both ways: a test the server passes, and the same test with a defect of its own, failing."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from a2a_lab.harness.acts import assertions as A
from a2a_lab.harness.acts import document
from a2a_lab.harness.cli import main
from tests.harness.conftest import fake_command

HEAD = {"acts_version": "1.0", "spec_version": "1.0"}


def send(text: str, **extra: Any) -> dict[str, Any]:
    return {"message": {"role": "ROLE_USER", "parts": [{"text": text}]}, **extra}


def suite(*tests: dict[str, Any], variables: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        **HEAD,
        **({"variables": variables} if variables else {}),
        "suites": [{"id": "s", "name": "S", "tests": list(tests)}],
    }


def write(tmp_path: Path, data: dict[str, Any], name: str = "t.acts.yaml") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if name.endswith(".json") else yaml.safe_dump(data, sort_keys=False))
    return path


SEND_GET: dict[str, Any] = {
    "id": "CORE-SEND-001",
    "name": "send then get",
    "level": "must",
    "spec_ref": "specification.md#311",
    "tags": ["core"],
    "requires_behaviors": ["tck-complete-task"],
    "steps": [
        {
            "id": "send",
            "operation": "send_message",
            "params": send("tck-complete-task hi"),
            "capture": {"taskId": "task.id"},
            "expect": {
                "status": 200,
                "body": {"task": {"id": {"type": "string"}, "status": {"state": "TASK_STATE_COMPLETED"}}},
            },
        },
        {
            "id": "get",
            "operation": "get_task",
            "params": {"id": "{{send.taskId}}"},
            "expect": {"body": {"id": "{{send.taskId}}", "status": {"state": "TASK_STATE_COMPLETED"}}},
        },
    ],
}
NOT_FOUND: dict[str, Any] = {
    "id": "CORE-ERR-001",
    "name": "missing task",
    "level": "must",
    "steps": [
        {
            "id": "get",
            "operation": "get_task",
            "params": {"id": "00000000-0000-0000-0000-000000000000"},
            "expect_error": {"error_type": "TaskNotFoundError", "message": {"type": "string"}},
        }
    ],
}
STREAM: dict[str, Any] = {
    "id": "STREAM-001",
    "name": "stream",
    "level": "should",
    "preconditions": {"capabilities": {"streaming": True}},
    "steps": [
        {
            "id": "stream",
            "operation": "send_streaming_message",
            "params": send("tck-stream-basic go"),
            "expect_stream": {
                "min_count": 2,
                "ordering": "monotonic_state",
                "events": [{"match": "any_position", "artifact_update": {"artifact": {"parts": {"count_gte": 1}}}}],
                "final_event": {"status": {"state": "TASK_STATE_COMPLETED"}},
            },
        }
    ],
}
POLL: dict[str, Any] = {
    "id": "CORE-EXEC-001",
    "name": "poll",
    "level": "may",
    "steps": [
        {
            "id": "start",
            "operation": "send_message",
            "params": send("tck-long-running go", configuration={"returnImmediately": True}),
            "capture": {"taskId": "task.id"},
        },
        {
            "id": "poll",
            "operation": "get_task",
            "params": {"id": "{{start.taskId}}"},
            "repeat": {
                "until": "status.state in [TASK_STATE_COMPLETED, TASK_STATE_FAILED]",
                "max_attempts": 100,
                "delay_ms": 100,
            },
        },
        {
            "id": "check",
            "assertion": {"source": "{{poll.response}}", "any": {"path": "history[*]", "match": {"role": "ROLE_USER"}}},
        },
    ],
}


def run(tmp_path: Path, url: str, data: dict[str, Any], *extra: str) -> tuple[int, dict[str, dict[str, Any]]]:
    """`acts run` in-process; the ACTS reports per binding, by transport."""
    path = write(tmp_path, data)
    out = tmp_path / "acts.json"
    code = main(["acts", "run", str(path), "--server", url, "--json", str(out), "-q", "--timeout", "20", *extra])
    reports = {}
    for name in ("acts-jsonrpc.json", "acts-rest.json", "acts-grpc.json", "acts.json"):
        if (tmp_path / name).exists():
            report = json.loads((tmp_path / name).read_text())
            reports[report["transport"]] = report
    return code, reports


def results(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for s in report["suites"] for t in s["tests"]}


def test_a_conformant_server_passes_on_every_binding_and_the_report_is_section_13(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut")
    code, reports = run(tmp_path, served.url, suite(SEND_GET, NOT_FOUND, STREAM, POLL))
    assert code == 0
    assert set(reports) == {"jsonrpc", "rest", "grpc"}
    for transport, report in reports.items():
        assert report["acts_version"] == document.ACTS_SPEC and report["spec_version"] == "1.0"
        assert set(report["sdk"]) == {"name", "version", "language"}
        got = results(report)
        assert {k: v["result"] for k, v in got.items()} == dict.fromkeys(got, "pass"), transport
        assert report["summary"]["by_level"]["must"] == {
            "total": 2,
            "passed": 2,
            "failed": 0,
            "skipped": 0,
            "errors": 0,
        }
        assert [s["id"] for s in got["CORE-SEND-001"]["steps"]] == ["send", "get"]


def test_a_defect_fails_the_named_test_with_the_step_the_path_and_the_quoted_exchange(
    tmp_path: Path, serve: Any
) -> None:
    served = serve("spec/acts-sut")
    wrong = json.loads(json.dumps(SEND_GET))
    wrong["steps"][1]["expect"]["body"]["status"]["state"] = "TASK_STATE_WORKING"
    wrong_error = {
        **NOT_FOUND,
        "steps": [{**NOT_FOUND["steps"][0], "expect_error": {"error_type": "TaskNotCancelableError"}}],
    }
    report_json = tmp_path / "lab.json"
    code, reports = run(
        tmp_path, served.url, suite(wrong, wrong_error), "--binding", "jsonrpc", "--report-json", str(report_json)
    )
    assert code == 1
    got = results(reports["jsonrpc"])
    failure = got["CORE-SEND-001"]["failure"]
    assert failure["step_id"] == "get" and failure["assertion_path"] == "status.state"
    assert failure["expected"] == '"TASK_STATE_WORKING"' and failure["actual"] == '"TASK_STATE_COMPLETED"'
    assert "TaskNotFoundError" in got["CORE-ERR-001"]["failure"]["message"]
    lab = json.loads(report_json.read_text())
    check = next(s for s in lab["scenarios"] if s["id"] == "acts/jsonrpc/CORE-SEND-001")["checks"][0]
    assert check["outcome"] == "FAIL" and check["section"] == "specification.md#311"
    assert "GetTask" in check["quote"] and "<- HTTP 200" in check["quote"]


def test_stream_ordering_and_polling_fail_when_the_expectation_is_wrong(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut")
    stream = json.loads(json.dumps(STREAM))
    stream["level"] = "must"
    stream["steps"][0]["expect_stream"]["final_event"] = {"status": {"state": "TASK_STATE_FAILED"}}
    poll = json.loads(json.dumps(POLL))
    poll["level"] = "must"
    poll["steps"][1]["repeat"] = {"until": "status.state == TASK_STATE_REJECTED", "max_attempts": 2, "delay_ms": 1}
    code, reports = run(tmp_path, served.url, suite(stream, poll), "--binding", "rest")
    assert code == 1
    got = results(reports["rest"])
    assert (
        got["STREAM-001"]["failure"]["step_id"] == "stream" and "final event" in got["STREAM-001"]["failure"]["message"]
    )
    assert "did not hold after 2 attempt(s)" in got["CORE-EXEC-001"]["failure"]["message"]


def test_skips_say_why(tmp_path: Path, serve: Any, capsys: pytest.CaptureFixture[str]) -> None:
    served = serve("spec/acts-sut")
    grpc_only = {**NOT_FOUND, "id": "GRPC-1", "transport": ["grpc"]}
    behaviour = {**NOT_FOUND, "id": "B-1", "requires_behaviors": ["tck-auth-required"]}
    needs = {**NOT_FOUND, "id": "R-1", "runner_requirements": ["header_inspection"]}
    ext = {**NOT_FOUND, "id": "C-1", "preconditions": {"capabilities": {"extendedAgentCard": True}}}
    client = {
        "id": "CLIENT-1",
        "name": "c",
        "level": "must",
        "steps": [
            {
                "id": "p",
                "client_response": {"operation": "get_task", "wire_payload": {"id": "t"}},
                "expect_parsed": {"id": "t"},
            }
        ],
    }
    code, reports = run(tmp_path, served.url, suite(grpc_only, behaviour, needs, ext, client), "--binding", "jsonrpc")
    assert code == 0
    got = {k: v["skip_reason"] for k, v in results(reports["jsonrpc"]).items()}
    assert "lists transport grpc" in got["GRPC-1"]
    assert "tck-auth-required" in got["B-1"]
    assert "header_inspection" in got["R-1"] and "does not provide it yet" in got["R-1"]
    assert "capabilities.extendedAgentCard" in got["C-1"]
    assert "--client" in got["CLIENT-1"]
    # each skip said apart (issue 46): the SUT's preconditions, a runner requirement, a transport, the draft
    draft = {**NOT_FOUND, "id": "D-1", "preconditions": {"capabilities": {"batchRequests": True}}}
    code, reports = run(
        tmp_path, served.url, suite(grpc_only, behaviour, needs, ext, client, draft), "--binding", "jsonrpc"
    )
    kinds = {k: v["skip_category"] for k, v in results(reports["jsonrpc"]).items()}
    assert kinds == {
        "GRPC-1": "transport",
        "B-1": "precondition",
        "R-1": "runner",
        "C-1": "precondition",
        "CLIENT-1": "runner",
        "D-1": "draft",
    }
    assert reports["jsonrpc"]["summary"]["skipped_by_category"]["must"] == {
        "precondition": 2,
        "runner": 2,
        "transport": 1,
        "draft": 1,
    }
    main(["acts", "run", str(tmp_path / "t.acts.yaml"), "--server", served.url, "--binding", "jsonrpc"])
    said = "".join(capsys.readouterr())
    assert "skipped: MUST 6 (2 precondition, 2 runner, 1 transport, 1 draft); SHOULD 0; MAY 0" in said


def test_select_by_level_tag_and_test_id(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut")
    code, reports = run(
        tmp_path,
        served.url,
        suite(SEND_GET, NOT_FOUND, STREAM),
        "--binding",
        "jsonrpc",
        "--level",
        "must",
        "--tag",
        "core",
    )
    assert code == 0 and list(results(reports["jsonrpc"])) == ["CORE-SEND-001"]
    code, reports = run(
        tmp_path, served.url, suite(SEND_GET, NOT_FOUND, STREAM), "--binding", "jsonrpc", "--test", "CORE-ERR-*"
    )
    assert code == 0 and list(results(reports["jsonrpc"])) == ["CORE-ERR-001"]


# ------------------------------------------------------------------------------------------------ the reader


def test_json_files_include_and_the_official_spellings_are_read(tmp_path: Path) -> None:
    write(
        tmp_path,
        suite(
            {
                **NOT_FOUND,
                "steps": [{**NOT_FOUND["steps"][0], "expect_error": {"code": {"one_of": ["TaskNotFoundError"]}}}],
            }
        ),
        "a.acts.json",
    )
    push = {
        "id": "P-1",
        "name": "p",
        "level": "may",
        "requires_behaviors": [],
        "steps": [
            {
                "id": "set",
                "operation": "set_push_notification_config",
                "params": {"taskId": "t", "pushNotificationConfig": {"url": "u"}},
            }
        ],
    }
    write(tmp_path, suite(push, variables={"who": "b"}), "b.acts.yaml")
    top = write(
        tmp_path,
        {**HEAD, "variables": {"who": "top", "base": "x"}, "include": ["a.acts.json", "b.acts.yaml"]},
        "suite.acts.yaml",
    )
    doc = document.load(top)
    assert doc.tests[1].variables == {"who": "b", "base": "x"}  # its own file's over the including file's
    assert [t.id for t in doc.tests] == ["CORE-ERR-001", "P-1"]
    assert doc.tests[1].steps[0].operation == "create_push_config"
    assert doc.tests[0].steps[0].expect_error is not None and doc.tests[0].steps[0].expect_error.spelled == "code"


@pytest.mark.parametrize(
    ("change", "where", "hint"),
    [
        ({"level": "must-have"}, "suites[0].tests[0].level", "one of must, should, may"),
        ({"stepz": []}, "suites[0].tests[0].stepz", "did you mean 'steps'?"),
        (
            {"steps": [{"id": "x", "operation": "get_tsk", "params": {}}]},
            "suites[0].tests[0].steps[0].operation",
            "did you mean 'get_task'?",
        ),
        (
            {
                "steps": [
                    {"id": "x", "operation": "get_task", "params": {}, "expect": {"body": {"id": {"type": "str"}}}}
                ]
            },
            "suites[0].tests[0].steps[0].expect.body.id.type",
            "one of string",
        ),
        (
            {"steps": [{"id": "x", "operation": "get_task", "params": {}, "repeat": {"until": "status.state ~ X"}}]},
            "suites[0].tests[0].steps[0].repeat.until",
            "path == value",
        ),
        (
            {"steps": [{"id": "x", "raw": {"method": "POST", "path": "/"}}]},
            "suites[0].tests[0].transport",
            "transport-specific",
        ),
        (
            {
                "steps": [
                    {"id": "x", "operation": "get_task", "params": {}, "expect_error": {"error_type": "TaskNotFound"}}
                ]
            },
            "suites[0].tests[0].steps[0].expect_error.error_type",
            "did you mean 'TaskNotFoundError'?",
        ),
    ],
)
def test_bad_acts_input_names_file_path_and_fix_and_exits_2(
    tmp_path: Path, change: dict[str, Any], where: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, suite({**NOT_FOUND, **change}))
    with pytest.raises(document.ActsError) as caught:
        document.load(path)
    assert caught.value.where == where and hint in caught.value.hint and caught.value.source == str(path)
    assert main(["acts", "run", str(path), "--server", "http://127.0.0.1:9"]) == 2
    assert where in capsys.readouterr().err


def test_an_operator_given_the_wrong_kind_of_value_is_refused(tmp_path: Path) -> None:
    step = {"id": "s", "operation": "get_task", "params": {}, "expect": {"body": {"id": {"contains": 5}}}}
    with pytest.raises(document.ActsError, match=r"expect\.body\.id\.contains: takes text, got int"):
        document.load(write(tmp_path, one_step(step)))


def test_an_unknown_acts_major_version_and_an_include_cycle_are_refused(tmp_path: Path) -> None:
    with pytest.raises(document.ActsError, match="not one this runner reads"):
        document.load(write(tmp_path, {**suite(NOT_FOUND), "acts_version": "2.0"}))
    write(tmp_path, {**HEAD, "include": ["b.acts.yaml"]}, "a.acts.yaml")
    write(tmp_path, {**HEAD, "include": ["a.acts.yaml"]}, "b.acts.yaml")
    with pytest.raises(document.ActsError, match="cycle"):
        document.load(tmp_path / "a.acts.yaml")


# ------------------------------------------------------------------------------------------------ assertions


@pytest.mark.parametrize(
    ("expected", "actual", "ok"),
    [
        ({"type": "array", "count_gte": 1}, [1], True),
        ({"type": "array", "count_gte": 2}, [1], False),
        ({"absent": True}, A.MISSING, True),
        ({"absent": True}, None, True),
        ({"absent": True}, 0, False),
        ({"exists": True}, None, False),
        ({"one_of": ["A", "B"]}, "B", True),
        ({"one_of": ["A", "B"]}, "C", False),
        ({"any_of": [{"absent": True}, {"type": "array", "count": 0}]}, [], True),
        ({"any_of": [{"absent": True}, {"type": "array", "count": 0}]}, [1], False),
        ({"not": {"contains": "x"}}, "abc", True),
        ({"matches": "^[0-9]{4}-"}, "2026-01-01", True),
        ({"gte": 1, "lt": 3}, 3, False),
        (1, True, False),
        ([{"text": "a"}], [{"text": "a"}, {"text": "b"}], True),
        ([{"text": "a"}, {"text": "b"}], [{"text": "a"}], False),
    ],
)
def test_assertion_operators_hold_and_miss(expected: Any, actual: Any, ok: bool) -> None:
    assert (A.check(expected, actual) is None) is ok


def test_paths_until_and_variables() -> None:
    value = {"task": {"artifacts": [{"parts": [{"text": "a"}, {"data": {}}]}, {"parts": [{"text": "b"}]}]}}
    assert A.select(value, "task.artifacts[*].parts[*]") == [{"text": "a"}, {"data": {}}, {"text": "b"}]
    assert A.get(value, "task.artifacts[1].parts[0].text") == "b"
    f = document.Fields(Path("x"))
    assert A.until_holds(document.parse_until("status.state in [A, B]", f, ""), {"status": {"state": "B"}})
    assert not A.until_holds(document.parse_until("status.state != B", f, ""), {"status": {"state": "B"}})
    scope = A.Scope({"base": "{{env.ACTS_TEST_NOPE}}", "n": "7"}, {"SUT_BASE_URL": "http://x"})
    scope.captures["send"] = {"taskId": "t-1", "count": 3}
    assert (
        scope.resolve("{{send.count}}") == 3
        and scope.resolve("id {{send.taskId}} at {{SUT_BASE_URL}}") == "id t-1 at http://x"
    )
    with pytest.raises(A.Unresolved, match="ACTS_TEST_NOPE"):
        scope.resolve("{{base}}")
    with pytest.raises(A.Unresolved, match="captured no"):
        scope.responses["send"] = {}
        scope.resolve("{{send.contextId}}")


# ------------------------------------------------------------------------------------------------ client tests

PARSE: dict[str, Any] = {
    "id": "CLIENT-PARSE-001",
    "name": "parses a completed task",
    "level": "must",
    "steps": [
        {
            "id": "parse",
            "client_response": {
                "operation": "send_message",
                "wire_payload": {
                    "jsonrpc": "2.0",
                    "id": "1",
                    "result": {
                        "task": {
                            "id": "abc-123",
                            "contextId": "ctx-456",
                            "status": {"state": "TASK_STATE_COMPLETED"},
                            "artifacts": [{"artifactId": "a", "parts": [{"text": "hello world"}]}],
                        }
                    },
                },
            },
            "expect_parsed": {
                "task": {
                    "id": "abc-123",
                    "status": {"state": "TASK_STATE_COMPLETED"},
                    "artifacts": [{"parts": [{"text": "hello world"}]}],
                }
            },
        }
    ],
}


def client_run(tmp_path: Path, data: dict[str, Any], client: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """`acts run --client` in-process: the exit code, the ACTS report's tests by id, a2a-lab's report."""
    path = write(tmp_path, data)
    out, lab = tmp_path / "acts.json", tmp_path / "lab.json"
    code = main(["acts", "run", str(path), "--client", client, "--json", str(out), "--report-json", str(lab), "-q"])
    return code, results(json.loads(out.read_text())), json.loads(lab.read_text())


def test_the_reference_client_reports_what_it_parsed_and_passes(tmp_path: Path) -> None:
    # an operation a2a-lab serves no client payload of (test_acts_clients.py: every one it does serve)
    cancel = {
        **PARSE,
        "id": "CLIENT-CANCEL-1",
        "steps": [{**PARSE["steps"][0], "client_response": {"operation": "cancel_task", "wire_payload": {}}}],
    }
    code, got, lab = client_run(tmp_path, suite(PARSE, cancel), "builtin")
    assert code == 0
    assert got["CLIENT-PARSE-001"]["result"] == "pass"
    assert got["CLIENT-CANCEL-1"]["result"] == "skip" and "cancel_task payload" in got["CLIENT-CANCEL-1"]["skip_reason"]
    outcomes = {s["id"]: s["outcome"] for s in lab["scenarios"]}
    assert outcomes == {"acts/client/CLIENT-PARSE-001": "PASS", "acts/client/CLIENT-CANCEL-1": "SKIPPED"}


def test_a_parse_that_differs_fails_and_a_client_without_a_report_is_unimplemented(tmp_path: Path) -> None:
    wrong = json.loads(json.dumps(PARSE))
    wrong["steps"][0]["expect_parsed"]["task"]["id"] = "xyz-999"
    code, got, _ = client_run(tmp_path, suite(wrong), "builtin")
    assert code == 1
    failure = got["CLIENT-PARSE-001"]["failure"]
    assert failure["assertion_path"] == "task.id" and failure["actual"] == '"abc-123"'
    code, got, lab = client_run(tmp_path, suite(PARSE), fake_command())
    assert code == 0 and got["CLIENT-PARSE-001"]["result"] == "skip"
    assert "no `parsed`" in got["CLIENT-PARSE-001"]["skip_reason"]
    assert lab["scenarios"][0]["outcome"] == "UNIMPLEMENTED"
    code, got, _ = client_run(tmp_path, suite(PARSE), f"{sys.executable} -c pass")
    assert code == 1 and "never asked for SendMessage" in got["CLIENT-PARSE-001"]["failure"]["message"]


# ------------------------------------------------------------------------------------- decisions (docs/how-to/acts.md)


def one_step(step: dict[str, Any], **test: Any) -> dict[str, Any]:
    return suite({"id": "T-1", "name": "t", "level": "must", "steps": [step], **test})


@pytest.mark.parametrize(
    ("step", "check"),
    [
        (
            {
                "id": "s",
                "operation": "get_task",
                "params": {"id": "x"},
                "expect_error": {"message": {"type": "string"}},
            },
            lambda s: s.expect_error.spelled == "any",
        ),
        (
            {
                "id": "s",
                "operation": "get_task",
                "params": {"id": "x"},
                "expect": {"status": "error", "error": {"exists": True}},
            },
            lambda s: s.expect_error.spelled == "expect.status: error" and s.expect is None,
        ),
        (
            {"id": "s", "operation": "subscribe_to_task", "params": {"id": "x"}, "expect": {"error": {"exists": True}}},
            lambda s: s.expect_error is not None and s.expect is None,
        ),
        (
            {"id": "s", "operation": "get_agent_card", "params": {"extended": True}},
            lambda s: s.operation == "get_extended_agent_card",
        ),
        (
            {"id": "s", "operation": "get_task", "params": {"id": "x"}, "expect": {"id": "x", "status": 200}},
            lambda s: s.expect.body == {"id": "x"} and s.expect.status == 200,
        ),
        (
            {
                "id": "s",
                "operation": "get_agent_card",
                "params": {},
                "expect": {"body": {"skills": {"items": {"id": {"type": "string"}}}}},
            },
            lambda s: s.expect.body["skills"]["items"] == {"id": {"type": "string"}},
        ),
    ],
)
def test_the_official_files_spellings_read_as_documented(tmp_path: Path, step: dict[str, Any], check: Any) -> None:
    doc = document.load(write(tmp_path, one_step(step, requires_behaviors=[])))
    assert check(doc.tests[0].steps[0])


def test_raw_steps_take_expect_stream_and_a_mixed_expect_is_refused(tmp_path: Path) -> None:
    raw = {"id": "r", "raw": {"method": "POST", "path": "/", "body": {}}, "expect_stream": {"min_count": 1}}
    doc = document.load(write(tmp_path, one_step(raw, transport=["jsonrpc"])))
    assert doc.tests[0].steps[0].expect_stream is not None
    mixed = {"id": "s", "operation": "get_task", "params": {}, "expect": {"body": {}, "id": "x"}}
    with pytest.raises(document.ActsError, match="beside `body`"):
        document.load(write(tmp_path, one_step(mixed)))


def test_params_map_to_the_request_forms() -> None:
    from a2a_lab.harness.acts.exchange import acts_error, wire_params

    sent = wire_params("send_message", {"taskId": "t", "message": {"role": "ROLE_USER", "parts": []}})
    assert sent["message"]["taskId"] == "t" and sent["message"]["messageId"] and "taskId" not in sent
    assert wire_params("list_tasks", {"cursor": "c"}) == {"pageToken": "c"}
    flat = wire_params("create_push_config", {"taskId": "t", "pushNotificationConfig": {"url": "u"}})
    assert flat == {"taskId": "t", "url": "u"}
    assert wire_params("get_push_config", {"taskId": "t", "configId": "c"}) == {"taskId": "t", "id": "c"}
    assert acts_error("StreamingNotSupportedError") == {"UnsupportedOperationError"}
    assert acts_error("TaskNotFoundError") == {"TaskNotFoundError"}


def test_event_assertions_and_monotonic_state() -> None:
    from a2a_lab.harness.acts.runner import _monotonic, event_check

    working = {"statusUpdate": {"status": {"state": "TASK_STATE_WORKING"}}}
    done = {"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}}}
    assert event_check({"status": {"state": "TASK_STATE_COMPLETED"}}, done) is None  # the payload's status
    assert event_check({"status_update": {"status": {"state": "TASK_STATE_WORKING"}}}, working) is None
    assert event_check({"status_update": {"status": {"state": "TASK_STATE_WORKING"}}}, done) is not None
    shapes = {"one_of": [{"status_update": {"status": {"state": "TASK_STATE_COMPLETED"}}}, {"task": {"id": "t"}}]}
    assert event_check(shapes, done) is None and event_check(shapes, working) is not None
    assert _monotonic([working, done, done]) == ""
    assert "terminal state is final" in _monotonic([done, working])
    submitted = {"statusUpdate": {"status": {"state": "TASK_STATE_SUBMITTED"}}}
    assert "only the initial state" in _monotonic([submitted, working, submitted])


def test_raw_steps_and_push_configs_on_a_live_server(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut")
    raw = {
        "id": "JSONRPC-RAW-1",
        "name": "raw envelope",
        "level": "must",
        "transport": ["jsonrpc"],
        "steps": [
            {
                "id": "r",
                "raw": {
                    "method": "POST",
                    "path": "/",
                    "headers": {"Content-Type": "application/json", "A2A-Version": "1.0"},
                    "body": {"jsonrpc": "2.0", "id": "r-1", "method": "GetTask", "params": {"id": "nope"}},
                },
                "expect": {"status": 200, "body": {"jsonrpc": "2.0", "id": "r-1", "error": {"code": -32001}}},
            },
            {
                "id": "card",
                "raw": {"method": "GET", "path": "/.well-known/agent-card.json"},
                "expect": {"body": {"name": {"starts_with": "a2a-lab"}}},
            },
        ],
    }
    push = {
        "id": "PUSH-1",
        "name": "push config round trip",
        "level": "should",
        "preconditions": {"capabilities": {"pushNotifications": True}},
        "steps": [
            {
                "id": "send",
                "operation": "send_message",
                "params": send("tck-complete-task push"),
                "capture": {"taskId": "task.id"},
            },
            {
                "id": "set",
                "operation": "set_push_notification_config",
                "params": {"taskId": "{{send.taskId}}", "pushNotificationConfig": {"url": "{{hook}}"}},
                "expect": {"body": {"url": "{{hook}}", "id": {"type": "string"}}},
                "capture": {"configId": "id"},
            },
            {
                "id": "get",
                "operation": "get_push_notification_config",
                "params": {"taskId": "{{send.taskId}}", "id": "{{set.configId}}"},
                "expect": {"body": {"id": "{{set.configId}}"}},
            },
        ],
    }
    code, reports = run(tmp_path, served.url, suite(raw, push, variables={"hook": "https://example.com/hook"}))
    assert code == 0
    assert {k: v["result"] for k, v in results(reports["jsonrpc"]).items()} == {
        "JSONRPC-RAW-1": "pass",
        "PUSH-1": "pass",
    }
    assert results(reports["rest"])["PUSH-1"]["result"] == "pass"


def test_a_baseline_excuses_a_known_failure(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut")
    wrong = json.loads(json.dumps(SEND_GET))
    wrong["steps"][1]["expect"]["body"]["status"]["state"] = "TASK_STATE_WORKING"
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(yaml.safe_dump({"acts/jsonrpc/CORE-SEND-001": {"CORE-SEND-001": "known: the test is wrong"}}))
    code, reports = run(tmp_path, served.url, suite(wrong), "--binding", "jsonrpc", "--baseline", str(baseline))
    assert code == 0 and results(reports["jsonrpc"])["CORE-SEND-001"]["result"] == "fail"


def test_a_behaviours_file_says_what_the_sut_serves(
    tmp_path: Path, serve: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    served = serve("spec/acts-sut")
    behaviours = tmp_path / "sut.yaml"
    behaviours.write_text(
        yaml.safe_dump({"acts_version": "1.0", "behaviors": [{"prefix": "tck-cancel", "description": "d"}]})
    )
    code, reports = run(
        tmp_path, served.url, suite(SEND_GET, NOT_FOUND), "--binding", "rest", "--behaviors", str(behaviours)
    )
    got = results(reports["rest"])
    assert code == 0 and got["CORE-ERR-001"]["result"] == "pass"
    assert "tck-complete-task" in got["CORE-SEND-001"]["skip_reason"]
    behaviours.write_text(yaml.safe_dump({"acts_version": "1.0", "behaviors": [{"prefixx": "tck-cancel"}]}))
    assert run(tmp_path, served.url, suite(NOT_FOUND), "--behaviors", str(behaviours))[0] == 2
    assert "behaviors[0].prefixx" in capsys.readouterr().err


def test_a_report_folder_gets_section_13_5_names(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut")
    folder = tmp_path / "reports"
    folder.mkdir()
    path = write(tmp_path, suite(NOT_FOUND))
    code = main(["acts", "run", str(path), "--server", served.url, "--json", str(folder), "--sdk", "my sdk", "-q"])
    names = sorted(p.name for p in folder.iterdir())
    assert code == 0 and len(names) == 3
    assert all(re.fullmatch(r"acts-report-my-sdk-(grpc|jsonrpc|rest)-\d{8}T\d{6}Z\.json", n) for n in names), names


def test_acts_files_are_bounded_like_every_user_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from a2a_lab.contract import userfile

    big = tmp_path / "big.acts.yaml"
    big.write_text("# " + "x" * (userfile.ACTS.max_bytes + 10))
    deep = write(tmp_path, {**suite(NOT_FOUND), "metadata": {"description": "d"}}, "deep.acts.json")
    deep.write_text(deep.read_text()[:-1] + ', "x": ' + "[" * 100 + "]" * 100 + "}")
    for path, said in ((big, "ACTS file"), (deep, "nested more than 64 levels")):
        assert main(["acts", "run", str(path), "--server", "http://127.0.0.1:9"]) == 2
        assert said in capsys.readouterr().err


def test_several_paths_are_one_run_and_a_test_id_used_twice_is_refused(tmp_path: Path) -> None:
    from a2a_lab.harness.cli.acts import load

    a = write(tmp_path, suite(NOT_FOUND), "a.acts.yaml")
    b = write(tmp_path, suite(SEND_GET), "b.acts.yaml")
    assert [t.id for t in load([a, b]).tests] == ["CORE-ERR-001", "CORE-SEND-001"]
    with pytest.raises(document.ActsError, match="is used again"):
        load([a, write(tmp_path, suite(NOT_FOUND), "c.acts.yaml")])


def test_a_server_url_with_a_control_character_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, suite(NOT_FOUND))
    assert main(["acts", "run", str(path), "--server", "http://127.0.0.1:9\nnext line", "-q"]) == 2
    assert "no card at 'http://127.0.0.1:9\\nnext line'" in capsys.readouterr().err
