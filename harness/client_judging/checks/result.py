"""The client's own account (the optional A2A_LAB_RESULT file) against what the server really sent."""

from __future__ import annotations

import json
from typing import Any

from a2a_lab.contract.journal_record import ResultKind
from a2a_lab.contract.scenario import Conclusion
from a2a_lab.harness.client_judging.checks.base import REGISTRY, Check, check, shown
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.protocol import states


def _norm(text: str) -> str:
    return " ".join(str(text).split())


@check(
    "RESULT-MATCHES",
    Level.MUST,
    "a2a-lab client handshake (docs/reference/handshake.md); A2A 1.0 §3.1.1, §4.1, §3.3.2 and §10.6 (which error)",
    "The client understood the answer",
    "When the client writes A2A_LAB_RESULT, its kind (message, task or error), final state and text agree with what "
    "the server actually sent, and so does an error's A2A code when it gives one (`error.code`). Not writing it is "
    "allowed (UNIMPLEMENTED).",
    rule=(
        "A client's A2A_LAB_RESULT reports the kind, final state, text and error code that the server actually sent."
    ),
    fix=(
        "Write A2A_LAB_RESULT from the last answer you received (message, task or error), with the task's"
        " state and text as sent, not a state you assumed."
    ),
)
def result_matches(view: RunView, c: Check) -> CheckResult:
    result = view.client_result
    if result is None:
        if view.client_result_error:
            return c.broken(
                "the client wrote an A2A_LAB_RESULT the harness cannot read",
                'a JSON object {"kind", "state", "text"}',
                view.client_result_error,
            )
        return c.result(Outcome.UNIMPLEMENTED, "the client wrote no A2A_LAB_RESULT")
    final = view.final_answer()
    kind = result.get("kind")
    if not view.a2a_calls:
        return c.skipped("the client made no A2A call, so there is no answer to compare")
    misread = _another_error(view, c, result) if kind == ResultKind.ERROR else None
    if misread is not None:
        return misread
    unreadable = view.unreadable_answer()
    if unreadable is not None and kind != ResultKind.ERROR:
        # Judged on what the server sent: an answer the lab cannot read is said to be so, and only `expect` judges.
        return c.skipped(
            f"the server's last answer ({unreadable.label()}) is no message or task in the "
            f"{unreadable.form.label if unreadable.form else 'declared'} form that the lab can read "
            f"({_sent(unreadable)}): only the scenario's `expect` judges what the client made of it (RESULT-EXPECTED)"
        )
    if final is None:
        if kind == ResultKind.ERROR:
            return c.passed(_reported_error(view))
        return c.broken(
            "the client reports an answer the server never gave",
            "kind: error (the server sent no message or task)",
            f"kind: {shown(kind)}",
        )
    failed = view.ended_in_error()
    if kind == ResultKind.ERROR and failed is not None:
        what = f"error {failed.error_code}" if failed.error_code is not None else "an answer that is no message or task"
        return c.passed(f"the client reported the error that ended the exchange ({what} to {failed.label()})")
    if kind != final.kind:
        return c.broken("the client misread the kind of answer", f"kind: {final.kind.value}", f"kind: {shown(kind)}")
    unreported = final.kind is ResultKind.TASK and final.state is not None and "state" not in result
    if final.kind is ResultKind.TASK and final.state is not None and not unreported:
        reported = states.parse(result.get("state"))
        if reported is not final.state:
            return c.broken(
                "the client reports another task state than the server's last",
                final.state.short,
                _state_said(result),
            )
    text = _norm(result.get("text") or "")
    sent = _norm(" ".join(o.text for o in view.observations()))
    final_text = _norm(final.text)
    # An empty final text is "in" every string: only a non-empty one may excuse extra words around it.
    if text and text not in sent and not (final_text and final_text in text):
        return c.broken("the client's text is not what the server sent", final.text[:200] or "(no text)", text[:200])
    if unreported:
        # Many client libraries never tell their caller a task's state: judged on what the result gives.
        return c.passed(f"the client understood a {final.kind.value} (its state is not reported, so not judged)")
    return c.passed(f"the client understood a {final.kind.value}" + (f" in {final.state.short}" if final.state else ""))


def _state_said(result: dict[str, object]) -> str:
    """The state a result reports, as a finding quotes it: `null` where it says it knows none (a result that leaves
    the member out reports nothing, and is not judged on it)."""
    return "null (the client reports no state)" if result.get("state") is None else shown(result.get("state"))


def _sent(call: Call) -> str:
    """What the server sent a call, as a finding quotes it: the start of its first body."""
    bodies = call.responses()
    text = json.dumps(bodies[0], ensure_ascii=False) if bodies else ""
    return f"it sent {text[:120] + ('...' if len(text) > 120 else '')}" if text else "it sent no body"


def _reported_error(view: RunView) -> str:
    """Why an error report is right where the server sent no message or task, in the words of what it did send."""
    failed = view.ended_in_error()
    if failed is None:
        return "the client reported an error, and the server sent it no message or task"
    if failed.error_code is not None:
        return f"the client reported the error the server gave (error {failed.error_code} to {failed.label()})"
    return (
        "the client reported an error, and the server gave no error: its answer to "
        f"{failed.label()} was no message or task the client could take ({_sent(failed)})"
    )


def _another_error(view: RunView, c: Check, result: dict[str, object]) -> CheckResult | None:
    """A reported error whose A2A code (the optional `error.code`) is not the one that ended the exchange: the
    client misread which error it got (over gRPC: the status alone, without the ErrorInfo that names it, §10.6)."""
    error = result.get("error")
    said = error.get("code") if isinstance(error, dict) else None
    failed = view.ended_in_error()
    if not isinstance(said, int) or isinstance(said, bool) or failed is None or failed.error_code is None:
        return None
    if said == failed.error_code:
        return None
    return c.broken(
        "the client reports another error than the one the server sent",
        f"error {failed.error_code}",
        f"error {said}",
        [failed],
    )


def _declined_actions(view: RunView) -> list[str]:
    """The action checks that found the client did not act on what the scenario asked."""
    from a2a_lab.harness.client_judging.checks.actions import (
        ACTION_CHECKS,  # the action checks, registered in the same catalogue
    )

    out = []
    for check_id in ACTION_CHECKS:
        check = REGISTRY[check_id]
        if check.evaluate(view, check).outcome is Outcome.UNIMPLEMENTED:
            out.append(check_id)
    return out


@check(
    "RESULT-EXPECTED",
    Level.MUST,
    "the scenario's `expect` (each scenario cites its spec section)",
    "The client reached the right conclusion",
    "Where a scenario says what a correct client concludes (an error for a garbage answer, no call at all for an "
    "unusable card, "
    "a given state or text; or a choice of these where the spec leaves one), the client's A2A_LAB_RESULT says so. "
    "UNIMPLEMENTED when the client writes no result.",
    "the lab's own contract: a wrong kind or state (the client misunderstood the answer) FAILs; a missing or partial "
    "text with the right kind and state is NON_STRICT",
    rule=(
        "A client reaches the conclusion a correct client reaches in the scenario (an error, no call, a "
        "given state or text) and says so in A2A_LAB_RESULT."
    ),
    fix=(
        "Make A2A_LAB_RESULT say what a correct client concludes here (`a2a-lab scenarios show` says what and "
        "why); where this miss follows from another, fix that one first."
    ),
)
def result_expected(view: RunView, c: Check) -> CheckResult:
    expect = view.expect
    if not expect.stated:
        return c.skipped("the scenario states no expected conclusion")
    answers = [r for r in expect.results if r != "none"]
    settled = _settled_by_calls(view, c, answers)
    if settled is not None:
        return settled
    result = view.client_result
    if result is None:
        if view.client_result_error:
            return c.broken("the client's result file is unreadable", "a JSON object", view.client_result_error)
        return c.result(Outcome.UNIMPLEMENTED, "the client wrote no A2A_LAB_RESULT")
    return _conclusion(view, c, result, answers)


def _settled_by_calls(view: RunView, c: Check, answers: list[Conclusion]) -> CheckResult | None:
    """The verdict where what the client did settles it before its result is read (an ask it did not act on, no call
    where none or a crash explains it, a call where none was expected, no call where none could be made); None
    to read the result. `answers`: the results the scenario accepts other than `none` (no call)."""
    expect = view.expect
    declined = _declined_actions(view) if view.action else []
    if declined:
        # Issue contract: not acting on an ask is UNIMPLEMENTED, never FAIL; the conclusion depends on the ask.
        return c.result(
            Outcome.UNIMPLEMENTED,
            f"the client did not act on what the scenario asked ({', '.join(declined)}), "
            "so its conclusion is not judged",
        )
    accepted = expect.results
    # Any request to the agent counts, even one to a guessed URL that nothing serves.
    if expect.no_call_allowed and not view.calls and view.client_result is None and view.crash() is not None:
        return c.result(
            Outcome.UNIMPLEMENTED,
            "the client made no call, but it crashed: that it left the agent alone for the scenario's reason is not "
            f"shown ({view.crash()}; write A2A_LAB_RESULT kind error to say why)",
        )
    if expect.no_call_allowed and not view.calls:
        return c.passed(
            "the client made no A2A call, as a correct client does here"
            if not answers
            else f"the client left the agent alone (acceptable here; so is a {' or '.join(answers)})"
        )
    if accepted and not answers and _lenient_only(view):
        return c.skipped(
            "the scenario expects no call because of the version its card declares, but every call went to an "
            "interface this client may read leniently (see METHOD-MATCHES-INTERFACE): no MUST says to refuse it"
        )
    if accepted and not answers:
        return c.broken(
            "the client called an agent it should not have used",
            "no A2A call",
            f"{len(view.calls)} call(s)",
            view.calls[:1],
        )
    if answers and not view.calls and view.expected_interface() is None:
        # The expected conclusion needs a call; a client that speaks none of the card's interfaces cannot make it.
        return c.skipped("the client made no call, and the card declares no interface it is known to speak")
    return None


def _conclusion(view: RunView, c: Check, result: dict[str, Any], answers: list[Conclusion]) -> CheckResult:
    """The client's result against the conclusion expected: its kind, then its state (a result that leaves the state
    out is not judged on it), then its text."""
    expect = view.expect
    kind = result.get("kind")
    if answers and kind not in answers:
        wanted = " or ".join(
            ["no A2A call", *[f"kind: {a}" for a in answers]]
            if expect.no_call_allowed
            else [f"kind: {a}" for a in answers]
        )
        return c.broken(
            f"the client concluded {kind!r}" if kind is not None else "the client's result names no kind",
            wanted,
            f"kind: {shown(kind)}",
        )
    if expect.states and (kind == ResultKind.TASK or not answers) and "state" not in result:
        # A result that leaves the state out is judged on what it gives: the state is not reported, not wrong.
        wanted = " or ".join(s.short for s in expect.states)
        return c.result(
            Outcome.UNIMPLEMENTED,
            f"the client's result does not report the task's state, so its conclusion ({wanted}) is not judged; "
            'write "state" in A2A_LAB_RESULT to have it judged',
        )
    if (
        expect.states
        and (kind == ResultKind.TASK or not answers)
        and states.parse(result.get("state")) not in expect.states
    ):
        # A choice of states (a race) passes here on any of them; RESULT-MATCHES holds the client to the one it got.
        wanted = " or ".join(s.short for s in expect.states)
        return c.broken("the client reports another state", wanted, _state_said(result))
    wrong_text = _text_missed(view, c, result)
    if wrong_text is not None:
        return wrong_text
    return c.passed(
        "the client reached the expected conclusion"
        + (f" ({kind})" if len(answers) > 1 or expect.no_call_allowed else "")
    )


def _text_missed(view: RunView, c: Check, result: dict[str, Any]) -> CheckResult | None:
    """Where the kind and state are right but the text is not what the scenario expects (`text_contains`, `text`):
    broken at SHOULD level; None when the text is right."""
    expect = view.expect
    if expect.text_contains is not None and expect.text_contains not in str(result.get("text") or ""):
        # The kind and state are right: the client understood the answer and left out (some of) its words. The lab's
        # contract grades that no stronger than the misunderstanding it shows.
        return c.broken(
            "the client's text misses what the server said (its kind and state are right)",
            f"text containing {expect.text_contains!r}",
            repr(str(result.get("text") or "")[:200]),
            level=Level.SHOULD,
        )
    if expect.text is not None and " ".join(str(result.get("text") or "").split()) != " ".join(expect.text.split()):
        return c.broken(
            "the client's text is not exactly what the server said (its kind and state are right)",
            f"text {expect.text!r}",
            repr(str(result.get("text") or "")[:200]),
            level=Level.SHOULD,
        )
    return None


def _lenient_only(view: RunView) -> bool:
    """Every call went to an interface that accepts its version only by the lenient reading (`Interface.accepted`):
    a card without the REQUIRED protocolVersion, or a 0.2.x card read by a 0.3 client."""
    return bool(view.a2a_calls) and all(
        any(i.accepts(call.version) and i.known_version is not call.version for i in view.declared(call))
        for call in view.a2a_calls
    )


@check(
    "CLIENT-INFO",
    Level.INFO,
    "A2A 1.0 §7 (informative)",
    "What the client is",
    "Recorded, never judged: the client's User-Agent, exit code and the interfaces it used.",
    rule=("Nothing is asked of a client here: its User-Agent, exit code and the interfaces it used are recorded."),
    fix="Nothing to fix: this check records, never judges.",
)
def client_info(view: RunView, c: Check) -> CheckResult:
    agents = sorted(
        {call.headers.get("user-agent", "(none)") for call in view.calls}
        | {e.headers.get("user-agent", "(none)") for e in view.card_fetches}
    )
    used = sorted(
        {f"{call.binding.value} {call.version.value}" for call in view.a2a_calls if call.binding and call.version}
    )
    return c.result(
        Outcome.INFORMATIONAL,
        f"user-agent {', '.join(agents) or '(no request)'}; exit code {view.client_exit}; "
        f"used {', '.join(used) or 'no interface'}",
    )
