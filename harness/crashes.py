"""How a client ended, read from its exit code and output: a crash (a signal, an uncaught exception's stack trace)
and the lines of its stderr a message quotes. The checks and the run view share it."""

from __future__ import annotations

import re

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
#: The line the harness puts where it dropped the middle of a long output (process._Tail).
_DROPPED = re.compile(r"^\[\.\.\. \d+ (earlier )?bytes dropped\]$")
#: How much of one quoted line a message keeps.
LINE_CHARS = 200


def stack_trace(stderr: str) -> str | None:
    """The line of `stderr` where an uncaught exception's stack trace shows, or None."""
    for pattern in STACK_TRACES:
        found = pattern.search(stderr)
        if found:
            return found.group(0).strip()
    return None


def ends(text: str) -> tuple[str, str]:
    """The first and the last non-empty line of a client's output (("", "") when it wrote nothing): where runtimes
    print the cause of a crash (node first, Python last)."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not _DROPPED.match(line.strip())]
    return (lines[0][:LINE_CHARS], lines[-1][:LINE_CHARS]) if lines else ("", "")


def quoted_ends(text: str) -> str:
    """The first and last lines of `text`, quoted for a message ("" when it is empty)."""
    first, last = ends(text)
    if not last:
        return ""
    return repr(first) if first == last else f"{first!r} ... {last!r}"


def crash_of(exit_code: int | None, stderr: str) -> str | None:
    """How the client crashed (a signal exit, a stack trace on stderr), or None."""
    if exit_code is not None and (exit_code < 0 or exit_code in SHELL_CRASH_CODES):
        signal = -exit_code if exit_code < 0 else exit_code - 128
        return f"it was killed by signal {signal} (exit code {exit_code})"
    trace = stack_trace(stderr)
    if trace is not None:
        first, last = ends(stderr)
        if not last:
            return "it printed a stack trace"
        if first in (last, trace):
            return f"it printed a stack trace ({trace!r} ... {last!r})"
        return f"it printed a stack trace ({first!r} ... {trace!r} ... {last!r})"
    return None


def how_it_ended(exit_code: int | None, stderr: str) -> str:
    """The client's ending as a message's tail: its crash, or its exit code and the ends of its stderr."""
    crash = crash_of(exit_code, stderr)
    if crash is not None:
        return f"; {crash}"
    quoted = quoted_ends(stderr)
    code = "" if exit_code is None else f"; it exited {exit_code}"
    return code + (f", stderr: {quoted}" if quoted else ", with nothing on stderr" if code else "")
