"""Scenario families (scenarios/families/, issue 16 item 3): each file's `matrix:` makes one scenario per version and
binding, each serves its member's interface as its description says, a correct client passes every member, and the
defect each family exists for misses the named check on every member (the situation is judged on every interface)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue, SelectionError
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Support
from a2a_lab.protocol.versions import Version

from .catalogue_runs import BOTH_ARGS, Miss, Run, assert_misses, assert_passes, defect, run, run_cases

FAMILIES = {
    "families/direct-message": ("NO-POLL-AFTER-MESSAGE", "poll-after-message", Outcome.NON_STRICT),
    "families/submitted-needs-get-task": ("FOLLOW-UP-TO-END", "no-follow-up", Outcome.NON_STRICT),
    "families/method-not-found-with-fallback": ("FALLBACK", "no-fallback", Outcome.NON_STRICT),
}
MEMBERS = ("1.0-jsonrpc", "1.0-http-json", "0.3-jsonrpc", "0.3-http-json")
#: The fake client speaking both bindings in both versions.
EVERY: tuple[Support, ...] = tuple((b, v) for b in (Binding.JSONRPC, Binding.HTTP_JSON) for v in Version)
IDS = [f"{family}/{member}" for family in FAMILIES for member in MEMBERS]
CORRECT = {sid: run(sid, *BOTH_ARGS, supports=EVERY) for sid in IDS}
MISSES = [
    Miss(
        defect(sid, FAMILIES[sid.rsplit("/", 1)[0]][1], *BOTH_ARGS, supports=EVERY),
        *FAMILIES[sid.rsplit("/", 1)[0]][::2],
    )
    for sid in IDS
]
#: A loop on the dead end, on each binding of the method-not-found family (1.0 and 0.3 are the same loop).
LOOPS = [
    Miss(
        defect(f"families/method-not-found-with-fallback/{member}", "retry-loop", *BOTH_ARGS, supports=EVERY),
        "NO-RETRY-LOOP",
        says="5 repeats",
    )
    for member in ("1.0-jsonrpc", "0.3-http-json")
]


@pytest.fixture(scope="module")
def outcomes(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT.values(), *(m.run for m in MISSES), *(m.run for m in LOOPS)])


def test_each_family_makes_its_four_members(catalogue: Catalogue) -> None:
    assert catalogue.families() == {family: sorted(f"{family}/{m}" for m in MEMBERS) for family in FAMILIES}
    for sid in IDS:
        scenario = catalogue.get(sid)
        family, member = sid.rsplit("/", 1)
        version, binding = member.split("-", 1)
        assert scenario.family == family and scenario.group == "families"
        assert scenario.title.endswith(f" [{version}, {'JSONRPC' if binding == 'jsonrpc' else 'HTTP+JSON'}]")
        assert FAMILIES[family][0] in scenario.checks
        first = scenario.endpoints[0]
        assert first.versions == (Version(version),) and first.binding.value.lower().replace("+", "-") == binding


def test_a_family_is_chosen_by_its_id_or_a_glob(catalogue: Catalogue) -> None:
    chosen = [s.id for s in catalogue.choose(["families/direct-message"])]
    assert chosen == sorted(f"families/direct-message/{m}" for m in MEMBERS)
    assert len(catalogue.choose(["families/*"])) == 12
    assert [s.id for s in catalogue.choose(["families/*/0.3-http-json"])] == [
        f"{family}/0.3-http-json" for family in sorted(FAMILIES)
    ]
    kept = catalogue.choose(["families/*"], exclude=["families/direct-message", "*/1.0-*"])
    assert {s.id.rsplit("/", 1)[1] for s in kept} == {"0.3-jsonrpc", "0.3-http-json"} and len(kept) == 4
    with pytest.raises(KeyError, match=r"is a family of 4 scenarios; name one: families/direct-message/0\.3-http-json"):
        catalogue.get("families/direct-message")
    with pytest.raises(SelectionError, match="no scenario matches 'families/direct-mesage'"):
        catalogue.choose(["families/direct-mesage"])


def test_the_cli_lists_a_family_and_names_its_members() -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "a2a_lab.harness.cli", *args], capture_output=True, text=True, timeout=60
        )

    listed = cli("scenarios", "--json", "--scenario", "families/submitted-needs-get-task")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["scenarios"]
    assert [(r["id"], r["family"]) for r in rows] == [
        (f"families/submitted-needs-get-task/{m}", "families/submitted-needs-get-task") for m in sorted(MEMBERS)
    ]
    shown = cli("scenarios", "show", "families/submitted-needs-get-task")
    assert shown.returncode == 2 and "is a family of 4 scenarios; name one:" in shown.stderr, shown.stderr
    member = cli("scenarios", "show", "families/submitted-needs-get-task/0.3-http-json")
    assert member.returncode == 0 and "(family families/submitted-needs-get-task" in member.stdout
    assert "HTTP+JSON 0.3       at /a2a/rest" in member.stdout, member.stdout


# ------------------------------------------------------------------------------------ served as described

V1 = {"A2A-Version": "1.0"}
V1_MESSAGE = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
V03_MESSAGE = {
    "message": {"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
}
#: 0.3 HTTP+JSON speaks the ProtoJSON of the 0.3 proto (wire reference §4.3): `content`, ROLE_USER, no `kind`.
V03_REST_MESSAGE = {"message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "hi"}]}}


def send(served: Any, member: str, path: str) -> Any:
    """SendMessage in the member's version and binding, at `path`."""
    if member == "1.0-jsonrpc":
        return served.rpc(path, "SendMessage", V1_MESSAGE)
    if member == "0.3-jsonrpc":
        return served.http.post(path, json={"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": V03_MESSAGE})
    if member == "1.0-http-json":
        return served.http.post(f"{path}/message:send", json=V1_MESSAGE, headers=V1)
    return served.http.post(f"{path}/v1/message:send", json=V03_REST_MESSAGE)


@pytest.mark.parametrize("member", MEMBERS)
def test_the_card_names_one_interface_in_the_members_form(serve: Callable[[str], Any], member: str) -> None:
    served = serve(f"families/direct-message/{member}")
    card = served.http.get("/.well-known/agent-card.json").json()
    path = "/a2a" if member.endswith("jsonrpc") else "/a2a/rest"
    binding = "JSONRPC" if member.endswith("jsonrpc") else "HTTP+JSON"
    if member.startswith("1.0"):
        assert "url" not in card and "preferredTransport" not in card
        assert card["supportedInterfaces"] == [
            {"url": served.url + path, "protocolBinding": binding, "protocolVersion": "1.0"}
        ]
    else:
        assert "supportedInterfaces" not in card
        assert (card["url"], card["preferredTransport"], card["protocolVersion"]) == (
            served.url + path,
            binding,
            "0.3.0",
        )
    answer = send(served, member, path)
    assert answer.status_code == 200, answer.text
    assert "Western European Time" in answer.text and "task" not in answer.json().get("result", answer.json())


@pytest.mark.parametrize("member", MEMBERS)
def test_the_first_interface_answers_method_not_found(serve: Callable[[str], Any], member: str) -> None:
    served = serve(f"families/method-not-found-with-fallback/{member}")
    first, other = ("/a2a", "/a2a/rest") if member.endswith("jsonrpc") else ("/a2a/rest", "/a2a")
    dead = send(served, member, first)
    if member.endswith("jsonrpc"):
        assert dead.json()["error"]["code"] == -32601
    else:
        assert dead.status_code == 404, dead.text
    version = member.split("-", 1)[0]
    works = send(served, f"{version}-{'http-json' if member.endswith('jsonrpc') else 'jsonrpc'}", other)
    assert works.status_code == 200 and "answered over" in works.text, works.text


# ------------------------------------------------------------------------------------ judged


@pytest.mark.parametrize("sid", IDS)
def test_a_correct_client_passes_every_member(sid: str, outcomes: dict[Run, ScenarioResult]) -> None:
    assert_passes(outcomes[CORRECT[sid]])
    family = sid.rsplit("/", 1)[0]
    judged = outcomes[CORRECT[sid]].check(FAMILIES[family][0])
    assert judged is not None and judged.outcome is Outcome.PASS, "the family's check is judged, not skipped"


@pytest.mark.parametrize("miss", [*MISSES, *LOOPS], ids=str)
def test_the_defect_misses_the_named_check_on_every_member(miss: Miss, outcomes: dict[Run, ScenarioResult]) -> None:
    assert_misses(miss, outcomes[miss.run])
