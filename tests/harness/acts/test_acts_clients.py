"""ACTS client tests (§10) in every form a2a-lab serves (issue 46 item 2): a SendMessage answer, a stream, a GetTask
answer (a task, an error), the card (the capability form) and the extended card behind an auth challenge. The
reference client runs and passes them all; a client of the tests' own (acts_client.py) fails each, by what it says it
parsed and by what it does on the wire; a client that says nothing is judged by the wire where the wire shows the
whole expectation, else UNIMPLEMENTED, never PASS."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.harness.cli import main

from .test_acts import results, suite, write

CLIENT = f"{sys.executable} {Path(__file__).with_name('acts_client.py')}"


def rpc(result: Any = None, error: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": "golden-1", **({"error": error} if error else {"result": result})}


def client_test(test_id: str, *steps: tuple[str, Any, dict[str, Any]], level: str = "must") -> dict[str, Any]:
    return {
        "id": test_id,
        "name": test_id.lower(),
        "level": level,
        "steps": [
            {"id": f"s{i}", "client_response": {"operation": op, "wire_payload": payload}, "expect_parsed": parsed}
            for i, (op, payload, parsed) in enumerate(steps)
        ],
    }


DONE = {"state": "TASK_STATE_COMPLETED"}
TASK = {
    "id": "t-41",
    "contextId": "c-41",
    "status": DONE,
    "artifacts": [
        {"artifactId": "a1", "parts": [{"text": "forty-one"}]},
        {"artifactId": "a2", "parts": [{"data": {"n": 41}}]},
    ],
    "history": [
        {"messageId": "h1", "role": "ROLE_USER", "parts": [{"text": "count"}]},
        {"messageId": "h2", "role": "ROLE_AGENT", "parts": [{"text": "counting"}]},
    ],
}
CARD = {"name": "Gated", "version": "2.0.0", "capabilities": {"streaming": False, "pushNotifications": False}}
PUBLIC = {"name": "Two-faced", "version": "1.0.0", "capabilities": {"streaming": False, "extendedAgentCard": True}}
EXTENDED = {
    "name": "Two-faced",
    "version": "1.0.0",
    "capabilities": {"streaming": True, "extendedAgentCard": True},
    "skills": [{"id": "secret", "name": "Secret", "description": "for members", "tags": []}],
}
FORMS: dict[str, dict[str, Any]] = {
    "UNARY-TASK": client_test(
        "UNARY-TASK",
        ("send_message", rpc({"task": {**TASK, "history": []}}), {"task": {"id": "t-41", "status": DONE}}),
    ),
    "UNARY-MESSAGE": client_test(
        "UNARY-MESSAGE",
        (
            "send_message",
            rpc({"message": {"messageId": "m-7", "role": "ROLE_AGENT", "parts": [{"text": "seven"}]}}),
            {"message": {"messageId": "m-7", "role": "ROLE_AGENT", "parts": {"count_gte": 1}}},
        ),
    ),
    "STREAM": client_test(
        "STREAM",
        (
            "send_streaming_message",
            [
                rpc({"task": {"id": "t-9", "contextId": "c-9", "status": {"state": "TASK_STATE_WORKING"}}}),
                rpc({"task": {"id": "t-9", "contextId": "c-9", "status": DONE}}),
            ],
            {"task": {"id": "t-9", "status": DONE}},
        ),
    ),
    "GET-TASK": client_test(
        "GET-TASK",
        (
            "get_task",
            rpc(TASK),
            {"id": "t-41", "contextId": "c-41", "artifacts": {"count_gte": 2}, "history": {"count_gte": 2}},
        ),
    ),
    "GET-TASK-ERROR": client_test(
        "GET-TASK-ERROR",
        (
            "get_task",
            rpc(error={"code": -32001, "message": "No such task here"}),
            {"error": {"code": -32001, "message": {"contains": "such task"}}},
        ),
    ),
    "CARD-CAPABILITIES": client_test(
        "CARD-CAPABILITIES",
        ("get_agent_card", CARD, {"capabilities": {"streaming": False, "pushNotifications": False}}),
        level="should",
    ),
    "EXTENDED-CARD": client_test(
        "EXTENDED-CARD",
        ("get_agent_card", PUBLIC, {"capabilities": {"extendedAgentCard": True}}),
        ("get_extended_agent_card", EXTENDED, {"capabilities": {"streaming": True}, "skills": {"count_gte": 1}}),
        level="should",
    ),
}


def client_run(tmp_path: Path, client: str, *tests: str) -> tuple[int, dict[str, Any], dict[str, str]]:
    """`acts run --client` on the chosen forms: the exit code, the ACTS report's tests, a2a-lab's outcomes."""
    path = write(tmp_path, suite(*(FORMS[t] for t in tests or FORMS)))
    out, lab = tmp_path / "acts.json", tmp_path / "lab.json"
    code = main(["acts", "run", str(path), "--client", client, "--json", str(out), "--report-json", str(lab), "-q"])
    outcomes = {s["id"].split("/")[-1]: s["checks"][0]["outcome"] for s in json.loads(lab.read_text())["scenarios"]}
    return code, results(json.loads(out.read_text())), outcomes


def test_the_reference_client_is_served_every_form_and_passes_each(tmp_path: Path) -> None:
    code, got, outcomes = client_run(tmp_path, "builtin")
    assert {k: v["result"] for k, v in got.items()} == dict.fromkeys(FORMS, "pass"), got
    assert code == 0 and set(outcomes.values()) == {"PASS"}
    assert [s["id"] for s in got["EXTENDED-CARD"]["steps"]] == ["s0", "s1"]


def test_a_client_that_parses_wrong_fails_each_form(tmp_path: Path) -> None:
    code, got, outcomes = client_run(tmp_path, f"{CLIENT} --defect parse")
    assert code == 1 and {k: v["result"] for k, v in got.items()} == dict.fromkeys(FORMS, "fail"), got
    paths = {k: v["failure"]["assertion_path"] for k, v in got.items()}
    assert paths["GET-TASK"] == "id" and paths["GET-TASK-ERROR"] == "error.code"
    assert paths["CARD-CAPABILITIES"] == "capabilities.streaming" and paths["STREAM"] == "task.id"
    assert outcomes["CARD-CAPABILITIES"] == "NON_STRICT" and outcomes["GET-TASK"] == "FAIL"
    # the same client, parsing right, passes: the failures are its defect's
    code, got, _ = client_run(tmp_path, CLIENT)
    assert code == 0 and {k: v["result"] for k, v in got.items()} == dict.fromkeys(FORMS, "pass"), got


def test_a_client_that_says_nothing_is_judged_by_the_wire_where_it_shows_all_else_unimplemented(
    tmp_path: Path,
) -> None:
    code, got, outcomes = client_run(tmp_path, f"{CLIENT} --defect no-parse")
    assert code == 0
    # the control run shows it streams and registers webhooks where a card declares them: its not doing so here
    # shows it read both capabilities false, all that test expects
    assert outcomes.pop("CARD-CAPABILITIES") == "PASS"
    assert set(outcomes.values()) == {"UNIMPLEMENTED"}, outcomes
    assert "no `parsed_answers.get_task`" in got["GET-TASK"]["skip_reason"]
    assert "skills" in got["EXTENDED-CARD"]["skip_reason"]  # the wire cannot show the extended card's skills


def test_what_the_wire_shows_fails_a_client_that_ignores_the_card_or_the_task(tmp_path: Path) -> None:
    code, got, _ = client_run(tmp_path, f"{CLIENT} --defect no-parse --defect ignore-capabilities", "CARD-CAPABILITIES")
    assert code == 0 and got["CARD-CAPABILITIES"]["result"] == "fail"  # a SHOULD: the gate holds
    assert "streamed (SendStreamingMessage) though the card declares" in got["CARD-CAPABILITIES"]["failure"]["message"]
    code, got, _ = client_run(tmp_path, f"{CLIENT} --defect public-card-only", "EXTENDED-CARD")
    failure = got["EXTENDED-CARD"]["failure"]
    assert failure["step_id"] == "s1" and "went by another card's capabilities" in failure["message"]
    code, got, _ = client_run(tmp_path, f"{CLIENT} --defect no-follow-up", "GET-TASK", "GET-TASK-ERROR")
    assert code == 1 and {k: v["result"] for k, v in got.items()} == {"GET-TASK": "fail", "GET-TASK-ERROR": "fail"}
    assert "never asked for GetTask" in got["GET-TASK"]["failure"]["message"]


def test_a_test_serving_one_operation_twice_is_skipped_saying_why(tmp_path: Path) -> None:
    twice = client_test("TWICE", ("get_task", rpc(TASK), {}), ("get_task", rpc(TASK), {}))
    path = write(tmp_path, suite(twice))
    out = tmp_path / "acts.json"
    assert main(["acts", "run", str(path), "--client", CLIENT, "--json", str(out), "-q"]) == 0
    got = results(json.loads(out.read_text()))["TWICE"]
    assert got["result"] == "skip" and got["skip_category"] == "runner" and "each once" in got["skip_reason"]


DRAFT = os.environ.get("A2A_LAB_ACTS_DRAFT", "")


@pytest.mark.skipif(
    not (DRAFT and (Path(DRAFT) / "client-parsing.acts.yaml").is_file()),
    reason="the ACTS draft is not here: set A2A_LAB_ACTS_DRAFT to the tests/acts folder of a2aproject/A2A "
    "(branch conformance-spec)",
)
def test_the_drafts_eight_client_tests_all_run_on_the_reference_client(tmp_path: Path) -> None:
    out = tmp_path / "acts.json"
    path = Path(DRAFT) / "client-parsing.acts.yaml"
    main(["acts", "run", str(path), "--client", "builtin", "--json", str(out), "-q"])
    got = results(json.loads(out.read_text()))
    assert len(got) == 8 and all(t["result"] in ("pass", "fail") for t in got.values()), got
