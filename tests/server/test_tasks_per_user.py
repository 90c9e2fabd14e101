"""`auth.tasks_per_user`: tasks kept apart by the identity that authenticated the call (A2A 1.0 §13.1 Data Access and
Authorization Scoping; §3.3.2 Error Handling, Resource Errors: another user's task is answered as one that does not
exist, the two not told apart).

Served for real (uvicorn and gRPC on loopback, port 0): the catalogue's spec/acts-sut-auth, whose two users are the
HTTP Bearer token (user A) and the OAuth client of its own token endpoint (user B). User B's task answers user A on
every task operation exactly as an unknown id does, byte for byte once the ids are set aside; user B still reaches
it; with the option off (the same scenario otherwise), user A reads it, as before."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.loader import ScenarioError, load_file
from a2a_lab.contract.scenario import Auth, Scenario
from a2a_lab.protocol.operations import Operation
from a2a_lab.server import generations
from a2a_lab.server.auth import Policy, Request, TokenStore, security_of
from a2a_lab.server.engine import Caller
from a2a_lab.server.state import LabState

from .helpers import Lab, Receiver, message, scenario_text, write_scenario

SCENARIO = "spec/acts-sut-auth"
RPC = "/a2a/jsonrpc"
REST = "/a2a/rest"
V1 = {"A2A-Version": "1.0"}
#: User A: the scenario's HTTP Bearer token.
USER_A = {"authorization": "Bearer a2a-lab-test-token-acts-first"}
#: User B: the OAuth client of the scenario's token endpoint.
CLIENT_B = ("a2a-lab-acts-second", "a2a-lab-test-secret-acts-second")
#: An id no task has.
MISSING = "00000000-0000-0000-0000-000000000000"
#: What an id is replaced with before two answers are compared.
ID = "<task id>"


def token_of_b(lab: Lab) -> dict[str, str]:
    """A fresh access token of user B's client (client credentials, RFC 6749 §4.4), as an Authorization header."""
    basic = base64.b64encode(":".join(CLIENT_B).encode()).decode()
    answer = lab.http.post(
        "/oauth/token",
        data={"grant_type": "client_credentials", "scope": "a2a.tasks"},
        headers={"authorization": f"Basic {basic}"},
    )
    assert answer.status_code == 200, answer.text
    return {"authorization": f"Bearer {answer.json()['access_token']}"}


def rpc(lab: Lab, who: dict[str, str], method: str, params: dict[str, Any]) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return lab.http.post(RPC, json=body, headers={**V1, **who})


def seen(answer: httpx.Response, task_id: str) -> tuple[int, str, str]:
    """An answer as a client sees it, with the task id it names set aside: status, content type, body."""
    return answer.status_code, answer.headers.get("content-type", ""), answer.text.replace(task_id, ID)


def working_task(lab: Lab, who: dict[str, str]) -> str:
    """A task of `who` that stays SUBMITTED (tck-cancel: it never moves on by itself)."""
    answer = rpc(lab, who, "SendMessage", {"message": message("tck-cancel please")})
    task = answer.json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED", answer.text
    return str(task["id"])


@pytest.fixture
def lab_of(catalogue: Catalogue) -> Iterator[Callable[[bool], Lab]]:
    """spec/acts-sut-auth served, with `auth.tasks_per_user` as asked (the catalogue's file turns it on)."""
    started: list[Lab] = []

    def _lab(per_user: bool) -> Lab:
        scenario: Scenario = catalogue.get(SCENARIO)
        assert scenario.auth is not None and scenario.auth.tasks_per_user, "the catalogue's file keeps tasks apart"
        started.append(Lab(replace(scenario, auth=replace(scenario.auth, tasks_per_user=per_user))))
        return started[-1]

    yield _lab
    for lab in started:
        lab.close()


#: JSON-RPC: each task operation with the task id it names, as (method, params of that id).
RPC_CALLS: list[tuple[str, Callable[[str], dict[str, Any]]]] = [
    ("GetTask", lambda t: {"id": t}),
    ("CancelTask", lambda t: {"id": t}),
    ("SubscribeToTask", lambda t: {"id": t}),
    ("CreateTaskPushNotificationConfig", lambda t: {"taskId": t, "url": "http://127.0.0.1:9/a"}),
    ("GetTaskPushNotificationConfig", lambda t: {"taskId": t, "id": "config-b"}),
    ("ListTaskPushNotificationConfigs", lambda t: {"taskId": t}),
    ("DeleteTaskPushNotificationConfig", lambda t: {"taskId": t, "id": "config-b"}),
    ("SendMessage", lambda t: {"message": message("more", "m-2", taskId=t)}),
    ("SendStreamingMessage", lambda t: {"message": message("more", "m-3", taskId=t)}),
]


def test_another_users_task_is_a_task_that_does_not_exist_over_jsonrpc(lab_of: Callable[[bool], Lab]) -> None:
    lab = lab_of(True)
    user_b = token_of_b(lab)
    hook = Receiver()
    try:
        theirs = working_task(lab, user_b)
        config = {"taskId": theirs, "id": "config-b", "url": hook.url("b")}
        assert rpc(lab, user_b, "CreateTaskPushNotificationConfig", config).json()["result"]["id"] == "config-b"
        for method, params in RPC_CALLS:
            other = rpc(lab, USER_A, method, params(theirs))
            missing = rpc(lab, USER_A, method, params(MISSING))
            assert seen(other, theirs) == seen(missing, MISSING), method
            assert "-32001" in other.text and "TASK_NOT_FOUND" in other.text, (method, other.text)
        listed = rpc(lab, USER_A, "ListTasks", {}).json()["result"]
        assert listed["tasks"] == [] and listed["totalSize"] == 0, "user A's list holds none of user B's tasks"
        # user B still has the task, untouched by user A's cancel and follow-ups; and lists it
        got = rpc(lab, user_b, "GetTask", {"id": theirs}).json()["result"]
        assert got["status"]["state"] == "TASK_STATE_SUBMITTED" and len(got["history"]) == 1
        assert [t["id"] for t in rpc(lab, user_b, "ListTasks", {}).json()["result"]["tasks"]] == [theirs]
        configs = rpc(lab, user_b, "ListTaskPushNotificationConfigs", {"taskId": theirs}).json()["result"]["configs"]
        assert [c["id"] for c in configs] == ["config-b"], "user A's delete did not reach user B's config"
        canceled = rpc(lab, user_b, "CancelTask", {"id": theirs}).json()["result"]
        assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
    finally:
        hook.server.stop()


def test_another_users_task_is_a_task_that_does_not_exist_over_http_json(lab_of: Callable[[bool], Lab]) -> None:
    lab = lab_of(True)
    user_b = token_of_b(lab)
    theirs = working_task(lab, user_b)
    calls: list[tuple[str, Callable[[str], str], dict[str, Any] | None]] = [
        ("GET", lambda t: f"/tasks/{t}", None),
        ("POST", lambda t: f"/tasks/{t}:cancel", {}),
        ("POST", lambda t: f"/tasks/{t}:subscribe", {}),
        ("GET", lambda t: f"/tasks/{t}/pushNotificationConfigs", None),
        ("POST", lambda t: f"/tasks/{t}/pushNotificationConfigs", {"url": "http://127.0.0.1:9/a"}),
        ("GET", lambda t: f"/tasks/{t}/pushNotificationConfigs/c", None),
        ("DELETE", lambda t: f"/tasks/{t}/pushNotificationConfigs/c", None),
    ]
    for verb, path, body in calls:

        def ask(task_id: str, verb: str = verb, path: Callable[[str], str] = path, body: Any = body) -> httpx.Response:
            return lab.http.request(verb, REST + path(task_id), json=body, headers={**V1, **USER_A})

        other, missing = ask(theirs), ask(MISSING)
        assert seen(other, theirs) == seen(missing, MISSING), (verb, path(ID))
        assert other.status_code == 404 and "TASK_NOT_FOUND" in other.text, (verb, path(ID), other.text)
    follow_up = {"message": message("more", "m-2", taskId=theirs)}
    unknown = {"message": message("more", "m-2", taskId=MISSING)}
    sent = lab.http.post(f"{REST}/message:send", json=follow_up, headers={**V1, **USER_A})
    assert seen(sent, theirs) == seen(
        lab.http.post(f"{REST}/message:send", json=unknown, headers={**V1, **USER_A}), MISSING
    )
    assert lab.http.get(f"{REST}/tasks", headers={**V1, **USER_A}).json()["tasks"] == []
    mine = lab.http.get(f"{REST}/tasks/{theirs}", headers={**V1, **user_b})
    assert mine.status_code == 200 and mine.json()["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert [t["id"] for t in lab.http.get(f"{REST}/tasks", headers={**V1, **user_b}).json()["tasks"]] == [theirs]


def test_another_users_task_is_a_task_that_does_not_exist_over_grpc(lab_of: Callable[[bool], Lab]) -> None:
    grpc = pytest.importorskip("grpc", reason="the grpc extra (grpcio) is not installed")
    from a2a_lab.protocol import grpcwire, protobuf

    lab = lab_of(True)
    user_b = token_of_b(lab)
    card = lab.http.get("/.well-known/agent-card.json").json()
    [address] = [grpcwire.address_of(i["url"]) for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC"]
    assert address is not None
    channel = grpc.insecure_channel(address)
    try:

        def unary(op: Operation, value: dict[str, Any], who: dict[str, str]) -> Any:
            metadata = [(grpcwire.VERSION_METADATA, "1.0"), *who.items()]
            call = channel.unary_unary(grpcwire.method_path(op))
            return protobuf.decode_response(op, call(protobuf.encode_request(op, value), metadata=metadata, timeout=10))

        def refusal(op: Operation, value: dict[str, Any], task_id: str) -> tuple[Any, str, str]:
            with pytest.raises(grpc.RpcError) as caught:
                unary(op, value, USER_A)
            trailer = dict(caught.value.trailing_metadata() or ()).get(grpcwire.STATUS_DETAILS_KEY)
            details = json.dumps(protobuf.status_json(trailer), sort_keys=True) if trailer is not None else ""
            return caught.value.code(), str(caught.value.details()).replace(task_id, ID), details.replace(task_id, ID)

        theirs = unary(Operation.SEND_MESSAGE, {"message": message("tck-cancel please")}, user_b)["task"]["id"]
        for op in (Operation.GET_TASK, Operation.CANCEL_TASK):
            other = refusal(op, {"id": theirs}, theirs)
            assert other == refusal(op, {"id": MISSING}, MISSING), op
            assert other[0] is grpc.StatusCode.NOT_FOUND and "TASK_NOT_FOUND" in other[2], other
        assert unary(Operation.LIST_TASKS, {}, USER_A).get("tasks", []) == []
        assert unary(Operation.GET_TASK, {"id": theirs}, user_b)["status"]["state"] == "TASK_STATE_SUBMITTED"
    finally:
        channel.close()


def test_off_every_caller_sees_every_task(lab_of: Callable[[bool], Lab]) -> None:
    """Without the option (every other scenario), user A reads, lists and cancels user B's task, as before."""
    lab = lab_of(False)
    theirs = working_task(lab, token_of_b(lab))
    assert rpc(lab, USER_A, "GetTask", {"id": theirs}).json()["result"]["id"] == theirs
    assert [t["id"] for t in rpc(lab, USER_A, "ListTasks", {}).json()["result"]["tasks"]] == [theirs]
    assert lab.http.get(f"{REST}/tasks/{theirs}", headers={**V1, **USER_A}).status_code == 200
    canceled = rpc(lab, USER_A, "CancelTask", {"id": theirs}).json()["result"]
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"


def test_a_user_is_the_client_not_the_token(lab_of: Callable[[bool], Lab]) -> None:
    """User B's second access token (issued to the same OAuth client) reaches the task its first one created."""
    lab = lab_of(True)
    first, second = token_of_b(lab), token_of_b(lab)
    assert first != second
    theirs = working_task(lab, first)
    assert rpc(lab, second, "GetTask", {"id": theirs}).json()["result"]["id"] == theirs
    assert "error" in rpc(lab, USER_A, "GetTask", {"id": theirs}).json()


def test_the_identity_is_the_credential_that_met_a_requirement() -> None:
    """Verdict.identity names the credentials of the requirement met (card order), whatever the scheme is called; a
    requirement of no scheme (anonymous access) names no one, and a refused call has no identity."""
    card = {
        "securitySchemes": {
            "key": {"apiKeySecurityScheme": {"location": "header", "name": "x-key"}},
            "basic": {"httpAuthSecurityScheme": {"scheme": "Basic"}},
            "oauth": {
                "oauth2SecurityScheme": {
                    "flows": {"clientCredentials": {"tokenUrl": "http://x/oauth/token", "scopes": {"w": "write"}}}
                }
            },
        },
        "securityRequirements": [
            {"schemes": {"key": {"list": []}, "oauth": {"list": ["w"]}}},
            {"schemes": {"basic": {}}},
            {"schemes": {}},
        ],
    }
    creds = {"apiKey": "k-1", "username": "ann", "password": "pw-1", "client_id": "c-1", "client_secret": "s-1"}
    policy = Policy(Auth(None, credentials=creds), security_of(card), TokenStore(1, "t"))
    token = policy.tokens.issue("c-1", ("w",))
    both = policy.judge(Request({"x-key": "k-1", "authorization": f"Bearer {token.value}"}))
    assert both.satisfied and both.identity == "api key + client c-1"
    basic = "Basic " + base64.b64encode(b"ann:pw-1").decode()
    assert policy.judge(Request({"authorization": basic})).identity == "user ann"
    assert policy.judge(Request({})).satisfied and policy.judge(Request({})).identity is None, "anonymous"
    assert policy.judge(Request({"authorization": "Bearer nope"})).identity is None


PER_USER_DRAFT = """\
spec_revision: "1.1"
task: {steps: [SUBMITTED, WORKING, COMPLETED], returns: first, advance: never}
auth: {bearer: a-token, tasks_per_user: true}
"""


def test_a_long_poll_on_another_users_task_is_not_held(tmp_path: Path) -> None:
    """spec revision 1.1: a GetTask with `currentGeneration` is held until the task moves, but one on another user's
    task answers at once, as one on an unknown id does (holding it would tell the task exists)."""
    scenario = load_file(write_scenario(tmp_path, scenario_text(PER_USER_DRAFT)), "test/per-user-draft")
    state = LabState.build(scenario)
    rec = state.engine.create(message("hi"), scenario.task, caller=Caller("client b"))
    params = {"id": rec.id, "currentGeneration": str(rec.generation)}

    async def first_step_done(caller: Caller) -> bool:
        held = asyncio.create_task(generations.hold(state, Operation.GET_TASK, params, bound=60, caller=caller))
        await asyncio.sleep(0)  # the hold runs up to its first wait, if it waits at all
        done = held.done()
        held.cancel()
        return done

    assert asyncio.run(first_step_done(Caller("bearer token"))), "another user's task: answered at once"
    assert not asyncio.run(first_step_done(Caller("client b"))), "the owner's long poll is held"


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_a_wrong_value_is_refused_with_where_and_how(tmp_path: Path, value: Any) -> None:
    body = f"auth:\n  bearer: t\n  tasks_per_user: {json.dumps(value)}\n"
    path = write_scenario(tmp_path, scenario_text(body))
    with pytest.raises(ScenarioError) as caught:
        load_file(path)
    text = str(caught.value)
    assert "auth.tasks_per_user: expected true or false" in text and repr(value) in text, text
    assert str(path) in text and "line " in text, "where: the file and the line"
    assert "hint: true keeps each user's tasks apart" in text, "how to fix it"
