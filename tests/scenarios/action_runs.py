"""Running the action client (tests/harness/clients/action_client.py) against catalogue scenarios, and reading SSE.

A `Case` is one client run: a catalogue scenario, action-client arguments and (for scenarios that hang a careless
client) a shorter per-scenario timeout. `run_cases` runs every distinct case once through the real harness
(a2a_lab.harness.client_judging.runner.run_all: cases sharing arguments go through one run_all with jobs=2, two such
groups at a time) and returns the scored results. `Expect` says what a case must show: the scenario's outcome and, for a
defective client, the check it misses.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.client_judging.runner import RunOptions, run_all
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from tests.harness.client_launch import action_command

from .catalogue_runs import UNJUDGED, explain  # noqa: F401  (re-exported: one way to explain a result)

#: Outcomes that judge nothing: a correct client may meet them on any check.
DEFAULT_TIMEOUT = 20.0


@dataclass(frozen=True)
class Case:
    scenario: str
    args: tuple[str, ...] = ()
    timeout: float = DEFAULT_TIMEOUT

    def __str__(self) -> str:
        return f"{self.scenario} {' '.join(self.args)}".strip()


def case(scenario: str, *args: str, timeout: float = DEFAULT_TIMEOUT) -> Case:
    return Case(scenario, args, timeout)


@dataclass(frozen=True)
class Miss:
    """A defective run and the check it must miss (FAIL for MUST, NON_STRICT for SHOULD, UNIMPLEMENTED where a check
    cannot fail by design), plus the scenario outcome that follows."""

    case: Case
    check: str
    outcome: Outcome = Outcome.FAIL
    scenario: Outcome | None = Outcome.FAIL
    says: str = ""

    def __str__(self) -> str:
        return f"{self.check}:{self.case}"


def command(args: tuple[str, ...]) -> str:
    return action_command(*args)


def run_cases(catalogue: Catalogue, cases: Iterable[Case]) -> dict[Case, ScenarioResult]:
    groups: dict[tuple[tuple[str, ...], float], list[Case]] = {}
    for c in dict.fromkeys(cases):
        groups.setdefault((c.args, c.timeout), []).append(c)

    def one(key: tuple[tuple[str, ...], float]) -> list[tuple[Case, ScenarioResult]]:
        args, timeout = key
        members = groups[key]
        # The tests' own shorter variant of a scenario whose subject is a wait (see catalogue_runs.run_cases).
        shorter = [replace(s, timeout=min(s.timeout, timeout)) for s in (catalogue.get(c.scenario) for c in members)]
        results, _ = run_all(shorter, RunOptions(client=command(args), timeout=timeout, jobs=2))
        return list(zip(members, results, strict=True))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return {c: result for pairs in pool.map(one, list(groups)) for c, result in pairs}


def assert_passes(result: ScenarioResult) -> None:
    """A correct client passes the scenario, and reaches the conclusion the scenario expects (when it states one)."""
    assert result.outcome is Outcome.PASS, explain(result)
    expected = result.check("RESULT-EXPECTED")
    assert expected is not None and expected.outcome in (Outcome.PASS, Outcome.SKIPPED), explain(result, expected)
    matches = result.check("RESULT-MATCHES")  # the client writes its result: it is judged, unless it made no call
    assert matches is not None and matches.outcome in (Outcome.PASS, Outcome.SKIPPED), explain(result, matches)


def assert_misses(miss: Miss, result: ScenarioResult) -> None:
    check = result.check(miss.check)
    assert check is not None, explain(result)
    assert check.outcome is miss.outcome, explain(result, check)
    if miss.outcome in (Outcome.FAIL, Outcome.NON_STRICT):
        assert check.expected and check.actual, "a miss states what was expected and what was seen"
    if miss.scenario is not None:
        assert result.outcome is miss.scenario, explain(result, check)
    if miss.says:
        assert miss.says in f"{check.message} {check.expected} {check.actual}", explain(result, check)


def group_ids(catalogue: Catalogue, group: str) -> set[str]:
    return {sid for sid in catalogue.ids() if sid.startswith(group + "/")}


# ----------------------------------------------------------------------------------------- talking to a served scenario


def message(text: str = "hi", message_id: str = "m-1", **extra: Any) -> dict[str, Any]:
    return {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}], **extra}


def message03(text: str = "hi", message_id: str = "m-1", **extra: Any) -> dict[str, Any]:
    return {
        "kind": "message",
        "messageId": message_id,
        "role": "user",
        "parts": [{"kind": "text", "text": text}],
        **extra,
    }


def rpc_json(method: str, params: dict[str, Any], req_id: Any = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": req_id, "method": method, "params": params}).encode()


@dataclass
class SseEvent:
    data: Any = None
    event: str | None = None
    comments: tuple[str, ...] = ()


def sse_events(lines: Iterable[str]) -> Iterator[SseEvent]:
    """SSE events from lines as they arrive; comment lines are attached to the event they precede (a trailing group of
    comments with no data is an event of its own, data None)."""
    data: list[str] = []
    name: str | None = None
    comments: list[str] = []
    for line in [*lines, ""] if isinstance(lines, list) else _and_blank(lines):
        if line == "":
            if data or comments or name:
                yield SseEvent(json.loads("\n".join(data)) if data else None, name, tuple(comments))
            data, name, comments = [], None, []
        elif line.startswith(":"):
            comments.append(line[1:].strip())
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
        elif line.startswith("event:"):
            name = line[6:].strip()


def _and_blank(lines: Iterable[str]) -> Iterator[str]:
    yield from lines
    yield ""


def results(events: Iterable[SseEvent]) -> list[Any]:
    """The JSON-RPC `result` (or the whole body when it has none) of every data event."""
    out = []
    for e in events:
        if e.data is not None:
            out.append(e.data.get("result", e.data) if isinstance(e.data, dict) else e.data)
    return out


def kinds(values: Iterable[Any]) -> list[str]:
    """1.0 stream results as `task`, `status:WORKING`, `artifactUpdate`, `message`; an error body as `error`."""
    out = []
    for v in values:
        if "error" in v and "jsonrpc" in v:
            out.append("error")
            continue
        (k,) = v
        out.append(f"status:{v[k]['status']['state'].removeprefix('TASK_STATE_')}" if k == "statusUpdate" else k)
    return out
