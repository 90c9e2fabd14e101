"""The command that runs the tests' fake client (clients/fake_client.py), a process per scenario as before, forked
from a zygote that imported it once.

A fake client's process spent about 0.25 CPU seconds, most of it Python's start and httpx's imports, and the suite
starts some 800 of them. Here each still gets a process of its own from the harness (its argv, environment, cwd,
stdio, exit code, a signal it dies of, a kill at its timeout: tests/peers/clients/handler_zygote.py, tested in
tests/peers/test_handler_zygote.py), but that process is a launcher of a few milliseconds whose work is done by a fork
of one process per pytest worker that imported fake_client.py already. The fork runs in a process group of its own
that the zygote kills when the launcher goes, so a defect that leaves or hides a process of its own (OWN_PROCESS)
runs as a plain process instead: what the harness makes of its process tree is what the test is about.

`A2A_LAB_TESTS_NO_ZYGOTE=1` in the environment runs every fake client as a plain process (to compare).
"""

from __future__ import annotations

import atexit
import os
import shlex
import sys
import threading
from pathlib import Path

FAKE_CLIENT = Path(__file__).resolve().parent / "clients" / "fake_client.py"
PEER_CLIENTS = Path(__file__).resolve().parent.parent / "peers" / "clients"
if str(PEER_CLIENTS) not in sys.path:
    sys.path.append(str(PEER_CLIENTS))

import handler_zygote  # noqa: E402

#: Defects about the client's own process tree: a sleeping child left behind (fork-and-exit) or hung beside it (hang).
OWN_PROCESS = frozenset({"fork-and-exit", "hang"})
#: Set in the environment to run every fake client as a plain process.
NO_ZYGOTE_ENV = "A2A_LAB_TESTS_NO_ZYGOTE"

_lock = threading.Lock()
_zygote: handler_zygote.Zygote | None = None


def _launcher() -> str:
    """This process's zygote's launcher, the zygote started on first use and stopped when this process exits."""
    global _zygote
    with _lock:
        if _zygote is None or _zygote.process.poll() is not None:
            _zygote = handler_zygote.start(sys.executable, "fake_client:console", str(FAKE_CLIENT))
            atexit.register(_zygote.stop)
        return _zygote.launcher


def _defects(args: tuple[str, ...]) -> set[str]:
    return {args[i + 1] for i, a in enumerate(args[:-1]) if a == "--defect"}


def fake_argv(*args: str) -> list[str]:
    """The argv that runs fake_client.py with `args` (its card URL appended by whoever runs it)."""
    if os.environ.get(NO_ZYGOTE_ENV) or _defects(args) & OWN_PROCESS:
        return [sys.executable, str(FAKE_CLIENT), *args]
    return [_launcher(), *args]


def fake_command(*args: str) -> str:
    """fake_argv as one `--client` command line."""
    return shlex.join(fake_argv(*args))
