"""What `run`, `drive` and `score` share while clients run: the progress line, the first SIGINT or SIGTERM, a client
that never started, and the scenarios a shared server cannot serve."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging import process, runner
from a2a_lab.harness.common import escape
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import say
from a2a_lab.harness.common.model import ClientRun, Outcome, ScenarioResult
from a2a_lab.harness.reports import console
from a2a_lab.protocol.cards import Support

#: How many scenarios quote the client's stderr in their progress line when it ended before any request (-v: all).
QUOTED_STDERR = 3


class Progress:
    """The live progress line per finished scenario, on stderr. A client that ended before any request reached the
    server says why (its exit code, its stderr's last lines) in the first scenarios; its exit code is not shown
    otherwise, since exiting 1 is right where a client refuses a bad card."""

    def __init__(self, verbose: bool = False, opts: runner.RunOptions | None = None, quiet: bool = False) -> None:
        self.verbose = verbose
        self.quiet = quiet
        self.quoted = 0
        #: Given, each line names the scenario's outcome as it is scored (runner.outcome_now), with these supports.
        self.opts = opts
        self.seen: set[Support] = set()
        self.colour = console.colours(sys.stderr)
        #: Each scenario's progress line as shown: (index, total, seconds, outcome), for `revise`.
        self.shown: dict[str, tuple[int, int, float, Outcome]] = {}

    def __call__(self, raw: runner.RawRun, index: int, total: int) -> None:
        silent = not raw.journal and not raw.client.timed_out
        if raw.client.timed_out:
            note = "timed out"
        elif raw.error:
            note = raw.error
        elif silent:
            note = f"exit {raw.client.exit_code} before any request reached the server"
        else:
            note = ""
        if self.quiet:
            return
        outcome = runner.outcome_now(raw, self.opts, self.seen) if self.opts is not None else None
        if outcome is not None:
            self.shown[raw.scenario.id] = (index, total, raw.duration, outcome)
        lines = [console.progress_line(index, total, raw.scenario.id, raw.duration, note, outcome, colour=self.colour)]
        if silent and raw.client.stderr_tail.strip() and (self.verbose or self.quoted < QUOTED_STDERR):
            self.quoted += 1
            lines += [escape.console(line) for line in console.stderr_tail(raw.client.stderr_tail)]
        # Not escaped as a whole: progress_line escaped its own parts, and its colour codes must reach the terminal.
        print("\n".join(lines), file=sys.stderr, flush=True)

    def revise(self, results: Sequence[ScenarioResult], supports: set[Support]) -> None:
        """Once the run is scored as a whole: a progress line again, with the final outcome, for each scenario whose
        outcome changed when the whole run showed what the client speaks (its line was scored with what was known
        then). Nothing where the supports were declared (`--client-supports`): the outcomes cannot change."""
        if self.quiet or (self.opts is not None and self.opts.supports):
            return
        speaks = ", ".join(sorted(f"{b.value.lower()}@{v.value}" for b, v in supports)) or "nothing"
        for r in results:
            was = self.shown.get(r.id)
            if was is None or was[3] is r.outcome:
                continue
            index, total, seconds, outcome = was
            note = f"revised, was {outcome.value}: the whole run showed the client speaks {speaks}"
            line = console.progress_line(index, total, r.id, seconds, note, r.outcome, colour=self.colour)
            print(line, file=sys.stderr, flush=True)


@dataclass
class Interruption:
    """The first SIGINT or SIGTERM a run received (None: none)."""

    signal: str | None = None


@contextmanager
def interruptible(stopper: process.Stopper) -> Iterator[Interruption]:
    """While a run goes: the first SIGINT or SIGTERM kills every client process group at once (`stopper`) and lets the
    run end with what finished; a second one exits at once. The handlers before are restored after."""
    seen = Interruption()

    def handler(signum: int, _frame: object) -> None:
        if seen.signal is not None:
            os._exit(Exit.INTERRUPTED)  # asked twice: the clients are gone already, leave now
        seen.signal = signal.Signals(signum).name
        stopper.stop()

    before = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield seen
    finally:
        for sig, previous in before.items():
            signal.signal(sig, previous)


class Ran(Protocol):
    """A scenario's run as never_started reads it (a ScenarioResult, or a RawRun before scoring)."""

    @property
    def client(self) -> ClientRun | None: ...

    @property
    def journal(self) -> list[dict[str, Any]]: ...


def never_started(results: Sequence[Ran]) -> str | None:
    """What the client said when it failed, or could not be started, before any request in every scenario of the run
    (a missing script, a bad interpreter): a usage error, not a verdict on the client. None otherwise."""
    if not results:
        return None
    for r in results:
        c = r.client
        if c is None or r.journal or c.timed_out or (c.exit_code == 0 and not c.start_error):
            return None
    first = results[0].client
    assert first is not None
    if first.start_error:
        return first.start_error
    said = "\n".join(console.stderr_tail(first.stderr_tail))
    return f"it exited {first.exit_code} before any request, in all {len(results)} scenario(s); " + (
        f"its stderr ends:\n{said}" if said else "it wrote nothing on stderr"
    )


def own_server_only(scenarios: list[Scenario]) -> list[Scenario]:
    """Without the scenarios served over TLS (`tls/`): a shared server serves every scenario with one certificate (or
    none), so their point is lost there; each needs a server of its own (`a2a-lab run` without --server)."""
    skipped = [s.id for s in scenarios if s.tls is not None]
    if skipped:
        say(
            f"skipped {len(skipped)} TLS scenario(s) ({', '.join(skipped[:3])}{', ...' if len(skipped) > 3 else ''}): "
            "a shared server cannot present their certificates; run them with a server of their own"
        )
    return [s for s in scenarios if s.tls is None]
