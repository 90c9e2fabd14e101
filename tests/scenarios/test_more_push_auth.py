"""The push/ and auth/ scenarios: each behaves as its description says over real HTTP, a correct client passes it, and
a defective one misses the check the scenario names."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol import signing

from .action_runs import Case, Miss, assert_misses, assert_passes, case, group_ids, message, rpc_json, run_cases

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
PUSH, NO_PUSH = "push/webhook-with-credentials", "push/not-advertised"
BEARER, EXTENDED = "auth/bearer-required", "auth/extended-card"
SIGNED, TAMPERED, UNKNOWN_KEY = "auth/signed-card", "auth/signed-card-tampered", "auth/signed-card-unknown-key"
OURS = [PUSH, NO_PUSH, BEARER, EXTENDED, SIGNED, TAMPERED, UNKNOWN_KEY]

CORRECT = {sid: case(sid) for sid in OURS}
MISSES = [
    Miss(case(PUSH, "--accept-any-credentials"), "PUSH-RECEIVER", says="wrong credentials"),
    Miss(case(PUSH, "--webhook-500", "--push-wait", "1"), "PUSH-RECEIVER", says="not acknowledged"),
    Miss(case(PUSH, "--ignore-action"), "PUSH-RECEIVER", Outcome.UNIMPLEMENTED, Outcome.PASS, "registered no webhook"),
    Miss(
        case(NO_PUSH, "--push-anyway"),
        "CAPABILITIES-RESPECTED",
        Outcome.NON_STRICT,
        None,
        "capabilities.pushNotifications",
    ),
    Miss(case(NO_PUSH, "--push-anyway"), "RESULT-EXPECTED", says="kind: task"),
    # §7.3 asks for credentials on every request without a keyword: NON_STRICT (RESULT-EXPECTED fails the scenario).
    Miss(case(BEARER, "--wrong-token"), "AUTH-PRESENTED", Outcome.NON_STRICT, says="credentials invalid"),
    # Not acting on an ask is UNIMPLEMENTED, never FAIL (issue contract); the conclusion is then not judged either.
    # Declining what the scenario exists for leaves it unjudged: UNIMPLEMENTED, never PASS.
    Miss(
        case(BEARER, "--ignore-action"),
        "AUTH-PRESENTED",
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "no credentials",
    ),
    Miss(
        case(BEARER, "--ignore-action"), "RESULT-EXPECTED", Outcome.UNIMPLEMENTED, Outcome.UNIMPLEMENTED, "did not act"
    ),
    Miss(case(EXTENDED, "--wrong-token"), "AUTH-PRESENTED", says="credentials invalid"),
    Miss(case(EXTENDED, "--wrong-token"), "EXTENDED-CARD", Outcome.NON_STRICT, Outcome.FAIL, "never obtained"),
    Miss(
        case(EXTENDED, "--ignore-action"), "EXTENDED-CARD", Outcome.UNIMPLEMENTED, Outcome.UNIMPLEMENTED, "did not call"
    ),
    Miss(case(SIGNED, "--no-strip-defaults"), "SIGNATURE-VERIFIED", says="refused a card whose signature verifies"),
    Miss(
        case(TAMPERED, "--skip-verification"),
        "RESULT-EXPECTED",
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "did not act",
    ),
    Miss(
        case(TAMPERED, "--skip-verification"),
        "SIGNATURE-VERIFIED",
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "does not verify",
    ),
    Miss(
        case(UNKNOWN_KEY, "--skip-verification"),
        "RESULT-EXPECTED",
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "did not act",
    ),
    Miss(
        case(UNKNOWN_KEY, "--skip-verification"),
        "SIGNATURE-VERIFIED",
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "does not verify",
    ),
]


@pytest.fixture(scope="module")
def outcomes(catalogue: Catalogue) -> dict[Case, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT.values(), *(m.case for m in MISSES)])


def test_every_push_and_auth_scenario_is_covered(catalogue: Catalogue) -> None:
    assert set(OURS) <= group_ids(catalogue, "push") | group_ids(catalogue, "auth")
    assert {m.case.scenario for m in MISSES} == set(OURS)
    for sid in OURS:
        s = catalogue.get(sid)
        assert s.checks and (s.spec or s.observed) and s.expect.stated, sid


@pytest.mark.parametrize("scenario", OURS)
def test_a_correct_client_passes(scenario: str, outcomes: dict[Case, ScenarioResult]) -> None:
    assert_passes(outcomes[CORRECT[scenario]])


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_a_defective_client_misses_the_named_check(
    miss: Miss, outcomes: dict[Case, ScenarioResult], catalogue: Catalogue
) -> None:
    assert miss.check in catalogue.get(miss.case.scenario).checks, "the scenario names the check it exercises"
    assert_misses(miss, outcomes[miss.case])


def test_the_correct_client_acted_as_asked(outcomes: dict[Case, ScenarioResult]) -> None:
    push = outcomes[CORRECT[PUSH]]
    receiver = push.check("PUSH-RECEIVER")
    assert receiver is not None and receiver.outcome is Outcome.PASS and "forged one(s) refused" in receiver.message
    checked = outcomes[CORRECT[NO_PUSH]].check("PUSH-RECEIVER")
    assert checked is not None and checked.outcome is Outcome.SKIPPED
    checked = outcomes[CORRECT[EXTENDED]].check("EXTENDED-CARD")
    assert checked is not None and checked.outcome is Outcome.PASS
    checked = outcomes[CORRECT[BEARER]].check("AUTH-PRESENTED")
    assert checked is not None and checked.outcome is Outcome.PASS
    for sid in (SIGNED, TAMPERED, UNKNOWN_KEY):
        checked = outcomes[CORRECT[sid]].check("SIGNATURE-VERIFIED")
        assert checked is not None and checked.outcome is Outcome.PASS, sid
    for sid in (TAMPERED, UNKNOWN_KEY):
        result = outcomes[CORRECT[sid]]
        assert [e["kind"] for e in result.journal] == ["card"], "the card was read and nothing else"


# ==================================================================================== behaviour over real HTTP


class Hook:
    """A webhook on loopback that accepts `Bearer <secret>` (204) and refuses anything else (401)."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.calls: list[tuple[int, dict[str, str], Any]] = []
        self.changed = threading.Condition()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                status = 204 if self.headers.get("authorization") == f"Bearer {hook.secret}" else 401
                with hook.changed:
                    hook.calls.append((status, {k.lower(): v for k, v in self.headers.items()}, body))
                    hook.changed.notify_all()
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 5.0) -> list[tuple[int, dict[str, str], Any]]:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.calls) >= count, timeout), (
                f"{len(self.calls)} of {count} deliveries arrived"
            )
            return list(self.calls)


@pytest.fixture
def hook() -> Iterator[Hook]:
    made = Hook("s3cret")
    yield made
    made.server.shutdown()
    made.server.server_close()


def config(url: str, secret: str = "s3cret") -> dict[str, Any]:
    return {"taskPushNotificationConfig": {"url": url, "authentication": {"scheme": "Bearer", "credentials": secret}}}


def states_of(calls: list[tuple[int, dict[str, str], Any]]) -> list[str]:
    return [
        next(iter(body))
        if "statusUpdate" not in body
        else body["statusUpdate"]["status"]["state"].removeprefix("TASK_STATE_")
        for _, _, body in calls
    ]


def test_push_probe_first_then_every_event_while_the_task_moves_by_itself(serve: Callable, hook: Hook) -> None:
    s = serve(PUSH)
    params = {"message": message("later"), "configuration": {**config(hook.url), "returnImmediately": True}}
    task = s.http.post("/a2a", content=rpc_json("SendMessage", params), headers=V1).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED", "returnImmediately: the answer comes at once"
    calls = hook.wait_for(4)  # nobody polls: the task moves on by itself and the webhook hears of it
    assert [c[0] for c in calls] == [401, 204, 204, 204]
    assert calls[0][1]["authorization"] == "Bearer a2a-lab-wrong-credentials" and calls[0][2] == calls[1][2], (
        "the probe is the same event"
    )
    assert states_of(calls[1:]) == ["WORKING", "artifactUpdate", "COMPLETED"]
    assert all(
        c[1]["content-type"] == "application/a2a+json" and next(iter(c[2].values()))["taskId"] == task["id"]
        for c in calls
    )
    assert calls[2][2]["artifactUpdate"]["artifact"]["parts"] == [{"text": "called back: later"}]
    pushes = [e for e in s.journal if e["kind"] == "push"]
    assert [e["push"]["probe"] for e in pushes] == [True, False, False, False] and "s3cret" not in json.dumps(pushes)


def test_push_with_a_blocking_send(serve: Callable, hook: Hook) -> None:
    s = serve(PUSH)
    answer = s.http.post(
        "/a2a", content=rpc_json("SendMessage", {"message": message(), "configuration": config(hook.url)}), headers=V1
    ).json()
    assert answer["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert states_of(hook.wait_for(4)[1:]) == ["WORKING", "artifactUpdate", "COMPLETED"]


def test_push_not_advertised_refuses_every_registration(serve: Callable, hook: Hook) -> None:
    s = serve(NO_PUSH)
    inline = s.http.post(
        "/a2a", content=rpc_json("SendMessage", {"message": message(), "configuration": config(hook.url)}), headers=V1
    ).json()
    assert inline["error"]["code"] == -32003
    task = s.http.post("/a2a", content=rpc_json("SendMessage", {"message": message()}), headers=V1).json()["result"][
        "task"
    ]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    created = s.http.post(
        "/a2a",
        content=rpc_json("CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": hook.url}),
        headers=V1,
    ).json()
    assert created["error"]["code"] == -32003 and hook.calls == []


def test_bearer_required_on_every_call_not_on_the_card(serve: Callable) -> None:
    s = serve(BEARER)
    card = s.http.get("/.well-known/agent-card.json")
    assert card.status_code == 200
    assert card.json()["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
    assert card.json()["securityRequirements"] == [{"schemes": {"bearer": {"list": []}}}]
    body = rpc_json("SendMessage", {"message": message("me")})
    for headers in (V1, {**V1, "Authorization": "Bearer not-it"}):
        r = s.http.post("/a2a", content=body, headers=headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == -32010
    token = s.app.scenario.client.action["token"]
    ok = s.http.post("/a2a", content=body, headers={**V1, "Authorization": f"Bearer {token}"}).json()
    assert ok["result"]["task"]["artifacts"][0]["parts"] == [{"text": "authenticated: me"}]
    rest = s.http.post("/a2a/rest/message:send", json={"message": message()}, headers={"A2A-Version": "1.0"})
    assert rest.status_code == 401, "HTTP+JSON too"
    assert [e.get("credentials") for e in s.journal if e.get("operation")] == ["absent", "invalid", "valid", "absent"]
    assert token not in json.dumps(s.journal)


def test_extended_card_only_with_the_token(serve: Callable) -> None:
    s = serve(EXTENDED)
    public = s.http.get("/.well-known/agent-card.json").json()
    assert public["capabilities"]["extendedAgentCard"] is True and [k["id"] for k in public["skills"]] == ["public"]
    call = rpc_json("GetExtendedAgentCard", {})
    assert s.http.post("/a2a", content=call, headers=V1).status_code == 401
    token = s.app.scenario.client.action["token"]
    extended = s.http.post("/a2a", content=call, headers={**V1, "Authorization": f"Bearer {token}"}).json()["result"]
    assert [k["id"] for k in extended["skills"]] == ["public", "reports"]
    assert extended["supportedInterfaces"][0]["url"] == f"{s.url}/a2a"
    open_send = s.http.post("/a2a", content=rpc_json("SendMessage", {"message": message()}), headers=V1).json()
    assert open_send["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED", "the other operations are open"


@pytest.mark.parametrize(
    "sid,valid,why",
    [(SIGNED, True, "valid"), (TAMPERED, False, "does not verify"), (UNKNOWN_KEY, False, "no key with kid")],
)
def test_signed_cards(serve: Callable, sid: str, valid: bool, why: str) -> None:
    s = serve(sid)
    card = s.http.get("/.well-known/agent-card.json").json()
    (signature,) = card["signatures"]
    header = json.loads(__import__("base64").urlsafe_b64decode(signature["protected"] + "=="))
    assert header["alg"] == "ES256" and header["typ"] == "JOSE" and header["kid"].startswith("a2a-lab-test-key-1")
    jwks = s.app.scenario.client.action["jwks"]
    assert [k["kid"] for k in jwks["keys"]] == ["a2a-lab-test-key-1"] and "d" not in jwks["keys"][0], (
        "the public key only"
    )
    (verdict,) = signing.verify(card, jwks)
    assert verdict.valid is valid and why in verdict.reason
    assert card["skills"][0]["examples"] == [], "a default-valued field the canonical form must drop"
    answer = s.http.post("/a2a", content=rpc_json("SendMessage", {"message": message()}), headers=V1).json()
    assert answer["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED", (
        "the agent itself works: only the card is in question"
    )
