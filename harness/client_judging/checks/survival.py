"""Whether the client survived what it was served: it ended by itself, with no stack trace and no signal.

Judged only where the scenario says the answers call for no crash (`expect.survives`, which `a2a-lab fuzz` sets on
every case it generates): a catalogue scenario's client may report an error however it likes."""

from __future__ import annotations

from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.crashes import crash_of
from a2a_lab.harness.client_judging.journal_view import RunView
from a2a_lab.harness.common.model import CheckResult, Level


@check(
    "CLIENT-SURVIVES",
    Level.MUST,
    "A2A 1.0 §4 and the normative proto (any value they allow is an answer the client must process); A2A 0.3 §11.2 "
    "(a client MUST handle every §8.2 error code); judged where `expect.survives` says (every `a2a-lab fuzz` case)",
    "The client did not crash",
    "Where a scenario says so (`expect.survives`, set on every case `a2a-lab fuzz` serves), the client ends by "
    "itself, without an uncaught exception's stack trace on stderr and without being killed by a signal: an answer "
    "it does not understand is reported as an error, never a crash.",
    "the lab's own contract: a crash loses the user's answer (or the error) whatever the answer was",
    rule=(
        "A client ends by itself whatever the agent answers, reporting an answer it does not understand "
        "as an error instead of crashing."
    ),
    fix=(
        "Catch parse and protocol errors around every call and report them as errors, without an uncaught"
        " stack trace and without dying by a signal."
    ),
)
def client_survives(view: RunView, c: Check) -> CheckResult:
    if not view.expect.survives:
        return c.skipped("the scenario does not ask (expect.survives)")
    if view.client_timed_out:
        return c.skipped("the client was stopped when the scenario's time ran out (the run is a TIMEOUT)")
    crash = crash_of(view.client_exit, view.client_stderr)
    if crash is not None:
        return c.broken("the client crashed", "it ends by itself: an answer, or an error it reports", crash)
    return c.passed(f"the client ended by itself (exit code {view.client_exit})")
