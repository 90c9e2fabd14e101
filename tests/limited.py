"""A command run under resource limits set by the command itself, not by subprocess's `preexec_fn`.

`preexec_fn` runs Python in the forked child before exec; in a test process with threads (servers, drainers) that
child is a copy of a process in mid-flight, and Python's documentation calls it unsafe there: a collection in the
child can finalise the parent's garbage while fds 0 to 2 are already the new pipes. Here a fresh interpreter sets the
limit and execs the command, so the pipes are set up by a plain fork and exec."""

from __future__ import annotations

import resource
import sys

#: Run as `python -c LAUNCHER LIMIT SOFT HARD ARGV...`: set the limit, then become ARGV.
LAUNCHER = (
    "import os, resource, sys; "
    "resource.setrlimit(getattr(resource, sys.argv[1]), (int(sys.argv[2]), int(sys.argv[3]))); "
    "os.execv(sys.argv[4], sys.argv[4:])"
)


def limited(argv: list[str], limit: str, soft: int, hard: int | None = None) -> list[str]:
    """`argv` under `resource.<limit>` of (soft, hard); hard defaults to this process's own hard limit."""
    if hard is None:
        hard = resource.getrlimit(getattr(resource, limit))[1]
    return [sys.executable, "-c", LAUNCHER, limit, str(soft), str(hard), *argv]
