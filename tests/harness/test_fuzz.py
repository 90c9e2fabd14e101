"""`a2a-lab fuzz`: it finds what no catalogue scenario serves, shrinks it, and writes a scenario file that
`a2a-lab run --scenario FILE` reproduces; the reference client survives it.

The fragile clients (clients/fragile_client.py) are the reference client plus one crash on one unusual answer. The
seeds are chosen so that each is found in a few cases (the strategies' own draws, deterministic per seed and per
hypothesis release: the `test` extra pins the release they were chosen with, HYPOTHESIS); the shrink budgets are
small, so that the suite stays fast. Budgets count cases, never seconds, and each case may take CASE_TIMEOUT_S before
it counts as a hang, so that a busy machine finds what an idle one does.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, find, settings

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.loader import parse
from a2a_lab.harness import cli
from a2a_lab.harness.cli import fuzz as command
from a2a_lab.harness.client_judging import runner
from a2a_lab.harness.client_judging.crashes import crash_of
from a2a_lab.harness.client_judging.fuzz import search, strategies
from a2a_lab.harness.client_judging.fuzz.oracles import Failure
from tests.harness.client_launch import fragile_command

#: The hypothesis release the seeds below were chosen with (pinned in pyproject's `test` extra).
HYPOTHESIS = "6.155.2"
#: How long a generated case may run here before the hang oracle calls it a finding: a case takes about a second
#: (the client's start, a paced stream), three on 2 cores busy with other test runs; the fuzzer's own 10 s
#: (strategies.CASE_TIMEOUT) would leave a busy machine a spurious TIMEOUT finding.
CASE_TIMEOUT_S = 30.0


@pytest.fixture
def patient_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Generated cases get CASE_TIMEOUT_S (what they are drawn from is unchanged: the timeout is not drawn)."""
    monkeypatch.setattr(strategies, "CASE_TIMEOUT", CASE_TIMEOUT_S)


def fragile(defect: str) -> str:
    return fragile_command(defect, "{card_url}")


def fuzz(tmp_path: Path, client: str, *args: str) -> tuple[int, list[Path], dict[str, Any]]:
    report = tmp_path / "fuzz.json"
    out = tmp_path / "findings"
    code = cli.main(["fuzz", "--client", client, "--out", str(out), "--json", str(report), *args])
    files = sorted(out.glob("*.yaml")) if out.exists() else []
    return code, files, json.loads(report.read_text()) if report.exists() else {}


def run(tmp_path: Path, client: str, scenario: Path) -> dict[str, Any]:
    report = tmp_path / "run.json"
    cli.main(["run", "--client", client, "--scenario", str(scenario), "--json", str(report)])
    return dict(json.loads(report.read_text())["scenarios"][0])


def check_outcome(scenario: dict[str, Any], check_id: str) -> str:
    return str(next(c["outcome"] for c in scenario["checks"] if c["id"] == check_id))


#: (defect, fuzz arguments, what the shrunk scenario must still hold)
FINDS = [
    ("non-bmp-artifact-name", ["--seed", "52", "--budget", "4"], lambda d: "artifacts" in d["task"]),
    ("data-only-status", ["--seed", "16", "--budget", "4"], lambda d: "task" in d),
    (
        "many-chunks",
        ["--seed", "6", "--budget", "5", "--scenario", "streaming/v1-stream"],
        lambda d: any(len(a["parts"]) > 50 for a in d["task"]["artifacts"]),
    ),
    (
        "empty-status-parts",
        ["--seed", "0", "--budget", "4", "--invalid"],
        lambda d: '"parts": []' in d["behaviour"]["SendMessage"][0]["reply"]["raw"]["body"],
    ),
]


@pytest.mark.parametrize(("defect", "args", "holds"), FINDS, ids=[f[0] for f in FINDS])
def test_fuzz_finds_a_crash_no_catalogue_scenario_serves_and_the_file_reproduces_it(
    tmp_path: Path, defect: str, args: list[str], holds: Any, patient_cases: None
) -> None:
    installed = importlib.metadata.version("hypothesis")
    if installed != HYPOTHESIS:
        pytest.skip(
            f"the seeds were chosen with hypothesis {HYPOTHESIS}, {installed} is installed: pip install -e '.[test]'"
        )
    client = fragile(defect)
    # No catalogue scenario serves it: the fragile client passes the whole catalogue's answers of this kind.
    code, files, report = fuzz(tmp_path, client, "--shrink-runs", "10", *args)
    assert code == 1, report
    assert len(files) == 1, files
    data = yaml.safe_load(files[0].read_text(encoding="utf-8"))
    assert data["observed"]["where"] == "a2a-lab fuzz"
    assert data["checks"] == ["CLIENT-SURVIVES"]
    assert data["expect"] == {"survives": True}
    assert holds(data), data
    assert report["fuzz"]["findings"] == [str(files[0])]
    # `a2a-lab run --scenario FILE` reproduces it; the reference client passes the same file (the answer is the
    # client's problem, not the server's).
    scenario = run(tmp_path, client, files[0])
    assert check_outcome(scenario, "CLIENT-SURVIVES") == "FAIL", scenario
    assert scenario["outcome"] == "FAIL"
    assert run(tmp_path, "builtin", files[0])["outcome"] == "PASS"


def test_the_reference_client_survives_a_short_fuzz_run(tmp_path: Path, patient_cases: None) -> None:
    code, files, report = fuzz(tmp_path, "builtin", "--seed", "0", "--budget", "6", "--shrink-runs", "0", "-j", "2")
    assert (code, files) == (0, [])
    assert report["fuzz"]["generated"] == 6 and report["fuzz"]["findings"] == []
    assert report["summary"]["gate"] == "passed"
    code, files, _ = fuzz(tmp_path, "builtin", "--seed", "0", "--budget", "4", "--invalid", "--shrink-runs", "0")
    assert (code, files) == (0, [])


def _draw(strategy: Any, count: int, seed: int) -> list[dict[str, Any]]:
    drawn: list[dict[str, Any]] = []

    def keep(data: dict[str, Any]) -> bool:
        drawn.append(data)
        return len(drawn) >= count

    config = settings(database=None, deadline=None, suppress_health_check=list(HealthCheck), phases=(Phase.generate,))
    find(strategy, keep, settings=config, random=random.Random(seed))
    return drawn


@pytest.mark.parametrize("invalid", [False, True])
def test_every_case_is_a_scenario_file_that_reads_back_as_drawn(invalid: bool) -> None:
    for data in _draw(strategies.case(None, invalid), 60, 1):
        parse(data, "fuzz/case", "<test>")
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=120)
        assert yaml.safe_load(text) == data
        assert data["expect"] == {"survives": True}
        assert "\x00" not in data["client"]["message"]  # it goes to the client in an environment variable


def test_a_base_scenario_keeps_its_card_and_client_ask() -> None:
    base = yaml.safe_load((Path(Catalogue.load().get("streaming/v1-stream").source)).read_text(encoding="utf-8"))
    for data in _draw(strategies.case(base), 10, 2):
        assert data["card"] == base["card"]
        assert data["client"]["action"] == base["client"]["action"]


def test_the_search_is_deterministic_and_shrinks_to_the_smallest_failing_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a client: a case fails when it streams more than 50 chunks of one artifact."""

    def chunks(data: dict[str, Any]) -> int:
        return max((len(a["parts"]) for a in data.get("task", {}).get("artifacts", []) if a.get("chunked")), default=0)

    monkeypatch.setattr(search, "run_case", lambda data, opts: data)
    monkeypatch.setattr(
        search, "failure", lambda data: Failure("CLIENT-SURVIVES", "OverflowError", "x") if chunks(data) > 50 else None
    )
    found = []
    for _ in range(2):
        s = search.Search(runner.RunOptions("client"), search.Budget(cases=400), shrink_runs=400)
        found.append(s.run(seed=5, jobs=1))
    assert [f.data for f in found[0]] == [f.data for f in found[1]]
    (first,) = found[0]
    assert chunks(first.data) == 51
    assert first.data["task"]["steps"] == ["SUBMITTED"] or len(first.data["task"]["steps"]) == 1


@pytest.mark.parametrize(
    ("text", "seconds", "cases"), [("120s", 120.0, None), ("2m", 120.0, None), ("300", None, 300), ("1.5s", 1.5, None)]
)
def test_budget_is_seconds_or_cases(text: str, seconds: float | None, cases: int | None) -> None:
    assert command.budget(text) == (cases, seconds)


@pytest.mark.parametrize("text", ["0", "-3", "1.5", "ten", "5h"])
def test_a_bad_budget_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        command.budget(text)


@pytest.mark.parametrize(
    ("code", "stderr", "says"),
    [
        (-11, "", "signal 11"),
        (139, "", "signal 11"),
        (1, "Traceback (most recent call last):\n  File x\nKeyError: 'text'\n", "KeyError"),
        (1, "TypeError: x is undefined\n    at read (/app/client.js:12:7)\n", "client.js:12:7"),
        (1, "thread 'main' panicked at src/main.rs:3:5\n", "panicked"),
    ],
)
def test_a_crash_is_a_signal_or_a_stack_trace(code: int, stderr: str, says: str) -> None:
    crash = crash_of(code, stderr)
    assert crash is not None and says in crash


@pytest.mark.parametrize(("code", "stderr"), [(0, ""), (1, "error: the agent answered -32603\n"), (2, "usage: x")])
def test_an_error_reported_is_no_crash(code: int, stderr: str) -> None:
    assert crash_of(code, stderr) is None


LOGGED = (
    "ERROR:client:the agent's answer was not understood\nTraceback (most recent call last):\n"
    "  File \"lib.py\", line 3, in read\nKeyError: 'task'\n"
)


@pytest.mark.parametrize("code", [0, None])
def test_a_logged_stack_trace_then_an_exit_0_is_no_crash(code: int | None) -> None:
    """Libraries log the errors they handle with a trace (Python's logger.exception) and go on to answer: only an exit
    by a signal or a non-zero exit after an uncaught error is a crash."""
    assert crash_of(code, LOGGED + "the answer: 42\n") is None


def test_a_trace_the_client_went_on_after_is_no_crash_even_with_exit_1() -> None:
    went_on = LOGGED + "".join(f"retrying the call ({n})\n" for n in range(100)) + "error: gave up\n"
    assert crash_of(1, went_on) is None
    crash = crash_of(1, LOGGED)
    assert crash is not None and crash.startswith("it exited 1 after an uncaught error") and "KeyError" in crash
    signal = crash_of(-9, LOGGED)
    assert signal is not None and signal.startswith("it was killed by signal 9")


def test_without_hypothesis_fuzz_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "hypothesis" else real(name))
    assert cli.main(["fuzz", "--client", "builtin"]) == 2
    assert "pip install 'a2a-lab[fuzz]'" in capsys.readouterr().err
