"""The pytest plugin, tested the way a client library would use it (pytester runs a real inner pytest session)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

GOOD_CLIENT = """
import uuid, httpx

def send(card_url, text):
    card = httpx.get(card_url, timeout=10).json()
    iface = card["supportedInterfaces"][0]
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}}}
    return httpx.post(iface["url"], json=body, headers={"A2A-Version": "1.0"}, timeout=10).json()
"""


def test_fixture_scores_a_good_and_a_bad_client(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(client=GOOD_CLIENT)
    pytester.makepyfile(
        test_client="""
import httpx, client

def test_method_not_found_is_handled(a2a_lab):
    lab = a2a_lab.serve("quirks/advertised-method-not-found")
    answer = client.send(lab.card_url, lab.message)
    assert answer["error"]["code"] == -32601
    score = lab.score()
    assert score.passed, score
    assert score.check("NO-RETRY-LOOP").outcome == "PASS"
    assert lab.journal[0]["kind"] == "card"

def test_polling_after_a_message_without_a_version_fails(a2a_lab):
    lab = a2a_lab.serve("quirks/mixed-version-direct-message")
    client.send(lab.card_url, lab.message)
    iface = httpx.get(lab.card_url).json()["supportedInterfaces"][0]["url"]
    httpx.post(iface, json={"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "x"}})
    score = lab.score()
    assert not score.passed
    assert score.check("VERSION-HEADER").outcome == "FAIL"
    assert score.check("NO-POLL-AFTER-MESSAGE").outcome == "NON_STRICT"
    assert "NO-POLL-AFTER-MESSAGE" in str(score)

def test_result_is_judged_when_given(a2a_lab):
    lab = a2a_lab.serve("spec/conformant")
    client.send(lab.card_url, "ping")
    result = {"kind": "task", "state": "TASK_STATE_COMPLETED", "text": "echo: ping"}
    assert lab.score(result=result).check("RESULT-MATCHES").outcome == "PASS"
    assert lab.score(result={"kind": "message", "text": "?"}).check("RESULT-MATCHES").outcome == "FAIL"

def test_no_contact_does_not_pass(a2a_lab):
    lab = a2a_lab.serve("spec/conformant")
    score = lab.score()
    assert score.outcome == "NO_CONTACT" and not score.passed

def test_unknown_scenario_is_a_clear_error(a2a_lab):
    try:
        a2a_lab.serve("spec/nope")
    except KeyError as exc:
        assert "unknown scenario" in str(exc)
    else:
        raise AssertionError("expected KeyError")
"""
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)


def test_a_failed_assertion_shows_each_miss_in_full(pytester: pytest.Pytester) -> None:
    """`assert score.passed, score` prints the rule, the spec section, expected / actual, the request, the fix and
    the command that tells the scenario's story, not a repr."""
    pytester.makepyfile(
        test_bad="""
import httpx

def test_no_version_header(a2a_lab):
    lab = a2a_lab.serve("spec/conformant")
    iface = httpx.get(lab.card_url).json()["supportedInterfaces"][0]["url"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
    httpx.post(iface, json=body)
    score = lab.score()
    assert score.passed, score
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "Score(" not in out and "CheckResult(" not in out
    assert "AssertionError: a2a-lab: FAIL" in out
    message = out[out.index("AssertionError: a2a-lab: FAIL") : out.index("a2a-lab score")]
    # (pytest cuts the middle of a long assertion message: its head and its end are shown)
    assert "VERSION-HEADER [MUST] FAIL: " in message and "rule: A 1.0 client sends `A" in message
    assert "more: a2a-lab scenarios show spec/conformant" in message
    section = out[out.index("a2a-lab score") :]
    assert "spec/conformant: a2a-lab: FAIL — VERSION-HEADER (FAIL)" in section
    assert "- VERSION-HEADER [MUST] FAIL in 1 scenario\n" in section
    assert "first, in spec/conformant: " in section
    assert "rule: A 1.0 client sends `A2A-Version`" in section and "fix: Send `A2A-Version: 1.0`" in section
    assert "expected: A2A-Version: 1.0" in section and "actual:   header absent" in section
    assert "request #2:" in section and "POST /" in section and '"messageId"' in section


def test_plugin_is_registered_through_the_entry_point(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_fixture_exists="""
def test_fixture(a2a_lab):
    assert "spec/conformant" in a2a_lab.scenarios()
"""
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_test_that_scores_several_scenarios_shows_each_miss_once_and_the_session_sums_up(
    pytester: pytest.Pytester,
) -> None:
    """The console's layout: a line per scenario scored, each missed check once (its rule once) with the
    scenarios it missed in and the first one's evidence; at the end, the session's scores summed up."""
    pytester.makepyfile(
        test_two="""
import httpx

def send_without_version(lab):
    iface = httpx.get(lab.card_url).json()["supportedInterfaces"][0]["url"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
    httpx.post(iface, json=body)

def test_two_scenarios(a2a_lab):
    scores = []
    for sid in ("spec/conformant", "quirks/mixed-version-direct-message"):
        lab = a2a_lab.serve(sid)
        send_without_version(lab)
        scores.append(lab.score())
    assert all(s.passed for s in scores)
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    section = out[out.index("a2a-lab score") : out.index("= a2a-lab =")]
    assert "spec/conformant: a2a-lab: FAIL — VERSION-HEADER (FAIL)" in section
    assert "quirks/mixed-version-direct-message: a2a-lab: FAIL — " in section
    assert "- VERSION-HEADER [MUST] FAIL in 2 scenarios\n" in section
    assert section.count("rule: A 1.0 client sends `A2A-Version`") == 1, section
    assert "    scenarios: spec/conformant, quirks/mixed-version-direct-message" in section
    assert "expected: A2A-Version: 1.0" in section and "request #2:" in section
    summary = out[out.index("= a2a-lab =") :]
    assert "2 scored scenarios: FAIL 2" in summary and "checks passed: MUST " in summary
    assert "  quirks  FAIL 1" in summary and "  spec    FAIL 1" in summary
    assert (
        "- VERSION-HEADER [MUST] FAIL in 2 scored scenarios: test_two_scenarios[spec/conformant], "
        "test_two_scenarios[quirks/mixed-version-direct-message]" in summary.replace("\n    ", " ")
    ), summary


def test_the_fixture_gives_the_card_url_under_a_scenarios_base_path(pytester: pytest.Pytester) -> None:
    """A scenario served under `base_path` (discovery/card-under-path-prefix): the fixture's card_url and base_url
    are under the prefix, so a client handed them reads the card there and is judged as the runner judges it."""
    pytester.makepyfile(client=GOOD_CLIENT)
    pytester.makepyfile(
        test_client="""
import client

def test_prefixed(a2a_lab):
    lab = a2a_lab.serve("discovery/card-under-path-prefix")
    assert lab.base_url.endswith("/agents/demo")
    assert lab.card_url == lab.base_url + "/.well-known/agent-card.json"
    client.send(lab.card_url, lab.message)
    score = lab.score(result={"kind": "task", "state": "TASK_STATE_COMPLETED", "text": "forecast: rain"})
    assert score.passed, score
    assert [e["path"] for e in lab.journal][:1] == ["/agents/demo/.well-known/agent-card.json"]
"""
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
