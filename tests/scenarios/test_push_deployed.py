"""Push as deployed (issue 16 item 4): config CRUD, webhook authentication in the scheme the config names, redelivery,
notifications about a task the client never started, out-of-order delivery, and 0.3's whole-Task payloads. Each
scenario behaves as its description says over real HTTP, a correct client passes it, and a client with the defect it
exists to catch misses the check it names."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult

from .action_runs import Case, Miss, assert_misses, assert_passes, case, message, message03, rpc_json, run_cases

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
V03 = {"Content-Type": "application/json"}
CRUD, CRUD03 = "push/config-crud", "push/v03-config-crud"
BASIC, TOKEN03 = "push/webhook-basic-auth", "push/v03-webhook-token"
TASK03, STREAM10 = "push/v03-webhook-task-payload", "push/webhook-with-credentials"
AGAIN, AGAIN03 = "push/redelivered-event", "push/v03-redelivered-task"
FOREIGN, FOREIGN03 = "push/foreign-task", "push/v03-foreign-task"
LATE, LATE03 = "push/out-of-order", "push/v03-out-of-order"
OURS = [CRUD, CRUD03, BASIC, TOKEN03, TASK03, AGAIN, AGAIN03, FOREIGN, FOREIGN03, LATE, LATE03]
QUICK = ("--push-wait", "1")

CORRECT = {sid: case(sid) for sid in OURS}
MISSES = [
    Miss(case(CRUD, "--wrong-config-params", *QUICK), "PUSH-CONFIG-MANAGED", says="refused a push config call"),
    Miss(case(CRUD03, "--wrong-config-params", *QUICK), "PUSH-CONFIG-MANAGED", says="refused a push config call"),
    Miss(case(BASIC, "--check-bearer-only"), "PUSH-RECEIVER", says="wrong credentials"),
    Miss(case(TOKEN03, "--check-bearer-only"), "PUSH-RECEIVER", says="wrong credentials"),
    Miss(case(TASK03, "--v1-notifications-only", *QUICK), "PUSH-RECEIVER", says="not acknowledged"),
    # The other half of the pair: a receiver that reads only 0.3 Tasks misses every 1.0 StreamResponse.
    Miss(case(STREAM10, "--v03-notifications-only", *QUICK), "PUSH-RECEIVER", says="not acknowledged"),
    Miss(case(AGAIN, "--reject-duplicates"), "PUSH-RECEIVER", says="delivered again"),
    # Processing a repeat twice breaks a SHOULD (§4.3.3 idempotency): the words are wrong, the state right.
    Miss(case(AGAIN, "--no-dedup"), "RESULT-EXPECTED", Outcome.NON_STRICT, None, "not exactly"),
    Miss(case(AGAIN03, "--reject-duplicates"), "PUSH-RECEIVER", says="delivered again"),
    Miss(case(FOREIGN, "--any-task"), "RESULT-EXPECTED", says="another state"),
    Miss(case(FOREIGN, "--any-task"), "RESULT-MATCHES", says="another task state"),
    Miss(case(FOREIGN03, "--any-task"), "RESULT-EXPECTED", says="another state"),
    Miss(case(LATE, "--last-wins"), "RESULT-EXPECTED", says="another state"),
    Miss(case(LATE03, "--last-wins"), "RESULT-EXPECTED", says="another state"),
    Miss(case(CRUD, "--ignore-action"), "PUSH-CONFIG-MANAGED", Outcome.UNIMPLEMENTED, Outcome.UNIMPLEMENTED, "none"),
]


@pytest.fixture(scope="module")
def outcomes(catalogue: Catalogue) -> dict[Case, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT.values(), *(m.case for m in MISSES)])


def test_every_new_push_scenario_is_proven(catalogue: Catalogue) -> None:
    assert {m.case.scenario for m in MISSES} >= set(OURS)
    for sid in OURS:
        s = catalogue.get(sid)
        assert s.checks and s.spec and s.expect.stated, sid
    versions = {"1.0" if "supportedInterfaces" in (catalogue.get(sid).card.object or {}) else "0.3" for sid in OURS}
    assert versions == {"1.0", "0.3"}


@pytest.mark.parametrize("scenario", OURS)
def test_a_correct_client_passes(scenario: str, outcomes: dict[Case, ScenarioResult]) -> None:
    assert_passes(outcomes[CORRECT[scenario]])


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_a_defective_client_misses_the_named_check(
    miss: Miss, outcomes: dict[Case, ScenarioResult], catalogue: Catalogue
) -> None:
    assert miss.check in catalogue.get(miss.case.scenario).checks, "the scenario names the check it exercises"
    assert_misses(miss, outcomes[miss.case])


def test_the_correct_client_was_judged_on_what_each_scenario_is_for(outcomes: dict[Case, ScenarioResult]) -> None:
    def says(sid: str, check: str) -> str:
        found = outcomes[CORRECT[sid]].check(check)
        assert found is not None and found.outcome is Outcome.PASS, (sid, found)
        return found.message

    assert "created, listed, got and deleted" in says(CRUD, "PUSH-CONFIG-MANAGED")
    assert "created, listed, got and deleted" in says(CRUD03, "PUSH-CONFIG-MANAGED")
    for sid in (BASIC, TOKEN03, TASK03):
        assert "forged one(s) refused" in says(sid, "PUSH-RECEIVER"), sid
    for sid in (AGAIN, AGAIN03):
        assert "repeated" in says(sid, "PUSH-RECEIVER"), sid
    for sid in (FOREIGN, FOREIGN03):
        assert "about another task" in says(sid, "PUSH-RECEIVER"), sid


# ==================================================================================== behaviour over real HTTP


class Hook:
    """A loopback webhook that records every call and answers 204 (the tests judge what the agent sent)."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, str], Any]] = []
        self.changed = threading.Condition()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                with hook.changed:
                    hook.calls.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    hook.changed.notify_all()
                self.send_response(204)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 5.0) -> list[tuple[dict[str, str], Any]]:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.calls) >= count, timeout), (
                f"{len(self.calls)} of {count} deliveries arrived"
            )
            return list(self.calls)


@pytest.fixture
def hook() -> Iterator[Hook]:
    made = Hook()
    yield made
    made.server.shutdown()
    made.server.server_close()


def what(body: Any) -> str:
    """A delivery as `STATE` (1.0 statusUpdate, 0.3 Task) or `artifactUpdate`, with `@<task id>` for another task."""
    if "kind" in body:
        return body["status"]["state"]
    ((key, inner),) = body.items()
    return inner["status"]["state"].removeprefix("TASK_STATE_") if key == "statusUpdate" else key


def send10(s: Any, hook: Hook, **auth: Any) -> dict[str, Any]:
    config = {"url": hook.url, **auth}
    params = {
        "message": message("hi"),
        "configuration": {"taskPushNotificationConfig": config, "returnImmediately": True},
    }
    task: dict[str, Any] = s.http.post("/a2a", content=rpc_json("SendMessage", params), headers=V1).json()["result"][
        "task"
    ]
    return task


def send03(s: Any, hook: Hook, **auth: Any) -> dict[str, Any]:
    config = {"url": hook.url, **auth}
    params = {"message": message03("hi"), "configuration": {"pushNotificationConfig": config, "blocking": False}}
    task: dict[str, Any] = s.http.post("/a2a", content=rpc_json("message/send", params), headers=V03).json()["result"]
    return task


def test_basic_credentials_are_sent_as_configured_and_the_probe_spoils_them(serve: Callable, hook: Hook) -> None:
    s = serve(BASIC)
    basic = base64.b64encode(b"me:pw").decode()
    send10(s, hook, authentication={"scheme": "Basic", "credentials": basic})
    calls = hook.wait_for(4)
    assert [h["authorization"] for h, _ in calls] == [
        "Basic a2a-lab-wrong-credentials",
        *[f"Basic {basic}"] * 3,
    ]


def test_a_token_only_config_is_probed_with_a_wrong_token(serve: Callable, hook: Hook) -> None:
    s = serve(TOKEN03)
    send03(s, hook, token="t0k3n")
    calls = hook.wait_for(4)
    assert [h["x-a2a-notification-token"] for h, _ in calls] == ["a2a-lab-wrong-credentials", *["t0k3n"] * 3]
    assert all("authorization" not in h and h["content-type"] == "application/json" for h, _ in calls)
    # The whole Task as it is when each event happens: the artifact arrives with the last step, so twice completed.
    assert [what(b) for _, b in calls] == ["working", "working", "completed", "completed"], "the whole Task, 0.3"


def test_redeliver_sends_each_notification_twice_and_the_journal_says_so(serve: Callable, hook: Hook) -> None:
    s = serve(AGAIN)
    send10(s, hook)
    calls = hook.wait_for(8)
    bodies = [b for _, b in calls]
    assert bodies[0::2] == bodies[1::2], "each notification is followed by the same one"
    assert [what(b) for b in bodies[0::2]] == ["WORKING", "artifactUpdate", "artifactUpdate", "COMPLETED"]
    assert bodies[4]["artifactUpdate"]["append"] is True, "the chunk a careless receiver appends twice"
    pushes = [e["push"] for e in s.journal if e["kind"] == "push"]
    assert [p.get("redelivery", False) for p in pushes] == [False, True] * 4


def test_reorder_sends_the_first_status_after_the_last(serve: Callable, hook: Hook) -> None:
    s = serve(LATE)
    send10(s, hook)
    bodies = [b for _, b in hook.wait_for(3)]
    assert [what(b) for b in bodies] == ["artifactUpdate", "COMPLETED", "WORKING"]
    stamps = [b["statusUpdate"]["status"]["timestamp"] for b in bodies[1:]]
    assert stamps[1] < stamps[0], "the late one is older"
    s03 = serve(LATE03)
    hook.calls.clear()
    send03(s03, hook)
    assert [what(b) for _, b in hook.wait_for(3)] == ["completed", "completed", "working"]


@pytest.mark.parametrize("sid", [FOREIGN, FOREIGN03])
def test_foreign_task_comes_right_before_the_stop_with_the_configs_credentials(
    serve: Callable, hook: Hook, sid: str
) -> None:
    s = serve(sid)
    auth = {"scheme": "Bearer", "credentials": "c"} if sid == FOREIGN else {"schemes": ["Bearer"], "credentials": "c"}
    task = (send10 if sid == FOREIGN else send03)(s, hook, authentication=auth)
    calls = hook.wait_for(4)
    ids = [b["id"] if "kind" in b else next(iter(b.values()))["taskId"] for _, b in calls]
    states = [what(b).upper().removeprefix("TASK_STATE_") for _, b in calls]
    # Right before the first notification that tells the task stopped: 1.0 the statusUpdate after the artifact,
    # 0.3 the Task that arrives with the artifact.
    at = 2 if sid == FOREIGN else 1
    assert ids == [f"{task['id']}-not-yours" if i == at else task["id"] for i in range(4)]
    assert states[at : at + 2] == ["FAILED", "COMPLETED"] and "COMPLETED" not in states[:at]
    assert all(h["authorization"] == "Bearer c" for h, _ in calls)
    pushes = [e["push"] for e in s.journal if e["kind"] == "push"]
    assert [p.get("foreign", False) for p in pushes] == [i == at for i in range(4)]
    assert all(p["task_id"] == task["id"] for p in pushes), "journaled under the config's own task"


def test_config_crud_over_both_versions(serve: Callable, hook: Hook) -> None:
    s = serve(CRUD)
    task = s.http.post(
        "/a2a",
        content=rpc_json("SendMessage", {"message": message(), "configuration": {"returnImmediately": True}}),
        headers=V1,
    ).json()["result"]["task"]

    def rpc(method: str, params: dict[str, Any], headers: dict[str, str] = V1) -> Any:
        return s.http.post("/a2a", content=rpc_json(method, params), headers=headers).json()

    made = rpc("CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": hook.url})["result"]
    assert [c["id"] for c in rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]["configs"]] == [
        made["id"]
    ]
    assert rpc("GetTaskPushNotificationConfig", {"taskId": task["id"], "id": made["id"]})["result"]["url"] == hook.url
    wrong = rpc("GetTaskPushNotificationConfig", {"id": task["id"], "pushNotificationConfigId": made["id"]})
    assert wrong["error"]["code"] == -32602, "0.3's names under 1.0"
    assert rpc("DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": made["id"]})["result"] == {}
    assert rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]["configs"] == []
