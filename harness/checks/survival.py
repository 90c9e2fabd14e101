"""Whether the client survived what it was served: it ended by itself, with no stack trace and no signal.

Judged only where the scenario says the answers call for no crash (`expect.survives`, which `a2a-lab fuzz` sets on
every case it generates): a catalogue scenario's client may report an error however it likes."""

from __future__ import annotations

import re

from ..journal_view import RunView
from ..model import CheckResult, Level
from .base import Check, check

#: How runtimes print an uncaught exception: Python, Node.js (an `at fn (file:line:col)` frame), Go, Rust, the JVM.
STACK_TRACES = (
    re.compile(r"^Traceback \(most recent call last\):$", re.M),
    re.compile(r"^\s+at .+:\d+:\d+\)?$", re.M),
    re.compile(r"^goroutine \d+ \[", re.M),
    re.compile(r"^thread '.*' panicked at ", re.M),
    re.compile(r"^Exception in thread \"", re.M),
)
#: What a shell reports for a child a crash signal killed (128 + SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV).
SHELL_CRASH_CODES = frozenset({132, 134, 135, 136, 139})


def stack_trace(stderr: str) -> str | None:
    """The line of `stderr` where an uncaught exception's stack trace shows, or None."""
    for pattern in STACK_TRACES:
        found = pattern.search(stderr)
        if found:
            return found.group(0).strip()
    return None


def crash_of(exit_code: int | None, stderr: str) -> str | None:
    """How the client crashed (a signal exit, a stack trace on stderr), or None."""
    if exit_code is not None and (exit_code < 0 or exit_code in SHELL_CRASH_CODES):
        signal = -exit_code if exit_code < 0 else exit_code - 128
        return f"it was killed by signal {signal} (exit code {exit_code})"
    trace = stack_trace(stderr)
    if trace is not None:
        last = [line for line in stderr.strip().splitlines() if line.strip()][-1:]
        return f"it printed a stack trace ({trace!r} ... {last[0].strip()[:200]!r})" if last else "a stack trace"
    return None


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
