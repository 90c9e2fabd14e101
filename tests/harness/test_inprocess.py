"""In-process clients (a2a_lab.harness.inprocess): an async callable run over scenarios in the caller's
event loop or a thread of its own, scored and reported as `a2a-lab run` scores; a crash, a hang and a result that is
none fail the scenario as they would a client process; the pytest plugin's `run_client` is the same."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness import inprocess  # the documented import path (harness/inprocess.py)
from a2a_lab.harness.common.model import Outcome
from a2a_lab.harness.pytest_plugin import Lab
from a2a_lab.harness.reports.files import ReportFiles

FIRST, SECOND = "spec/conformant", "quirks/mixed-version-direct-message"


async def minimal(job: inprocess.Assignment) -> dict[str, Any]:
    """A small correct client: the card, one SendMessage over JSON-RPC 1.0, what came back as its result."""
    async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
        card = (await http.get(job.card_url)).json()
        url = next(
            i["url"]
            for i in card["supportedInterfaces"]
            if i["protocolBinding"] == "JSONRPC" and i["protocolVersion"] == "1.0"
        )
        message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": job.message}]}
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
        reply = (await http.post(url, json=body, headers={"A2A-Version": "1.0"})).json()
    task = reply.get("result", {}).get("task")
    if "error" in reply:
        return {"kind": "error"}
    return {"kind": "task", "state": task["status"]["state"]} if task else {"kind": "message"}


def test_an_async_client_runs_in_the_callers_event_loop(tmp_path: Path) -> None:
    async def main() -> inprocess.InProcessRun:
        return await inprocess.run_async(minimal, [FIRST, SECOND], jobs=2)

    outcome = asyncio.run(main())
    assert [r.id for r in outcome.results] == [SECOND, FIRST], "in id order, as `a2a-lab run` runs them"
    assert [r.outcome for r in outcome.results] == [Outcome.PASS, Outcome.PASS], outcome.scorecard()
    assert all(r.check("RESULT-MATCHES").outcome is Outcome.PASS for r in outcome.results)  # type: ignore[union-attr]
    assert outcome.passed and "verdict" in outcome.scorecard()
    outcome.write(ReportFiles(json=tmp_path / "report.json"))
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["client_mode"] == "in-process" and report["summary"]["gate"] == "passed"
    assert [s["id"] for s in report["scenarios"]] == [SECOND, FIRST] and report["scenarios"][0]["journal"]


def test_a_crash_a_hang_and_a_result_that_is_none_fail_their_scenarios(scenario: Callable[[str], Scenario]) -> None:
    survives = scenario(FIRST)
    survives = replace(survives, id="lab/survives", expect=replace(survives.expect, survives=True))
    hangs = replace(scenario(SECOND), timeout=1.0)

    async def defective(job: inprocess.Assignment) -> Any:
        if job.scenario == hangs.id:
            await asyncio.Event().wait()
        await minimal(job)
        if job.scenario == survives.id:
            raise RuntimeError("crashing on purpose after the call")
        return ["not", "a", "result"]

    crashed, hung, odd = inprocess.run(defective, [survives, hangs, replace(scenario(FIRST), id="lab/odd")]).results
    check = crashed.check("CLIENT-SURVIVES")
    assert crashed.outcome is Outcome.FAIL and check is not None and check.outcome is Outcome.FAIL
    assert "stack trace" in check.actual and "crashing on purpose" in (
        (crashed.client and crashed.client.stderr_tail) or ""
    )
    assert hung.outcome is Outcome.TIMEOUT
    result = odd.check("RESULT-MATCHES")
    assert result is not None and result.outcome is Outcome.FAIL and "returned a list" in result.actual


def test_the_pytest_plugin_runs_an_in_process_client(a2a_lab: Lab) -> None:
    outcome = a2a_lab.run_client(minimal, [FIRST])
    assert outcome.passed, outcome
    assert [r.id for r in a2a_lab.results("t")] == [f"t[{FIRST}]"]


def test_a_selection_that_names_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="no-such"):
        inprocess.run(minimal, ["no-such/scenario"])


def test_the_docs_in_process_example_runs_as_written() -> None:
    guide = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "loop-and-inprocess.md"
    section = guide.read_text(encoding="utf-8").split("\n## An in-process client\n", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(example, "loop-and-inprocess.md (in-process example)", "exec"), {"__name__": "readme_example"})
