"""The client's own account (the optional A2A_LAB_RESULT file) against what the server really sent."""

from __future__ import annotations

from a2a_lab.protocol import states

from ..journal_view import RunView
from ..model import CheckResult, Level, Outcome
from .base import Check, check


def _norm(text: str) -> str:
    return " ".join(str(text).split())


@check("RESULT-MATCHES", Level.MUST, "a2a-lab client handshake (README); A2A 1.0 §3.1.1, §4.1", "The client understood the answer",
       "When the client writes A2A_LAB_RESULT, its kind (message, task or error), final state and text agree with what the "
       "server actually sent. Not writing it is allowed (UNIMPLEMENTED).")
def result_matches(view: RunView, c: Check) -> CheckResult:
    result = view.client_result
    if result is None:
        if view.client_result_error:
            return c.broken("the client wrote an A2A_LAB_RESULT the harness cannot read", 'a JSON object {"kind", "state", "text"}', view.client_result_error)
        return c.result(Outcome.UNIMPLEMENTED, "the client wrote no A2A_LAB_RESULT")
    final = view.final_answer()
    kind = result.get("kind")
    if not view.a2a_calls:
        return c.skipped("the client made no A2A call, so there is no answer to compare")
    if final is None:
        if kind == "error":
            return c.passed("the client reported the error the server gave")
        return c.broken("the client reports an answer the server never gave", "kind: error (the server sent no message or task)", f"kind: {kind!r}")
    if kind != final.kind:
        return c.broken("the client misread the kind of answer", f"kind: {final.kind}", f"kind: {kind!r}")
    if final.kind == "task" and final.state is not None:
        reported = states.parse(result.get("state"))
        if reported is not final.state:
            return c.broken("the client reports another task state than the server's last", final.state.short, repr(result.get("state")))
    text = _norm(result.get("text") or "")
    sent = _norm(" ".join(o.text for o in view.observations()))
    final_text = _norm(final.text)
    # An empty final text is "in" every string: only a non-empty one may excuse extra words around it.
    if text and text not in sent and not (final_text and final_text in text):
        return c.broken("the client's text is not what the server sent", final.text[:200] or "(no text)", text[:200])
    return c.passed(f"the client understood a {final.kind}" + (f" in {final.state.short}" if final.state else ""))


@check("RESULT-EXPECTED", Level.MUST, "the scenario's `expect` (each scenario cites its spec section)", "The client reached the right conclusion",
       "Where a scenario says what a correct client concludes (an error for a garbage answer, no call at all for an unusable card, "
       "a given state or text), the client's A2A_LAB_RESULT says so. UNIMPLEMENTED when the client writes no result.")
def result_expected(view: RunView, c: Check) -> CheckResult:
    expect = view.expect
    if expect.result is None and expect.state is None and expect.text_contains is None:
        return c.skipped("the scenario states no expected conclusion")
    if expect.result == "none":
        if view.a2a_calls:
            return c.broken("the client called an agent it should not have used", "no A2A call", f"{len(view.a2a_calls)} call(s)", view.a2a_calls[:1])
        return c.passed("the client made no A2A call, as a correct client does here")
    result = view.client_result
    if result is None:
        if view.client_result_error:
            return c.broken("the client's result file is unreadable", "a JSON object", view.client_result_error)
        return c.result(Outcome.UNIMPLEMENTED, "the client wrote no A2A_LAB_RESULT")
    if expect.result is not None and result.get("kind") != expect.result:
        return c.broken(f"the client concluded {result.get('kind')!r}", f"kind: {expect.result}", f"kind: {result.get('kind')!r}")
    if expect.state is not None and states.parse(result.get("state")) is not expect.state:
        return c.broken("the client reports another state", expect.state.short, repr(result.get("state")))
    if expect.text_contains is not None and expect.text_contains not in str(result.get("text") or ""):
        return c.broken("the client's text misses what the server said", f"text containing {expect.text_contains!r}", repr(str(result.get("text"))[:200]))
    return c.passed("the client reached the expected conclusion")


@check("CLIENT-INFO", Level.INFO, "A2A 1.0 §7 (informative)", "What the client is",
       "Recorded, never judged: the client's User-Agent, exit code and the interfaces it used.")
def client_info(view: RunView, c: Check) -> CheckResult:
    agents = sorted({call.headers.get("user-agent", "(none)") for call in view.calls} | {e.get("headers", {}).get("user-agent", "(none)") for e in view.card_fetches})
    used = sorted({f"{call.binding.value} {call.version.value}" for call in view.a2a_calls if call.binding and call.version})
    return c.result(Outcome.INFORMATIONAL, f"user-agent {', '.join(agents) or '(no request)'}; exit code {view.client_exit}; used {', '.join(used) or 'no interface'}")
