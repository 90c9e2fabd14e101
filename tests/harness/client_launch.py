"""The commands that run the tests' own clients (clients/fake_client.py, action_client.py, fragile_client.py), a
process per scenario as before, each forked from a zygote that imported its script once.

One of these clients' processes spent 0.25 to 0.4 CPU seconds, most of it Python's start and the imports (httpx,
a2a-lab's reference client), and the suite starts some thousand of them. Here each still gets a process of its own
from the harness (its argv, environment, cwd, stdio, exit code, a signal it dies of, a kill at its timeout:
tests/peers/clients/handler_zygote.py, tested in tests/peers/test_handler_zygote.py), but that process is a launcher
of a few milliseconds whose work is done by a fork of one process per pytest worker and script that imported the
script already. The fork runs in a process group of its own that the zygote kills when the launcher goes, so a fake
client defect that leaves or hides a process of its own (OWN_PROCESS) runs as a plain process instead: what the
harness makes of its process tree is what the test is about.

`A2A_LAB_TESTS_NO_ZYGOTE=1` in the environment runs every client as a plain process (to compare).
"""

from __future__ import annotations

import atexit
import os
import shlex
import sys
import threading
from pathlib import Path

CLIENTS = Path(__file__).resolve().parent / "clients"
FAKE_CLIENT = CLIENTS / "fake_client.py"
ACTION_CLIENT = CLIENTS / "action_client.py"
FRAGILE_CLIENT = CLIENTS / "fragile_client.py"
PEER_CLIENTS = Path(__file__).resolve().parent.parent / "peers" / "clients"
if str(PEER_CLIENTS) not in sys.path:
    sys.path.append(str(PEER_CLIENTS))

import handler_zygote  # noqa: E402

#: fake_client defects about the client's own process tree: a sleeping child left behind (fork-and-exit) or hung
#: beside it (hang).
OWN_PROCESS = frozenset({"fork-and-exit", "hang"})
#: Set in the environment to run every client as a plain process.
NO_ZYGOTE_ENV = "A2A_LAB_TESTS_NO_ZYGOTE"

_lock = threading.Lock()
_zygotes: dict[Path, handler_zygote.Zygote] = {}


def _launcher(script: Path) -> str:
    """This process's zygote of `script` (its `console()`, the script's entry point), started on first use and
    stopped when this process exits: its launcher."""
    with _lock:
        zygote = _zygotes.get(script)
        if zygote is None or zygote.process.poll() is not None:
            zygote = handler_zygote.start(sys.executable, f"{script.stem}:console", str(script))
            atexit.register(zygote.stop)
            _zygotes[script] = zygote
        return zygote.launcher


def _defects(args: tuple[str, ...]) -> set[str]:
    return {args[i + 1] for i, a in enumerate(args[:-1]) if a == "--defect"}


def client_argv(script: Path, *args: str) -> list[str]:
    """The argv that runs `script` with `args` (a card URL appended by whoever runs it)."""
    if os.environ.get(NO_ZYGOTE_ENV) or (script == FAKE_CLIENT and _defects(args) & OWN_PROCESS):
        return [sys.executable, str(script), *args]
    return [_launcher(script), *args]


def fake_argv(*args: str) -> list[str]:
    return client_argv(FAKE_CLIENT, *args)


def fake_command(*args: str) -> str:
    """fake_argv as one `--client` command line."""
    return shlex.join(fake_argv(*args))


def action_command(*args: str) -> str:
    return shlex.join(client_argv(ACTION_CLIENT, *args))


def fragile_command(*args: str) -> str:
    return shlex.join(client_argv(FRAGILE_CLIENT, *args))
