"""Keeping a2a-lab's own credentials from the processes it starts (Linux; elsewhere a no-op).

A client under test runs as the same user as the harness that starts it, so without care it can read the harness's
command line and environment (`/proc/$PPID/cmdline`, `/proc/$PPID/environ`) and find the shared server's admin token
(`--admin-token T`, A2A_LAB_ADMIN_TOKEN) or a run's token (`--run-token T`, A2A_LAB_RUN_TOKEN). Before any client
starts, `conceal` overwrites every copy of those values in this process's original argument and environment strings
(what /proc shows: `--admin-token ****`) and makes the process non-dumpable (prctl PR_SET_DUMPABLE 0), so that other
processes of the same user can no longer open its /proc files (environ, mem, fd) nor ptrace it.

What it cannot do: hide the command line from whoever reads it before a2a-lab starts (any local user can, with ps);
stop root, or a process with CAP_SYS_PTRACE, from reading this process's memory.
docs/explanation/reliability-and-security.md says so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from collections.abc import Iterable

#: Where a2a-lab's own credentials may come from besides the command line: the shared server's admin token, a run's.
ADMIN_TOKEN_ENV = "A2A_LAB_ADMIN_TOKEN"
RUN_TOKEN_ENV = "A2A_LAB_RUN_TOKEN"


def admin_token(given: str | None) -> str | None:
    """The admin token: the one given on the command line, else the environment's, else none."""
    return given or os.environ.get(ADMIN_TOKEN_ENV) or None


#: prctl(2) option.
PR_SET_DUMPABLE = 4
#: A value shorter than this is not overwritten (it would match ordinary words of the command line).
MIN_SECRET = 8
MASK = b"*"


def _areas() -> list[tuple[int, int]]:
    """The address ranges of this process's original argument and environment strings (/proc/self/stat fields 48 to
    51: arg_start, arg_end, env_start, env_end)."""
    with open("/proc/self/stat", encoding="ascii") as fh:
        text = fh.read()
    fields = text[text.rindex(")") + 2 :].split()  # the fields after the command name, from field 3 on
    arg_start, arg_end, env_start, env_end = (int(v) for v in fields[45:49])
    return [(arg_start, arg_end), (env_start, env_end)]


def _mask_in(start: int, end: int, secrets: list[bytes]) -> int:
    """Overwrite every occurrence of the secrets in [start, end) with MASK; the number overwritten."""
    if end <= start:
        return 0
    data = ctypes.string_at(start, end - start)
    masked = 0
    for secret in secrets:
        at = data.find(secret)
        while at != -1:
            ctypes.memmove(start + at, MASK * len(secret), len(secret))
            masked += 1
            at = data.find(secret, at + len(secret))
    return masked


def scrub(values: Iterable[str | None]) -> int:
    """Overwrite the values in this process's command line and environment as /proc shows them; the number of copies
    overwritten (0 where there is no /proc)."""
    secrets = sorted({v.encode() for v in values if v and len(v) >= MIN_SECRET}, key=len, reverse=True)
    if not secrets or not sys.platform.startswith("linux"):
        return 0
    try:
        return sum(_mask_in(start, end, secrets) for start, end in _areas())
    except (OSError, ValueError, IndexError):
        return 0


def undumpable() -> bool:
    """Make this process non-dumpable: other processes of its user cannot read its /proc files or ptrace it (its
    children are dumpable again once they exec). False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def conceal(values: Iterable[str | None]) -> None:
    """Before starting clients: the credentials out of /proc/self/{cmdline,environ}, and the process undumpable."""
    scrub(values)
    undumpable()
