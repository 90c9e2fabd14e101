"""How a client ended, read from its exit code and output: a crash (an exit by a signal, or a non-zero exit whose output
ends in an uncaught error's stack trace) and the lines of its stderr a message quotes. The checks and the run view share
it. A stack trace alone is no crash: many libraries log the errors they handle with theirs (Python's
`logger.exception`) and go on to answer and exit 0."""

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
#: An uncaught error's stack trace ends the output: the last trace begins within this many lines of its end (a
#: runtime prints the trace, at most a line or two of its own after it, and exits; a deep Python or JVM trace fits).
TRACE_AT_END_LINES = 60


def trace_at_end(stderr: str) -> str | None:
    """The first line of the stack trace that ends `stderr` (an uncaught error's), or None: None too where the last
    trace is followed by more than a runtime's own closing lines (the client logged an error and went on)."""
    last = max((m for p in STACK_TRACES for m in p.finditer(stderr)), key=lambda m: m.start(), default=None)
    if last is None:
        return None
    after = [line for line in stderr[last.end() :].splitlines() if line.strip()]
    if len(after) > TRACE_AT_END_LINES:
        return None
    return last.group(0).strip()


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
    """How the client crashed, said as which of the two it was: killed by a signal, or a non-zero exit after an
    uncaught error (its output ends in a stack trace); None otherwise, an exit 0 after a logged trace included."""
    if exit_code is None or exit_code == 0:
        return None
    if exit_code < 0 or exit_code in SHELL_CRASH_CODES:
        signal = -exit_code if exit_code < 0 else exit_code - 128
        return f"it was killed by signal {signal} (exit code {exit_code})"
    trace = trace_at_end(stderr)
    if trace is None:
        return None
    first, last = ends(stderr)
    said = f"it exited {exit_code} after an uncaught error: its output ends in a stack trace"
    if first in (last, trace):
        return f"{said} ({trace!r} ... {last!r})"
    return f"{said} ({first!r} ... {trace!r} ... {last!r})"


def how_it_ended(exit_code: int | None, stderr: str) -> str:
    """The client's ending as a message's tail: its crash, or its exit code and the ends of its stderr."""
    crash = crash_of(exit_code, stderr)
    if crash is not None:
        return f"; {crash}"
    quoted = quoted_ends(stderr)
    code = "" if exit_code is None else f"; it exited {exit_code}"
    return code + (f", stderr: {quoted}" if quoted else ", with nothing on stderr" if code else "")
