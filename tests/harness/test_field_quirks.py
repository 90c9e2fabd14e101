"""The field's newest client-breaking quirks (issue 43 item 6), each a catalogue scenario that cites its report: the
scenario answers as its description says over real HTTP, a correct client passes it, and a defective client of the
tests' own (tests/harness/clients/fake_client.py) misses the check the scenario names, at that check's level.

Two of the reports were covered by scenarios already (a2a-js#601, litellm#30795): they are proven here all the same,
so that every report has its proof in one table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.cli import presets
from a2a_lab.harness.client_judging import runner
from a2a_lab.harness.client_judging.remote import RemoteServer
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.shared import CatalogueApp
from tests.scenarios.catalogue_runs import Miss, Run, assert_misses, assert_passes, defect, run, run_cases

TWICE = "discovery/same-binding-same-version-twice"
STREAM_ROUTE = "quirks/v03-card-url-is-stream-route"
UNVERSIONED = "discovery/card-without-protocol-version"
STATUS_ANSWER = "responses/completed-answer-in-status-message"
UNDER_PATH = "discovery/card-at-origin-interface-under-path"
UNDER_PREFIX = "discovery/card-under-path-prefix"
V03_CARD = "quirks/v03-completed-task-artifacts"
CARD_1_0_WIRE_0_3 = "errors/card-1.0-wire-0.3"

#: Each report, the scenario that holds it, and the defect that misses the scenario's named check.
FIELD_QUIRKS: dict[str, tuple[str, Miss]] = {
    "a2aproject/a2a-js#734": (
        TWICE,
        Miss(defect(TWICE, "interface-map"), "INTERFACE-SELECTION", says="#0 JSONRPC 1.0"),
    ),
    "agno-agi/agno#10387": (
        STREAM_ROUTE,
        Miss(defect(STREAM_ROUTE, "route-in-url"), "URL-FROM-CARD", says="POST /a2a/agents/assistant/v1/message:send"),
    ),
    "aegra/aegra#625": (
        UNVERSIONED,
        Miss(defect(UNVERSIONED, "no-version-as-1.0"), "METHOD-MATCHES-INTERFACE", says="SendMessage (A2A 1.0)"),
    ),
    # The spec does not say where a client finds a task's answer: the missing words are graded SHOULD (NON_STRICT).
    "strands-agents/harness-sdk#4019": (
        STATUS_ANSWER,
        Miss(defect(STATUS_ANSWER, "artifacts-only"), "RESULT-EXPECTED", Outcome.NON_STRICT, says="Oslo"),
    ),
    "agentic-community/mcp-gateway-registry#1724": (
        UNDER_PATH,
        Miss(
            defect(UNDER_PATH, "card-under-interface-url"), "URL-FROM-CARD", says="GET /a2a/.well-known/agent-card.json"
        ),
    ),
    # The card under a prefix is read where the client was told; the origin's card path gives it nothing (405).
    "api7/aisix#913": (
        UNDER_PREFIX,
        Miss(defect(UNDER_PREFIX, "card-at-origin-root"), "RESULT-EXPECTED", says="kind: 'error'"),
    ),
    "a2aproject/a2a-js#601": (
        V03_CARD,
        Miss(defect(V03_CARD, "supported-interfaces-only"), "INTERFACE-SELECTION", says="gave up"),
    ),
    "BerriAI/litellm#30795": (
        CARD_1_0_WIRE_0_3,
        Miss(defect(CARD_1_0_WIRE_0_3, "guess-other-version"), "METHOD-MATCHES-INTERFACE", says="message/send"),
    ),
}
#: More misses of the same scenarios: what else the defect costs, where the scenario names it.
MORE_MISSES = [
    Miss(defect(UNDER_PATH, "card-under-interface-url"), "RESULT-EXPECTED", says="kind: 'error'"),
    Miss(defect(UNVERSIONED, "no-version-as-1.0"), "RESULT-EXPECTED", says="kind: 'error'"),
    # The same defect guessing an endpoint once the origin's card path failed calls the agent without its card.
    Miss(
        defect(UNDER_PREFIX, "card-at-origin-root", "--defect", "guess-without-card"),
        "CARD-DISCOVERY",
        says="GET /.well-known/agent-card.json (405)",
    ),
]
#: A client that speaks only 0.3 reads the prefixed card's url as well.
V03_UNDER_PREFIX = run(UNDER_PREFIX, "--generation", "0.3", supports=((Binding.JSONRPC, Version.V0_3),))
#: A client that speaks only 0.3 finds nothing to read on a card without a top-level url: its refusal is correct.
V03_ONLY = run(TWICE, "--generation", "0.3", supports=((Binding.JSONRPC, Version.V0_3),))
#: A 0.3 client reading the card without protocolVersion: the url is its own version's.
V03_READS_UNVERSIONED = run(UNVERSIONED, "--generation", "0.3", supports=((Binding.JSONRPC, Version.V0_3),))
#: A client that streams posts message/stream to the route the card names, and gets the completed task.
STREAMS_TO_THE_ROUTE = run(STREAM_ROUTE, "--stream")
CORRECT = [
    *(run(sid) for sid, _ in FIELD_QUIRKS.values()),
    V03_ONLY,
    V03_READS_UNVERSIONED,
    STREAMS_TO_THE_ROUTE,
    V03_UNDER_PREFIX,
]
MISSES = [miss for _, miss in FIELD_QUIRKS.values()] + MORE_MISSES


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT, *(m.run for m in MISSES)])


def test_each_report_is_cited_and_its_check_named(catalogue: Catalogue) -> None:
    for source, (sid, miss) in FIELD_QUIRKS.items():
        scenario = catalogue.get(sid)
        assert scenario.observed and source in str(scenario.observed.get("where")), f"{sid}: cite {source}"
        # A scenario that names no checks is judged on every check that applies (quirks/v03-completed-task-artifacts).
        assert miss.run.scenario == sid and (not scenario.checks or miss.check in scenario.checks), sid
    for miss in MORE_MISSES:
        assert miss.check in catalogue.get(miss.run.scenario).checks, miss


@pytest.mark.parametrize("case", CORRECT, ids=str)
def test_a_correct_client_passes(case: Run, results: dict[Run, ScenarioResult]) -> None:
    assert_passes(results[case])


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_the_defect_misses_the_named_check(miss: Miss, results: dict[Run, ScenarioResult]) -> None:
    assert_misses(miss, results[miss.run])


def test_the_map_defect_called_the_agent_and_got_its_answer(results: dict[Run, ScenarioResult]) -> None:
    """The later URL answers as well: only the choice of interface is wrong, so the conclusion is not."""
    result = results[FIELD_QUIRKS["a2aproject/a2a-js#734"][1].run]
    paths = {e.get("path") for e in result.journal if e.get("operation") == "SendMessage"}
    assert paths == {"/a2a/backup"}
    expected = result.check("RESULT-EXPECTED")
    assert expected is not None and expected.outcome is Outcome.PASS


def test_the_0_3_client_leaves_the_1_0_card_alone(results: dict[Run, ScenarioResult]) -> None:
    assert not [e for e in results[V03_ONLY].journal if e.get("kind") != "card"]


def test_the_streaming_client_got_the_task_at_the_route(results: dict[Run, ScenarioResult]) -> None:
    result = results[STREAMS_TO_THE_ROUTE]
    assert result.client and result.client.result and result.client.result["kind"] == "task"
    assert [e.get("operation") for e in result.journal if e.get("operation")] == ["SendStreamingMessage"]


# ------------------------------------------------------------------------------------ served as described

V03_MESSAGE = {
    "message": {"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
}
V1_MESSAGE = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


def test_the_stream_route_refuses_message_send(serve: Callable[[str], Any]) -> None:
    served = serve(STREAM_ROUTE)
    route = "/a2a/agents/assistant/v1/message:stream"
    card = served.http.get("/.well-known/agent-card.json").json()
    assert card["url"] == served.url + route and "preferredTransport" not in card
    refused = served.rpc(route, "message/send", V03_MESSAGE, version=None)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == -32600
    streamed = served.http.post(
        route,
        json={"jsonrpc": "2.0", "id": 2, "method": "message/stream", "params": V03_MESSAGE},
        headers={"Accept": "text/event-stream"},
    )
    assert streamed.status_code == 200 and streamed.headers["content-type"].startswith("text/event-stream")
    assert '"completed"' in streamed.text
    assert (
        served.rpc("/a2a/agents/assistant/v1/message:send", "message/send", V03_MESSAGE, version=None).status_code
        == 404
    )


def test_the_unversioned_card_is_served_in_0_3(serve: Callable[[str], Any]) -> None:
    served = serve(UNVERSIONED)
    card = served.http.get("/.well-known/agent-card.json").json()
    assert "protocolVersion" not in card and "supportedInterfaces" not in card
    task = served.rpc("/a2a", "message/send", V03_MESSAGE, version=None).json()["result"]
    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    assert "error" in served.rpc("/a2a", "SendMessage", V1_MESSAGE).json()


def test_the_answer_is_only_in_the_status_message(serve: Callable[[str], Any]) -> None:
    served = serve(STATUS_ANSWER)
    task = served.rpc("/a2a", "SendMessage", V1_MESSAGE).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and not task.get("artifacts")
    assert task["status"]["message"]["parts"] == [{"text": "The capital of Norway is Oslo."}]


def test_no_card_is_served_under_the_interface_url(serve: Callable[[str], Any]) -> None:
    served = serve(UNDER_PATH)
    card = served.http.get("/.well-known/agent-card.json").json()
    assert card["url"] == served.url + "/a2a"
    assert served.http.get("/a2a/.well-known/agent-card.json").status_code == 404


def test_both_interfaces_of_the_twice_card_answer(serve: Callable[[str], Any]) -> None:
    served = serve(TWICE)
    for path in ("/a2a/primary", "/a2a/backup"):
        task = served.rpc(path, "SendMessage", V1_MESSAGE).json()["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"


def test_the_card_is_served_under_the_prefix_and_the_origin_root_answers_405(serve: Callable[[str], Any]) -> None:
    """`base_path`: the card, the endpoint and `{base_url}` under the prefix; the origin's card path answers as
    `card.origin_root` says, journaled as a card fetch; nothing else is served outside the prefix."""
    served = serve(UNDER_PREFIX)
    card = served.http.get("/agents/demo/.well-known/agent-card.json").json()
    assert card["url"] == card["supportedInterfaces"][0]["url"] == served.url + "/agents/demo/a2a"
    root = served.http.get("/.well-known/agent-card.json")
    assert (root.status_code, root.headers["allow"], root.json()) == (
        405,
        "POST",
        {"error_msg": "405 Method Not Allowed"},
    )
    task = served.rpc("/agents/demo/a2a", "SendMessage", V1_MESSAGE).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert served.rpc("/a2a", "SendMessage", V1_MESSAGE).status_code == 404  # the endpoint is not at the origin
    assert served.http.get("/agents/demo/.well-known/agent.json").status_code == 404  # no legacy path either
    assert (
        served.http.get("/agents/demonstration/.well-known/agent-card.json").status_code == 404
    )  # a prefix of segments
    seen = [(e["kind"], e["path"], e["response"]["status"]) for e in served.journal]
    assert seen[:2] == [
        ("card", "/agents/demo/.well-known/agent-card.json", 200),
        ("card", "/.well-known/agent-card.json", 405),
    ]
    facts = served.http.get("/_lab/scenario", headers=served.admin).json()
    assert facts["card_url"] == served.url + "/agents/demo/.well-known/agent-card.json"


def test_the_reference_client_is_handed_the_prefixed_card_url_locally_and_on_a_shared_server(
    catalogue: Catalogue,
) -> None:
    """The runner gives A2A_LAB_CARD_URL under the prefix, on a server of its own and in a run of a shared server
    (whose listing names the prefixed card too); the reference client reads it there and passes."""
    scenario = catalogue.get(UNDER_PREFIX)
    opts = runner.RunOptions(presets.resolve("builtin"))
    local, _ = runner.run_all([scenario], opts)
    app = CatalogueApp([scenario])
    with BackgroundServer(app) as server:
        listed = httpx.get(server.url + "/", trust_env=False).json()["scenarios"][0]["card_url"]
        assert listed == f"{server.url}/{UNDER_PREFIX}/agents/demo/.well-known/agent-card.json"
        shared, _ = runner.run_all([scenario], opts, server=RemoteServer(server.url, app.guard.token))
    for result in (*local, *shared):
        assert result.outcome is Outcome.PASS, [(c.id, c.outcome, c.message) for c in result.checks]
        card_paths = [e["path"] for e in result.journal if e["kind"] == "card"]
        assert card_paths and all(p.endswith("/agents/demo/.well-known/agent-card.json") for p in card_paths)
