"""ACTS client tests (§10) served to a client command, as `a2a-lab run` serves its scenarios: every client step's
`wire_payload` of a test is served in one run, in the form client_forms.py says (a SendMessage answer, a stream,
a GetTask answer, the card, the extended card behind an auth challenge), the client runs against it with the
ordinary handshake (A2A_LAB_CARD_URL, A2A_LAB_ACTION, A2A_LAB_RESULT), and each step is judged two ways:

- what the client says it parsed: the result file's `parsed_answers`, keyed by the step's ACTS operation
  (`get_task`, `get_agent_card`, ...), or its `parsed` (the agent's first answer) for `send_message` and a
  streamed `send_streaming_message`, compared with `expect_parsed`;
- what it did on the wire: it made the call that fetched the payload, and, for a card, it used the optional
  operations (streaming, push notifications) exactly as the card it used declares them (the extended card once
  fetched).

A client that writes no parse is judged by the wire where the wire shows every value `expect_parsed` names (a
capability, when a control run shows the client uses it where a card declares it); otherwise the step is
UNIMPLEMENTED, never a pass.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from a2a_lab.contract.loader import parse
from a2a_lab.harness.acts import assertions as A
from a2a_lab.harness.acts.client_forms import (
    SERVED,
    WIRE_CAPABILITIES,
    Wire,
    client_steps,
    leaves,
    needs_control,
    scenario_data,
    wire_of,
)
from a2a_lab.harness.acts.document import Step, Test
from a2a_lab.harness.acts.runner import BindingRun, Failure, StepResult, TestResult, past_run_deadline
from a2a_lab.harness.client_judging.runner import LocalServers, RunOptions, run_one
from a2a_lab.protocol.operations import Operation

__all__ = ["SERVED", "ClientOptions", "run_client_test", "run_clients", "scenario_data"]

#: The call that fetches each operation's payload, as the wire shows it.
_CALLS = {
    "send_message": "SendMessage",
    "send_streaming_message": "SendStreamingMessage",
    "get_task": "GetTask (the follow-up of the WORKING task SendMessage answered)",
    "get_agent_card": "the agent card",
    "get_extended_agent_card": "GetExtendedAgentCard with the bearer token it was handed",
}
#: Calls a client may leave out (acting on an A2A_LAB_ACTION key is optional): UNIMPLEMENTED, not FAIL.
_OPTIONAL = frozenset({"send_streaming_message", "get_extended_agent_card"})


@dataclass(frozen=True)
class ClientOptions:
    command: str
    timeout: float = 30.0
    #: When the whole run must end (time.monotonic(); None: no end): client tests not started by then end in error.
    run_ends: float | None = None


@dataclass
class Seen:
    """One client run, and its control run (None when the test serves no card)."""

    report: dict[str, Any] | None
    wire: Wire
    control: Wire | None
    why_not: str


def _client_run(test: Test, options: ClientOptions, control: bool) -> tuple[Any, Wire]:
    scenario = parse(scenario_data(test, control), f"acts-client/{test.id}", f"ACTS {test.where}")
    raw = run_one(scenario, RunOptions(client=options.command, timeout=options.timeout), LocalServers())
    return raw, wire_of(raw.records)


def run_client_test(test: Test, options: ClientOptions) -> TestResult:
    """Every client step of `test` served to the client in one run (and a control run for a card), each judged."""
    started = time.monotonic()
    steps = client_steps(test)
    ops = [s.client_operation for s in steps]
    why = next(
        (f"step {s.id} is a {s.client_operation} payload" for s in steps if s.client_operation not in SERVED), ""
    )
    if not why and len(set(ops)) < len(ops):
        why = "two of its steps serve one operation, and one run serves each operation once"
    if why:
        said = f"{why}: a2a-lab serves {', '.join(SERVED)} payloads, each once per test"
        return TestResult(test, "skip", skip_reason=said, skip_kind="runner")
    raw, wire = _client_run(test, options, False)
    control = _client_run(test, options, True)[1] if needs_control(test) else None
    report = raw.client.result if isinstance(raw.client.result, dict) else None
    why_not = raw.client.start_error or raw.client.result_error or ""
    if not why_not and report is None:
        why_not = f"it wrote no result file (exit {raw.client.exit_code}" + (
            ", timed out)" if raw.client.timed_out else ")"
        )
    seen = Seen(report, wire, control, why_not)
    result = TestResult(test, "pass")
    verdicts = [_judge_step(test, step, seen) for step in steps]
    capability = _capabilities(test, seen)
    for step, (verdict, failure, _) in zip(steps, verdicts, strict=True):
        if capability is not None and capability.step_id == step.id and verdict != "fail":
            verdict, failure = "fail", capability
        result.steps.append(StepResult(step.id, "skip" if verdict == "unimplemented" else verdict, 0, failure))
    quotes = [q for _, _, q in verdicts if q]
    result.quote = "\n".join(quotes)[:2400]
    failed = next((s.failure for s in result.steps if s.result == "fail"), None)
    unseen = [s.failure.message for s in result.steps if s.result == "skip" and s.failure is not None]
    if failed is not None:
        result.result, result.failure = "fail", failed
    elif unseen:
        result.result, result.unimplemented, result.skip_reason = "skip", True, "; ".join(unseen)
    result.duration_ms = int((time.monotonic() - started) * 1000)
    return result


def _parsed(step: Step, seen: Seen) -> Any:
    """What the client says it parsed of this step's payload (None: it says nothing)."""
    report = seen.report or {}
    answers = report.get("parsed_answers")
    if isinstance(answers, dict) and isinstance(answers.get(step.client_operation), dict):
        return answers[step.client_operation]
    first = report.get("parsed")
    if step.client_operation == "send_message" and not seen.wire.streamed:
        return first if isinstance(first, dict) else None
    if step.client_operation == "send_streaming_message" and seen.wire.streamed:
        return first if isinstance(first, dict) else None
    return None


def _made(step: Step, wire: Wire) -> bool:
    op = step.client_operation
    if op == "get_agent_card":
        return wire.card_fetched
    if op == "get_extended_agent_card":
        return wire.extended
    if op == "send_streaming_message":
        return wire.streamed
    return (Operation.GET_TASK if op == "get_task" else Operation.SEND_MESSAGE) in wire.operations


def _judge_step(test: Test, step: Step, seen: Seen) -> tuple[str, Failure | None, str]:
    """(pass, fail or unimplemented, why, the quote) for one step."""
    quote = f"{step.id} served ({step.client_operation}): " + json.dumps(step.wire_payload)[:800]
    if not _made(step, seen.wire):
        message = f"step {step.id}: the client never asked for {_CALLS[step.client_operation]}"
        if seen.why_not:
            message += f" ({seen.why_not})"
        verdict = "unimplemented" if step.client_operation in _OPTIONAL else "fail"
        if verdict == "unimplemented":
            message += ": it did not act on what A2A_LAB_ACTION asked, so its parse is not judged (UNIMPLEMENTED)"
        return verdict, Failure(message, step.id), quote
    parsed = _parsed(step, seen)
    if isinstance(parsed, dict):
        miss = A.check(dict(step.expect_parsed), parsed)
        quote += f"\n{step.id} parsed: " + json.dumps(parsed)[:800]
        if miss is not None:
            failure = Failure(f"step {step.id}: parsed: {miss.message}", step.id, miss.expected, miss.actual, miss.path)
            return "fail", failure, quote
        return "pass", None, quote
    unseen = [p for p in leaves(dict(step.expect_parsed)) if p not in _shown(test, step, seen)]
    if not unseen:
        return "pass", None, quote + f"\n{step.id}: judged by the wire (capabilities used as declared)"
    first = step.client_operation in ("send_message", "send_streaming_message")
    where = "parsed" if first else f"parsed_answers.{step.client_operation}"
    said = seen.why_not or f"its result file has no `{where}`"
    message = (
        f"step {step.id}: the client asked for {_CALLS[step.client_operation]}, but {said}, and the wire does not show "
        f"{', '.join(unseen)}: its parse is not judged (UNIMPLEMENTED)"
    )
    return "unimplemented", Failure(message, step.id), quote


def _caps(test: Test, op: str) -> dict[str, Any]:
    step = next((s for s in client_steps(test) if s.client_operation == op), None)
    payload = step.wire_payload if step is not None and isinstance(step.wire_payload, dict) else {}
    caps = payload.get("capabilities")
    return caps if isinstance(caps, dict) else {}


def _effective(test: Test, wire: Wire) -> str:
    """The card the client should have gone by: the extended card once it fetched it, else the public card."""
    extended = any(s.client_operation == "get_extended_agent_card" for s in client_steps(test))
    return "get_extended_agent_card" if extended and wire.extended else "get_agent_card"


def _shown(test: Test, step: Step, seen: Seen) -> set[str]:
    """The paths of a card step's parse the wire shows."""
    shown: set[str] = set()
    if step.client_operation == "get_agent_card" and seen.wire.extended:
        shown.add("capabilities.extendedAgentCard")  # it asked for the extended card the card declares
    if seen.control is not None and step.client_operation == _effective(test, seen.wire):
        shown |= {f"capabilities.{c}" for c in WIRE_CAPABILITIES if seen.control.uses(c)}
    return shown


def _capabilities(test: Test, seen: Seen) -> Failure | None:
    """The capability form: a client uses an optional operation only where the card it goes by declares it, and,
    where it uses it at all (the control run), does use it where that card declares it."""
    if seen.control is None:
        return None
    op = _effective(test, seen.wire)
    step = next(s for s in client_steps(test) if s.client_operation == op)
    card = "the extended card it fetched" if op == "get_extended_agent_card" else "the card"
    caps = _caps(test, op)
    for cap in WIRE_CAPABILITIES:
        verb = "streamed (SendStreamingMessage)" if cap == "streaming" else "registered a push webhook"
        declared = caps.get(cap) is True
        if seen.wire.uses(cap) and not declared:
            return Failure(
                f"step {step.id}: the client {verb} though {card} declares capabilities.{cap} "
                f"{A.shown(caps.get(cap, A.MISSING))} (it must check the card before an optional operation)",
                step.id,
                f"capabilities.{cap}: not used",
                "used",
                f"capabilities.{cap}",
            )
        if declared and not seen.wire.uses(cap) and seen.control.uses(cap):
            return Failure(
                f"step {step.id}: {card} declares capabilities.{cap} true and the client, asked to, {verb} where a "
                f"card declares it (control run), but not here: it went by another card's capabilities",
                step.id,
                f"capabilities.{cap}: used",
                "not used",
                f"capabilities.{cap}",
            )
    return None


def run_clients(tests: list[Test], options: ClientOptions) -> BindingRun:
    """Every client test (the others are left out) served to the client command: one run, `client`."""
    started = time.monotonic()
    results = [
        past_run_deadline(test)
        if options.run_ends is not None and time.monotonic() >= options.run_ends
        else run_client_test(test, options)
        for test in tests
        if test.is_client
    ]
    return BindingRun(
        "jsonrpc", f"client: {options.command}", results, int((time.monotonic() - started) * 1000), "client"
    )
