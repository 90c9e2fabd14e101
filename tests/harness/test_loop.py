"""The loop handshake (`--client-mode loop`): one client process per worker, one scenario per line; every way a loop
client can break the handshake (it exits mid-line, writes garbage, never answers, answers twice, crashes) fails the
scenario in flight, on a named check, and the next scenario gets a fresh client."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from a2a_lab.contract import handshake
from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.cli import main, presets
from a2a_lab.harness.client_judging import process
from a2a_lab.harness.client_judging.process import LOOP_MODE
from a2a_lab.harness.client_judging.runner import RunOptions, run_all
from a2a_lab.harness.common.model import Outcome, ScenarioResult

from .conftest import JSONRPC_BOTH

LOOP_CLIENT = Path(__file__).parent / "clients" / "loop_client.py"
#: In the order they start (schedule.order: the same time limit, then by id).
FIRST, SECOND = "quirks/mixed-version-direct-message", "spec/conformant"


def loop_command(*args: str) -> str:
    return " ".join(shlex.quote(a) for a in (sys.executable, str(LOOP_CLIENT), *args))


def run_loop(
    scenario: Callable[[str], Scenario], *args: str, refs: tuple[str, ...] = (FIRST, SECOND), timeout: float = 10.0
) -> list[ScenarioResult]:
    opts = RunOptions(
        client=loop_command(*args),
        timeout=timeout,
        supports=list(JSONRPC_BOTH),
        client_mode=LOOP_MODE,
        overlap_waits=False,  # one at a time, whatever the client does: the pids below say which process ran what
    )
    results, _ = run_all([replace(scenario(r), timeout=min(scenario(r).timeout, timeout)) for r in refs], opts)
    return results


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text(encoding="utf-8").split()]


def test_a_loop_client_runs_every_scenario_in_one_process(scenario: Callable[[str], Scenario], tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    first, second = run_loop(scenario, "--pid-file", str(pid_file))
    assert (first.outcome, second.outcome) == (Outcome.PASS, Outcome.PASS), (first.error, second.error)
    one, two = pids(pid_file)
    assert one == two, "both scenarios were handed to the same process"
    assert first.client is not None and first.client.result is not None, "its result file was read"
    assert first.check("RESULT-MATCHES").outcome is Outcome.PASS  # type: ignore[union-attr]


def test_an_answer_may_carry_the_result_object(scenario: Callable[[str], Scenario], tmp_path: Path) -> None:
    [result] = run_loop(scenario, "--loop-defect", "inline-result", refs=(FIRST,))
    assert result.outcome is Outcome.PASS
    assert result.client is not None and result.client.result is not None
    assert result.check("RESULT-MATCHES").outcome is Outcome.PASS  # type: ignore[union-attr]


def test_output_after_an_answer_belongs_to_the_scenario_answered(scenario: Callable[[str], Scenario]) -> None:
    first, second = run_loop(scenario, "--loop-defect", "talks-after-answer")
    assert first.client is not None and "said after the answer" in first.client.stderr_tail
    assert second.client is not None and "said after the answer" in second.client.stderr_tail  # at the run's end
    assert (first.outcome, second.outcome) == (Outcome.PASS, Outcome.PASS)


@pytest.mark.parametrize(
    ("defect", "outcome", "check", "says"),
    [
        ("exit-mid-line", Outcome.FAIL, "RESULT-MATCHES", "ended (exit code 3) without answering"),
        ("garbage", Outcome.FAIL, "RESULT-MATCHES", "'a2a-lab: maybe later' is not one"),
        ("answers-twice", Outcome.FAIL, "RESULT-MATCHES", "answered the scenario twice"),
        ("crash", Outcome.FAIL, "RESULT-MATCHES", "ended (exit code 1) without answering"),
        ("never-answers", Outcome.TIMEOUT, None, ""),
    ],
)
def test_a_broken_turn_fails_its_scenario_and_the_next_gets_a_fresh_client(
    defect: str,
    outcome: Outcome,
    check: str | None,
    says: str,
    scenario: Callable[[str], Scenario],
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "pids"
    timeout = 3.0 if defect == "never-answers" else 10.0
    first, second = run_loop(
        scenario, "--loop-defect", defect, "--on", FIRST, "--pid-file", str(pid_file), timeout=timeout
    )
    assert first.outcome is outcome, (first.error, [(c.id, c.outcome, c.actual) for c in first.checks])
    if check is not None:
        found = first.check(check)
        assert found is not None and found.outcome is Outcome.FAIL
        assert says in found.actual + found.message, found
    if defect == "crash":  # quoted as a client process's crash is
        assert first.client is not None and "Traceback (most recent call last)" in first.client.stderr_tail
    assert second.outcome is Outcome.PASS, (second.error, [(c.id, c.outcome) for c in second.checks])
    one, two = pids(pid_file)
    assert one != two, "the client was started again for the next scenario"


def test_the_line_carries_the_handshake_and_nothing_else(scenario: Callable[[str], Scenario], tmp_path: Path) -> None:
    """The scenario's line holds the variables a client process's environment would, by the same names."""
    argv_file = tmp_path / "argv.json"
    [result] = run_loop(scenario, "--argv-file", str(argv_file), refs=(FIRST,))

    seen = json.loads(argv_file.read_text(encoding="utf-8"))["env"]
    assert seen.pop(handshake.ENV_LOOP) == "1"
    assert set(seen) == {
        handshake.ENV_SCENARIO,
        handshake.ENV_CARD_URL,
        handshake.ENV_BASE_URL,
        handshake.ENV_MESSAGE,
        handshake.ENV_ACTION,
        handshake.ENV_RESULT,
    }
    assert seen[handshake.ENV_SCENARIO] == FIRST and result.outcome is Outcome.PASS


@pytest.mark.parametrize(
    ("client", "says"),
    [
        ("cat {card_url}", "drop them"),
        ("a2a-sdk", "does not speak the loop handshake"),
    ],
)
def test_a_command_that_cannot_loop_is_refused(client: str, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--client-mode", "loop", "--client", client, "--scenario", FIRST])
    err = capsys.readouterr().err
    assert code == 2 and says in err, err


def test_the_reference_client_loops_through_tls_and_plain_scenarios(scenario: Callable[[str], Scenario]) -> None:
    """`builtin` in loop mode: a mutual-TLS scenario's CA and certificate come with its line and go with it."""
    refs = ("tls/mutual-tls", FIRST, "tls/unknown-ca")
    opts = RunOptions(client=presets.resolve("builtin", loop=True), client_mode=LOOP_MODE)
    results, _ = run_all([scenario(r) for r in refs], opts)
    assert [r.outcome for r in results] == [Outcome.PASS] * 3, [(r.id, r.outcome, r.error) for r in results]
    assert {tuple(r.client.command) for r in results if r.client} == {tuple(process.split(opts.client))}


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "loop-and-inprocess.md"


def guide_example(language: str) -> str:
    """The first `language` block of the loop client section of the docs' guide, as written."""
    section = GUIDE.read_text(encoding="utf-8").split("\n## A loop client\n", 1)[1].split("\n## ", 1)[0]
    return section.split(f"```{language}\n", 1)[1].split("```", 1)[0]


@pytest.mark.parametrize(
    ("language", "runtime", "name"),
    [("python", sys.executable, "loop_client.py"), ("javascript", "node", "loop-client.mjs")],
)
def test_the_docs_loop_clients_pass_as_written(
    language: str, runtime: str, name: str, scenario: Callable[[str], Scenario], tmp_path: Path
) -> None:
    if shutil.which(runtime) is None:
        pytest.skip(f"{runtime} is not installed here")
    program = tmp_path / name
    program.write_text(guide_example(language), encoding="utf-8")
    refs = (FIRST, SECOND)
    opts = RunOptions(client=f"{shlex.quote(runtime)} {shlex.quote(str(program))}", client_mode=LOOP_MODE)
    results, _ = run_all([scenario(r) for r in refs], opts)
    assert [r.outcome for r in results] == [Outcome.PASS, Outcome.PASS], [
        (r.id, r.outcome, r.error, r.client and r.client.stderr_tail[-500:]) for r in results
    ]
    for r in results:
        assert r.check("RESULT-MATCHES").outcome is Outcome.PASS  # type: ignore[union-attr]


def test_the_reference_client_in_loop_mode_takes_no_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["client", "--loop", "http://127.0.0.1:9/"]) == 2
    assert "--loop takes each scenario's card URL" in capsys.readouterr().err


def test_stopping_a_client_reaps_it_at_once_rather_than_waiting_out_the_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """kill_group used to poll the group until TERM_GRACE_S ran out: the leader, our child, stayed in it as a zombie
    until reaped, so stopping each loop client at the end of a run cost the whole grace (0.5 s each, one after the
    other). With the grace made a minute long, a stop that waits it out would take a minute."""
    monkeypatch.setattr(process, "TERM_GRACE_S", 60.0)
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    started = time.monotonic()
    process.kill_group(proc.pid, proc)
    assert time.monotonic() - started < 30
    assert proc.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)


@pytest.mark.parametrize(
    ("args", "mode"),
    [
        ([], "loop"),  # the built-in client speaks the loop handshake: it is started once
        (["--client-mode", "process"], "process"),
        (["--client", f"{shlex.quote(sys.executable)} {shlex.quote(str(LOOP_CLIENT))}"], "process"),  # yours: asked
    ],
)
def test_the_default_mode_is_loop_for_the_builtin_client_only(args: list[str], mode: str, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    main(["run", *args, "--scenario", FIRST, "--json", str(report)])
    data = json.loads(report.read_text())
    assert data["client_mode"] == mode
    assert data["client"].endswith("--loop") is (mode == "loop")
