"""ACTS client tests (§10) served to a client command, as `a2a-lab run` serves its scenarios: each client step's
`wire_payload` becomes a scenario whose agent answers the client's call with exactly those bytes (the JSON-RPC id
echoed), the client runs against it with the ordinary handshake (A2A_LAB_CARD_URL, A2A_LAB_RESULT), and what the
client reports it parsed (the result file's `parsed`, ProtoJSON) is compared with `expect_parsed`.

Without a `parsed` report only the wire is judged: a client that never sent the call fails; one that did is
UNIMPLEMENTED (its parse could not be seen), never a pass. The handshake asks a client to send one message, so the
payloads served are SendMessage answers (`send_message`); a client test of another operation is skipped, saying so.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from a2a_lab.contract.loader import parse
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

from ..runner import LocalServers, RunOptions, run_one
from . import assertions as A
from .document import Step, Test
from .runner import BindingRun, Failure, StepResult, TestResult

SERVED = ("send_message",)


@dataclass(frozen=True)
class ClientOptions:
    command: str
    timeout: float = 30.0


def scenario_data(test: Test, step: Step) -> dict[str, Any]:
    """The scenario that serves one client step's payload: a 1.0 JSON-RPC card, the payload as SendMessage's answer."""
    return {
        "title": f"ACTS {test.id}: {test.name}",
        "description": f"ACTS 0.1.0 client test {test.id}, step {step.id}: the golden payload, as written.",
        "spec": f"ACTS 0.1.0 §10; {test.spec_ref or test.doc_spec_ref or 'A2A 1.0'}",
        "timeout": 30,
        "card": {
            "object": {
                "name": f"ACTS {test.id}",
                "description": "a2a-lab serving an ACTS client test's payload",
                "version": "1.0.0",
                "supportedInterfaces": [
                    {
                        "url": "{base_url}/a2a",
                        "protocolBinding": Binding.JSONRPC.value,
                        "protocolVersion": Version.V1_0.value,
                    }
                ],
                "capabilities": {},
                "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"],
                "skills": [{"id": "acts", "name": "ACTS", "description": "an ACTS golden payload", "tags": ["acts"]}],
            }
        },
        "behaviour": {
            Operation.SEND_MESSAGE.value: [{"reply": {"raw": {"body": json.dumps(step.wire_payload), "echo_id": True}}}]
        },
    }


def run_client_test(test: Test, options: ClientOptions) -> TestResult:
    """Every client step of `test` served to the client in turn; the first that fails ends the test."""
    started = time.monotonic()
    result = TestResult(test, "pass")
    for step in test.steps:
        if step.kind != "client":
            continue
        if step.client_operation not in SERVED:
            result.result = "skip"
            result.skip_reason = (
                f"step {step.id} is a {step.client_operation} payload: the handshake asks a client to send a message, "
                "so a2a-lab serves send_message payloads only"
            )
            return result
        begun = time.monotonic()
        verdict, failure, quote = _judge(test, step, options)
        result.steps.append(StepResult(step.id, "skip" if verdict == "unimplemented" else verdict, _ms(begun), failure))
        if verdict != "pass":
            result.result, result.failure, result.quote = verdict, failure, quote
            if verdict == "unimplemented":
                result.result = "skip"
                result.skip_reason = failure.message if failure else ""
                result.unimplemented = True
                result.failure = None
            break
    result.duration_ms = _ms(started)
    return result


def _judge(test: Test, step: Step, options: ClientOptions) -> tuple[str, Failure | None, str]:
    scenario = parse(scenario_data(test, step), f"acts-client/{test.id}", f"ACTS {test.where}")
    raw = run_one(scenario, RunOptions(client=options.command, timeout=options.timeout), LocalServers())
    sent = any(e.kind.is_call and e.operation is Operation.SEND_MESSAGE for e in raw.records)
    quote = "served: " + json.dumps(step.wire_payload)[:1200]
    report = raw.client.result if isinstance(raw.client.result, dict) else None
    parsed = report.get("parsed") if report is not None else None
    if not sent:
        why = raw.client.start_error or f"exit {raw.client.exit_code}" + (
            " (timed out)" if raw.client.timed_out else ""
        )
        return "fail", Failure(f"step {step.id}: the client never sent SendMessage ({why})", step.id), quote
    if not isinstance(parsed, dict):
        said = raw.client.result_error or "its result file has no `parsed` object"
        message = f"step {step.id}: the client called SendMessage, but {said}: its parse is not judged (UNIMPLEMENTED)"
        return "unimplemented", Failure(message, step.id), quote
    miss = A.check(dict(step.expect_parsed), parsed)
    if miss is not None:
        failure = Failure(f"step {step.id}: parsed: {miss.message}", step.id, miss.expected, miss.actual, miss.path)
        return "fail", failure, quote + "\nparsed: " + json.dumps(parsed)[:1200]
    return "pass", None, quote


def _ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


def run_clients(tests: list[Test], options: ClientOptions) -> BindingRun:
    """Every client test (the others are left out) served to the client command: one run, `client`."""
    started = time.monotonic()
    results = [run_client_test(test, options) for test in tests if test.is_client]
    return BindingRun("jsonrpc", f"client: {options.command}", results, _ms(started), "client")
