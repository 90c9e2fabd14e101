"""One client, one verdict, on evidence: no PASS for what did not happen.

Each rule is proven with a small client of the tests' own (tests/harness/clients/fake_client.py, one defect each)
that behaves as the field's clients did: it crashes on a strict card model right after the fetch; it speaks 0.3
method names to 1.0 interfaces; it takes an invalid answer and prints it; it refuses interfaces on another origin as a
local policy; and against a client that does its job."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.journal_record import entries_from_json
from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging import scoring
from a2a_lab.harness.client_judging.checks.errors import ADVISED_WAIT_S
from a2a_lab.harness.client_judging.crashes import crash_of, ends, quoted_ends
from a2a_lab.harness.client_judging.journal_view import RunView
from a2a_lab.harness.client_judging.runner import RunOptions, run_all, time_limit
from a2a_lab.harness.common.model import CheckResult, ClientRun, Level, Outcome, ScenarioResult
from a2a_lab.harness.common.outcome import scenario_outcome
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version

from .conftest import fake_command

RunClient = Callable[..., list[ScenarioResult]]
CRASH = ("--defect", "crash-after-card")


@pytest.fixture(scope="module")
def crashed_everywhere(catalogue: Catalogue) -> dict[str, ScenarioResult]:
    """The whole catalogue against a client that fetches the card, then exits 1 with a traceback before any call
    (its strict card model raises on a field the spec makes optional). Its generation is unknown: it never spoke."""
    scenarios = [replace(s, timeout=min(s.timeout, 20.0)) for s in catalogue.select()]
    results, supports = run_all(scenarios, RunOptions(client=fake_command(*CRASH), jobs=2))
    assert supports == set()
    return {r.id: r for r in results}


def test_a_client_that_crashes_after_the_card_gets_no_pass_where_the_card_was_usable(
    crashed_everywhere: dict[str, ScenarioResult], catalogue: Catalogue
) -> None:
    passed = [r for r in crashed_everywhere.values() if r.outcome is Outcome.PASS]
    for r in passed:
        # Only where a correct client leaves the agent alone (no card, a broken or oversized one, a certificate it
        # must refuse), and the client said so itself: it failed before its card model ran.
        assert catalogue.get(r.id).expect.no_call_allowed, r.id
        assert r.client is not None and r.client.result is not None and r.client.result["kind"] == "error", r.id
    assert len(passed) <= 10
    # Everywhere else: FAIL where any client must have found an interface, else UNIMPLEMENTED, saying why.
    others = [r for r in crashed_everywhere.values() if r.outcome is not Outcome.PASS]
    assert {r.outcome for r in others} <= {Outcome.FAIL, Outcome.UNIMPLEMENTED}
    silent = crashed_everywhere["spec/task/submitted-needs-get-task"]
    assert silent.outcome is Outcome.UNIMPLEMENTED and silent.subject == "none"
    assert silent.error is not None and "never called the agent" in silent.error and "CardModelError" in silent.error


def test_a_crash_is_no_refusal(crashed_everywhere: dict[str, ScenarioResult]) -> None:
    """A scenario whose correct client refuses the card (a tampered signature) does not pass a client that crashed:
    why it stopped is not shown."""
    tampered = crashed_everywhere["auth/signed-card-tampered"]
    assert tampered.outcome is Outcome.UNIMPLEMENTED
    signature = tampered.check("SIGNATURE-VERIFIED")
    assert signature is not None and signature.outcome is Outcome.UNIMPLEMENTED and "crashed" in signature.message
    # The valid signature: the client did not use a card that verifies, and the message names the crash, not the
    # signature, as the cause.
    valid = crashed_everywhere["auth/signed-card"].check("SIGNATURE-VERIFIED")
    assert valid is not None and valid.outcome is Outcome.FAIL and "crashed before any call" in valid.message


def test_an_unknown_generation_is_judged_symmetrically(crashed_everywhere: dict[str, ScenarioResult]) -> None:
    """Never spoke, declared nothing: a card only one generation must read is SKIPPED for INTERFACE-SELECTION (a 1.0
    client need not read a 0.3-only card, nor a 0.3 client a 1.0-only one); a card both must read FAILs, quoting the
    crash."""
    one_only = {
        "discovery/v03-preferred-transport": "not required to read its 0.3 fields",  # 0.3 fields only
        "spec/task/submitted-needs-get-task": "0.3 client cannot read it",  # supportedInterfaces only
    }
    for sid, why in one_only.items():
        check = crashed_everywhere[sid].check("INTERFACE-SELECTION")
        assert check is not None and check.outcome is Outcome.SKIPPED and why in check.message, (sid, check)
    dual = crashed_everywhere["spec/conformant"].check("INTERFACE-SELECTION")
    assert dual is not None and dual.outcome is Outcome.FAIL
    assert "either generation" in dual.message and "CardModelError" in dual.actual and "Traceback" in dual.actual


def test_a_declared_generation_fails_the_client_that_never_called(run_client: RunClient) -> None:
    [result] = run_client("spec/task/submitted-needs-get-task", *CRASH)  # declared: JSON-RPC 1.0 and 0.3
    check = result.check("INTERFACE-SELECTION")
    assert result.outcome is Outcome.FAIL and check is not None and check.outcome is Outcome.FAIL
    assert "CardModelError" in check.actual


def test_the_run_of_a_client_that_did_nothing_fails_the_gate(run_client: RunClient) -> None:
    results = run_client(
        ["spec/task/submitted-needs-get-task", "quirks/mixed-version-direct-message"], *CRASH, supports=None
    )
    assert {r.outcome for r in results} == {Outcome.UNIMPLEMENTED}
    summary = scoring.summary(results, strict=False)
    assert summary["gate"] == "failed" and "did nothing any of the 2 scenario(s) could judge" in summary["verdict"]
    # The same client's correct twin passes both.
    good = run_client(["spec/task/submitted-needs-get-task", "quirks/mixed-version-direct-message"], supports=None)
    assert {r.outcome for r in good} == {Outcome.PASS} and scoring.summary(good, False)["gate"] == "passed"


def test_a_refusal_where_a_correct_client_may_refuse_passes_a_crash_does_not(run_client: RunClient) -> None:
    [left_alone] = run_client("discovery/v02-card", "--defect", "refuse-card", "--no-result", supports=None)
    assert left_alone.outcome is Outcome.PASS and left_alone.subject == "refused"
    [crashed] = run_client("discovery/v02-card", "--defect", "crash-after-card", supports=None)
    assert crashed.outcome is Outcome.UNIMPLEMENTED and crashed.subject == "none"
    expected = crashed.check("RESULT-EXPECTED")
    assert expected is not None and expected.outcome is Outcome.UNIMPLEMENTED and "crashed" in expected.message


# ---------------------------------------------------------------------------- the card, read by where a call went


def test_03_method_names_on_a_10_interface_fail_method_matches_interface(run_client: RunClient) -> None:
    """Before: PASS ("every method matches the version its interface declares") while the server refused each call:
    the card was read by the generation guessed from the method names, which found no interface to judge."""
    [result] = run_client("spec/task/submitted-needs-get-task", "--defect", "v03-methods-on-v1", supports=None)
    check = result.check("METHOD-MATCHES-INTERFACE")
    assert check is not None and check.outcome is Outcome.FAIL, check
    assert "message/send" in check.actual and check.evidence
    # The correct client, on the same card: its 1.0 methods match.
    [good] = run_client("spec/task/submitted-needs-get-task", supports=None)
    ok = good.check("METHOD-MATCHES-INTERFACE")
    assert ok is not None and ok.outcome is Outcome.PASS and ok.evidence


def test_the_declared_url_is_declared_whatever_the_method_names_say(run_client: RunClient) -> None:
    """Before: URL-FROM-CARD FAIL ("not declared") for a post to exactly the declared URL, trailing slash and all."""
    [result] = run_client("quirks/interface-url-trailing-slash", "--defect", "v03-methods-on-v1", supports=None)
    url = result.check("URL-FROM-CARD")
    assert url is not None and url.outcome is Outcome.PASS, url
    method = result.check("METHOD-MATCHES-INTERFACE")
    assert method is not None and method.outcome is Outcome.FAIL
    [stripped] = run_client("quirks/interface-url-trailing-slash", "--defect", "strip-trailing-slash")
    wrong = stripped.check("URL-FROM-CARD")
    assert wrong is not None and wrong.outcome is Outcome.FAIL


def test_a_check_that_judged_nothing_is_skipped(run_client: RunClient) -> None:
    """METHOD-MATCHES-INTERFACE with every call to an undeclared URL: nothing to match, SKIPPED (URL-FROM-CARD fails
    the calls)."""
    [result] = run_client("spec/task/submitted-needs-get-task", "--defect", "wrong-url")
    method = result.check("METHOD-MATCHES-INTERFACE")
    url = result.check("URL-FROM-CARD")
    assert url is not None and url.outcome is Outcome.FAIL
    assert method is not None and method.outcome is Outcome.SKIPPED, method


# ---------------------------------------------------------------------------- the client's output as evidence


def test_a_client_that_prints_the_invalid_answer_took_it(run_client: RunClient) -> None:
    took = ("--defect", "lax-response", "--defect", "no-follow-up", "--defect", "print-answer", "--no-result")
    [result] = run_client("errors/wrong-response-id", *took)
    check = result.check("INVALID-ANSWER-IGNORED")
    assert result.outcome is Outcome.FAIL and check is not None and check.outcome is Outcome.FAIL, check
    assert "a2a-lab marker 310" in check.actual and check.actual.startswith("stdout:")
    # The same client, quiet: the wire shows nothing and neither does its output.
    [quiet] = run_client(
        "errors/wrong-response-id", "--defect", "lax-response", "--defect", "no-follow-up", "--no-result"
    )
    silent = quiet.check("INVALID-ANSWER-IGNORED")
    assert silent is not None and silent.outcome is Outcome.UNIMPLEMENTED
    # A correct client that prints what it concluded (the error) names nothing of the invalid answer.
    [good] = run_client("errors/wrong-response-id", "--defect", "print-answer")
    fine = good.check("INVALID-ANSWER-IGNORED")
    assert good.outcome is Outcome.PASS and fine is not None and fine.outcome is not Outcome.FAIL


def test_a_crash_quotes_the_first_and_last_lines_of_stderr() -> None:
    """node prints the cause first; Python last. A long stderr keeps both ends (process keeps a head and a tail)."""
    stderr = (
        "TypeError: card.capabilities is undefined\n" + "noise\n" * 5000 + "    at parse (file.js:3:7)\nNode.js v20\n"
    )
    crash = crash_of(1, stderr)
    assert crash is not None and "card.capabilities is undefined" in crash and "Node.js v20" in crash
    assert ends("") == ("", "") and quoted_ends("only\n") == "'only'"


def test_the_head_of_a_long_stderr_survives(run_client: RunClient, tmp_path: Path) -> None:
    script = tmp_path / "noisy.py"
    script.write_text(
        "import sys\nsys.stderr.write('FIRST: the real cause\\n' + 'x' * 100 + '\\n' * 0)\n"
        "for _ in range(2000): sys.stderr.write('y' * 40 + '\\n')\nraise SystemExit(1)\n",
        encoding="utf-8",
    )
    [result] = run_client(
        "spec/task/submitted-needs-get-task", client=f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    )
    assert result.client is not None and result.client.stderr_tail.startswith("FIRST: the real cause")


def test_a_local_other_origin_policy_is_named_for_what_it_is(run_client: RunClient) -> None:
    [result] = run_client("discovery/interface-on-other-origin", "--defect", "refuse-other-origin")
    check = result.check("INTERFACE-SELECTION")
    assert check is not None and check.outcome is Outcome.FAIL and "local security policy" in check.message
    [good] = run_client("discovery/interface-on-other-origin")
    assert good.outcome is Outcome.PASS


# ---------------------------------------------------------------------------- GIVES-UP: the window, not --timeout


def test_a_scenario_judging_a_wait_gets_its_own_time_whatever_timeout_says(catalogue: Catalogue) -> None:
    never = catalogue.get("faults/never-answers")
    assert never.timeout > ADVISED_WAIT_S[1]
    assert time_limit(never, 2.0) == never.timeout and time_limit(never, 90.0) == 90.0 and time_limit(never, None) == 40
    other = catalogue.get("spec/conformant")
    assert time_limit(other, 2.0) == 2.0


def _rescored(result: ScenarioResult, scenario: Scenario, held_s: float, timed_out: bool) -> str:
    """GIVES-UP on the same journal, with the server's measure of how long it held the stalled request as given."""
    journal = json.loads(json.dumps(result.journal))
    [stalled] = [e for e in journal if (e.get("response") or {}).get("fault") == "stall"]
    stalled["response"]["held_ms"] = held_s * 1000
    view = RunView("", None, entries_from_json(journal), set(), expect=scenario.expect, client_timed_out=timed_out)
    [check] = [c for c in scoring.evaluate(view) if c.id == "GIVES-UP"]
    return f"{check.outcome.value}: {check.message}"


def test_the_server_measures_how_long_the_client_waited(run_client: RunClient) -> None:
    """The wait is measured where every path reads it the same: the server holds the stalled request, and journals
    how long until the client went away (the impatient client gives up after 0.5 s)."""
    [result] = run_client("faults/never-answers", "--defect", "impatient", timeout=4)
    [stalled] = [e for e in result.journal if (e.get("response") or {}).get("fault") == "stall"]
    assert 400 <= stalled["response"]["held_ms"] < 4000, stalled["response"]
    check = result.check("GIVES-UP")
    assert check is not None and check.outcome is Outcome.PASS and " s" in check.message


def test_gives_up_is_judged_by_how_long_the_client_waited(run_client: RunClient, catalogue: Catalogue) -> None:
    [result] = run_client("faults/never-answers", "--defect", "impatient", timeout=4)
    never = catalogue.get("faults/never-answers")
    assert _rescored(result, never, 12.0, False).startswith("PASS")
    late = _rescored(result, never, 45.0, False)
    assert late.startswith("NON_STRICT") and "only after 45.0 s" in late and "10-30 s" in late
    stopped = _rescored(result, never, 40.0, True)
    assert stopped.startswith("NON_STRICT") and "40.0 s" in stopped


def test_a_hang_is_the_same_verdict_at_any_timeout(run_client: RunClient) -> None:
    verdicts = set()
    for timeout in (2.0, 3.0):  # the tests' own shorter variants of the scenario (conftest: its time is the floor)
        [result] = run_client("faults/never-answers", "--defect", "no-timeout", timeout=timeout)
        check = result.check("GIVES-UP")
        assert check is not None
        verdicts.add((result.outcome, check.outcome))
    assert verdicts == {(Outcome.NON_STRICT, Outcome.NON_STRICT)}


def test_the_client_record_round_trips_the_subject() -> None:
    result = ScenarioResult("a/b", "t", "a", Outcome.UNIMPLEMENTED, [], ClientRun([], 1, 0.1, False), 0, 0.1)
    result.subject = "none"
    assert ScenarioResult.from_json(json.loads(json.dumps(result.to_json()))).subject == "none"


def test_a_library_that_logs_a_handled_error_with_its_trace_is_not_a_crashed_client(
    run_client: RunClient, tmp_path: Path
) -> None:
    """A client library logs the error it handled with a stack trace (Python's logger.exception), refuses the card,
    and exits 0: its refusal is shown, no crash. The same client exiting 1 right after an uncaught error crashed."""
    script = tmp_path / "logs_and_refuses.py"
    script.write_text(
        "import json, logging, os, sys, urllib.request\n"
        "card_url = sys.argv[-1]\n"
        "try:\n"
        "    json.loads(urllib.request.urlopen(card_url, timeout=5).read())\n"
        "except Exception:\n"
        "    logging.getLogger('lib').exception('the agent card could not be read')\n"
        "    if os.environ.get('UNCAUGHT'):\n"
        "        raise\n"
        "    print('error: the agent card could not be read')\n",
        encoding="utf-8",
    )
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    [logged] = run_client("discovery/malformed-card-json", client=command)
    assert logged.client is not None and "Traceback (most recent call last)" in logged.client.stderr_tail
    assert logged.outcome is Outcome.PASS, [(c.id, c.outcome, c.message) for c in logged.checks]
    assert logged.subject == "refused"
    [crashed] = run_client("discovery/malformed-card-json", client=f"env UNCAUGHT=1 {command}")
    assert crashed.outcome is not Outcome.PASS and crashed.subject == "none"
    assert any("exited 1 after an uncaught error" in c.message + c.actual for c in crashed.checks), crashed.checks


LENIENT = """\
import json, os, sys, time, urllib.request
card = json.loads(urllib.request.urlopen(sys.argv[-1]).read())
url = card["supportedInterfaces"][0]["url"]
def call(method, params, n):
    body = json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json", "A2A-Version": "1.0"})
    return json.loads(urllib.request.urlopen(request).read())["result"]
message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": os.environ["A2A_LAB_MESSAGE"]}]}
task = call("SendMessage", {"message": message}, 1)["task"]
for n in range(2, 12):
    if task["status"]["state"] == "TASK_STATE_COMPLETED":
        break
    time.sleep(0.1)
    got = call("GetTask", {"id": task["id"]}, n)
    task = got.get("task", got)  # lenient: a Task wrapped as SendMessage wraps it is read all the same
state = task["status"]["state"].removeprefix("TASK_STATE_")
text = " ".join(p.get("text", "") for a in task.get("artifacts", []) for p in a["parts"])
with open(os.environ["A2A_LAB_RESULT"], "w") as f:
    json.dump({"kind": "task", "state": state, "text": text}, f)
"""


def test_an_answer_the_lab_cannot_read_is_judged_by_expect_alone(run_client: RunClient, tmp_path: Path) -> None:
    """GetTask's Task wrapped one level too deep (an edit of the generated answer): a lenient client that reads it and
    reports COMPLETED is not told it reports "an answer the server never gave"; RESULT-MATCHES says what the server
    sent, and the scenario's `expect` judges the conclusion."""
    script = tmp_path / "lenient.py"
    script.write_text(LENIENT, encoding="utf-8")
    [lenient] = run_client("wrapped-get-task", client=f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    matches, expected = lenient.check("RESULT-MATCHES"), lenient.check("RESULT-EXPECTED")
    assert matches is not None and matches.outcome is Outcome.SKIPPED, matches
    assert "is no message or task in the 1.0 JSON-RPC form" in matches.message and '"task": {"id"' in matches.message
    assert expected is not None and expected.outcome is Outcome.PASS, expected
    assert lenient.outcome is Outcome.PASS, [(c.id, c.outcome, c.message) for c in lenient.checks]


def test_a_refusal_of_a_card_for_another_generation_is_counted_apart_everywhere(run_client: RunClient) -> None:
    """A 0.3-only client that correctly refuses a 1.0-only card did right, but the scenario's subject was not judged:
    the console summary, the JSON report and JUnit say how many scenarios were judged on their subject and which
    were such refusals, so that a run of refusals does not read as a run of passes."""
    from a2a_lab.harness.reports import json_report, junit, rollup
    from a2a_lab.protocol.bindings import Binding
    from a2a_lab.protocol.versions import Version

    refs = ["discovery/custom-binding-first", "spec/conformant"]
    results = run_client(refs, "--generation", "0.3", supports=[(Binding.JSONRPC, Version.V0_3)])
    by_id = {r.id: r for r in results}
    assert by_id["discovery/custom-binding-first"].outcome is Outcome.PASS
    assert [by_id[r].subject for r in refs] == ["refused-card", "reached"]
    summary = scoring.summary(results, strict=False)
    assert summary["subjects"] == {
        "judged": 1,
        "refused_card": 1,
        "none": 0,
        "not_judged": ["discovery/custom-binding-first"],
    }
    lines = rollup.summary_lines(results, summary)
    assert (
        "judged on their subject: 1 scenario(s); correct refusals of a card for another generation or binding: 1"
        in ("\n".join(lines))
    )
    report = json_report.build(results, summary, {"client": "c"})
    assert report["summary"]["subjects"]["refused_card"] == 1
    properties = {p.get("name"): p.get("value") for p in junit.build(report).iter("property")}
    assert properties["subjects not judged"] == "discovery/custom-binding-first", properties


WRONG_BINDING = """\
import json, sys, urllib.error, urllib.request
card = json.loads(urllib.request.urlopen(sys.argv[-1]).read())
body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
    "kind": "message", "role": "user", "messageId": "m-1", "parts": [{"kind": "text", "text": "hi"}]}}}
request = urllib.request.Request(card["url"], json.dumps(body).encode(), {"Content-Type": "application/json"})
try:
    urllib.request.urlopen(request)
except urllib.error.HTTPError as exc:
    print("error:", exc.code)
"""


def test_a_request_of_one_binding_sent_to_another_bindings_interface_is_named(
    run_client: RunClient, tmp_path: Path
) -> None:
    """discovery/v03-preferred-transport: a JSON-RPC client that posts to the card's `url`, whose preferredTransport
    is HTTP+JSON, called the agent, on the wrong binding: a named FAIL at INTERFACE-SELECTION quoting both the
    interface it should have used and the one whose URL it hit (not SKIPPED as if it never called)."""
    from a2a_lab.protocol.bindings import Binding
    from a2a_lab.protocol.versions import Version

    script = tmp_path / "wrong_binding.py"
    script.write_text(WRONG_BINDING, encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    [result] = run_client(
        "discovery/v03-preferred-transport", client=command, supports=[(Binding.JSONRPC, Version.V0_3)]
    )
    check = result.check("INTERFACE-SELECTION")
    assert check is not None and check.outcome is Outcome.FAIL, check
    assert "a JSONRPC request, went to the URL of an HTTP+JSON interface" in check.message, check.message
    assert "/a2a/jsonrpc" in check.expected and "(JSONRPC): #0 HTTP+JSON 0.3" in check.actual, check


def _check(check_id: str, level: Level, outcome: Outcome) -> CheckResult:
    return CheckResult(id=check_id, level=level, outcome=outcome, message="")


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [(Outcome.UNIMPLEMENTED, Outcome.UNIMPLEMENTED), (Outcome.PASS, Outcome.PASS), (Outcome.FAIL, Outcome.FAIL)],
)
def test_a_may_check_does_not_stand_for_the_subject_a_must_check_left_unjudged(
    answer: Outcome, verdict: Outcome
) -> None:
    """quirks/v03-stream-status-before-task names [STREAMING-USED, RESULT-EXPECTED]: a client that streamed (a MAY,
    passed) and showed nothing of the answer the scenario exists for (RESULT-EXPECTED unjudged) is UNIMPLEMENTED, as
    the real 0.3 clients that fail there with "Task is already set" and write no result file are, never PASS."""
    purpose = ("STREAMING-USED", "RESULT-EXPECTED")
    checks = [_check("STREAMING-USED", Level.MAY, Outcome.PASS), _check("RESULT-EXPECTED", Level.MUST, answer)]
    assert scenario_outcome(checks, False, True, None, purpose) is verdict
    # Where the MAY check is all the scenario is for, it judges.
    assert scenario_outcome(checks[:1], False, True, None, purpose[:1]) is Outcome.PASS


def test_a_refusal_of_a_card_for_another_generation_stays_one_where_refusing_is_allowed(run_client: RunClient) -> None:
    """auth/signed-card-tampered allows leaving the agent alone (for its signature); a 0.3-only client leaves its
    1.0-only card alone because it speaks nothing the card offers, not for the signature: a correct refusal of the
    card, counted apart as such, not a scenario judged on its subject."""
    [refusal] = run_client(
        "auth/signed-card-tampered", "--generation", "0.3", supports=[(Binding.JSONRPC, Version.V0_3)]
    )
    assert refusal.outcome is Outcome.PASS and refusal.subject == "refused-card", refusal
    [judged] = run_client("auth/signed-card-tampered")
    assert judged.subject != "refused-card", judged
    # No card served at all (a 404): leaving the agent alone is the scenario's own subject, whatever the client speaks.
    [no_card] = run_client("discovery/no-card", "--generation", "0.3", supports=[(Binding.JSONRPC, Version.V0_3)])
    assert no_card.outcome is Outcome.PASS and no_card.subject == "refused", no_card
