"""Loop clients that flood or garble their stdout (issue 45, items 12 and 17): a flood of blank lines is read in
linear time, in one piece per run of lines, and kept within process.Kept's bound, so the flooding client still
answers in its time; a garbage answer is said to be the loop answer's, with what is wrong in it (not "A2A_LAB_RESULT
is not UTF-8 text": no file was written). The attackers are loop client scripts of the tests' own."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging import process
from a2a_lab.harness.client_judging.loop import ANSWER_LIMIT, _Lines
from a2a_lab.harness.client_judging.process import LOOP_MODE
from a2a_lab.harness.client_judging.runner import RunOptions, run_all
from a2a_lab.harness.common.model import Outcome, ScenarioResult

from .conftest import JSONRPC_BOTH

FAKE_CLIENT = Path(__file__).parent / "clients" / "fake_client.py"
FIRST, SECOND = "quirks/mixed-version-direct-message", "spec/conformant"

#: A loop client: the tests' fake client for each scenario line, then, in the scenario named `--on`, what `--do`
#: says before (or instead of) its answer.
SCRIPT = """
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("fake_client", FAKE_CLIENT)
fake = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fake)
on, do, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
for line in sys.stdin:
    fields = json.loads(line)
    for name in [n for n in os.environ if n.startswith("A2A_LAB_") and n != "A2A_LAB_LOOP"]:
        del os.environ[name]
    os.environ.update(fields)
    code = fake.main([fields["A2A_LAB_CARD_URL"]])
    out = sys.stdout.buffer
    if fields["A2A_LAB_SCENARIO"] == on and do == "flood":
        out.write(b"\\n" * size)  # blank lines, then the answer
    if fields["A2A_LAB_SCENARIO"] == on and do == "not-utf8":
        out.write(b"a2a-lab: {\\xff\\xfe garbage}\\n")
    elif fields["A2A_LAB_SCENARIO"] == on and do == "not-json":
        out.write(b"a2a-lab: {this is no JSON\\n")
    else:
        out.write(b"a2a-lab: done %d\\n" % code)
    out.flush()
"""


def _run(
    scenario: Callable[[str], Scenario], tmp_path: Path, on: str, do: str, size: int = 0, timeout: float = 10.0
) -> dict[str, ScenarioResult]:
    script = tmp_path / "loop_attacker.py"
    script.write_text(SCRIPT.replace("FAKE_CLIENT", repr(str(FAKE_CLIENT))), encoding="utf-8")
    command = " ".join(shlex.quote(a) for a in (sys.executable, str(script), on, do, str(size)))
    opts = RunOptions(client=command, timeout=timeout, supports=list(JSONRPC_BOTH), client_mode=LOOP_MODE)
    chosen = [replace(scenario(r), timeout=min(scenario(r).timeout, timeout)) for r in (FIRST, SECOND)]
    results, _ = run_all(chosen, opts)
    return {r.id: r for r in results}


class Counted(process.Kept):
    """process.Kept, counting the pieces it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces = 0

    def add(self, chunk: bytes) -> None:
        self.pieces += 1
        super().add(chunk)


def test_a_flood_of_blank_lines_is_kept_in_one_piece_not_a_step_per_line() -> None:
    """Before: a step per line, each copying the rest of the buffer: 64 KiB of blank lines took 65 536 steps and
    some 2 GB of copying (0.5-1 MB of flood per CPU second)."""
    lines, out = _Lines(), Counted()
    for _ in range(16):
        lines.feed(b"\n" * 65536, out)
    assert out.pieces == 16 and out.total == 16 * 65536 and not lines.pending and not lines.answers
    lines.feed(b"\n" * 10 + b"a2a-lab: done\n" + b"\n" * 10 + b"a2a-lab: done 1\na2a-lab: done 2\nhalf", out)
    assert lines.answers == [b"done", b"done 1"]  # the third is not held: a second is all it takes to fail a turn
    assert lines.pending == b"half" and out.pieces == 16 + 2


def test_an_unfinished_line_is_held_up_to_its_bound() -> None:
    lines, out = _Lines(), process.Kept()
    lines.feed(b"a2a-lab: " + b"x" * ANSWER_LIMIT, out)
    assert lines.broken is not None and "longer than" in lines.broken and not lines.pending


def test_a_client_that_floods_blank_lines_still_answers_in_its_time(
    scenario: Callable[[str], Scenario], tmp_path: Path
) -> None:
    """8 MB of blank lines before its answer, in a 4 s scenario: before, reading them took the harness 8-16 CPU
    seconds, and the scenario was a TIMEOUT (its neighbour's turn waited on the same CPU)."""
    by_id = _run(scenario, tmp_path, FIRST, "flood", size=8 * 1024 * 1024, timeout=4.0)
    flooded = by_id[FIRST]
    assert flooded.client is not None and not flooded.client.timed_out, flooded.client
    assert flooded.outcome is Outcome.PASS and by_id[SECOND].outcome is Outcome.PASS
    assert len(flooded.client.stdout_tail) < 1024 * 1024  # kept within process.Kept's bound


def test_a_garbage_answer_is_said_to_be_the_loop_answers_with_what_is_wrong(
    scenario: Callable[[str], Scenario], tmp_path: Path
) -> None:
    """Before: "A2A_LAB_RESULT is not UTF-8 text", of a file the client never wrote."""
    garbled = _run(scenario, tmp_path, FIRST, "not-utf8")[FIRST]
    said = garbled.client.result_error if garbled.client is not None else None
    assert said is not None and "A2A_LAB_RESULT" not in said, said
    assert "loop answer" in said and "not UTF-8 text (byte 0xFF at position 1)" in said
    check = garbled.check("RESULT-MATCHES")
    assert garbled.outcome is Outcome.FAIL and check is not None and "loop answer" in check.actual


def test_an_answer_that_is_no_json_is_said_to_be_the_loop_answers(
    scenario: Callable[[str], Scenario], tmp_path: Path
) -> None:
    broken = _run(scenario, tmp_path, SECOND, "not-json")[SECOND]
    said = broken.client.result_error if broken.client is not None else None
    assert said is not None and "loop answer" in said and "is not JSON" in said and "A2A_LAB_RESULT" not in said
