"""The real peers' cache dir (tests/peers/install.sh), installed on first need by the tests that use it.

A test that needs a peer (the a2a-sdk 0.3.26 or a2a-handler venv, the @a2a-js/sdk packages) asks `ensure(missing)`
with a function that says what is missing (None: nothing). When something is, this process runs install.sh into the
cache dir, once, under a lock on a file in that dir, so that pytest-xdist's workers (or two test runs) install one
at a time and the later ones find it done; then it asks again. So `pip install -e '.[test]' && pytest` on a fresh
machine installs the peers and runs every test that drives them (2 min 46 s for an empty cache dir, measured on 2
cores that other test runs kept busy, pip's and npm's download caches warm). The answer is None, or why the peer is
still missing, for the test to skip with: the install failed (pip or npm, with the end of its log), or
A2A_LAB_PEERS_INSTALL=0 says not to install (offline work), naming the command to run. Node missing is install.sh's
own skip, and the JS tests say so themselves.

    A2A_LAB_PEERS          the cache dir (default ~/.cache/a2a-lab-peers), as install.sh and scorecard.py read it
    A2A_LAB_PEERS_INSTALL  0: never run install.sh from the tests
    PYTHON                 the interpreter install.sh makes the venvs with (default: the one running the tests)
"""

from __future__ import annotations

import fcntl
import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

INSTALL = Path(__file__).resolve().with_name("install.sh")
#: The longest install.sh may take (a cold pip and npm cache on a slow link), in seconds.
INSTALL_TIMEOUT_S = 1800
#: The lines of install.sh's log a failure quotes.
LOG_LINES = 15

_lock = threading.Lock()  # the pins' fixture runs clients in threads; one install per process at a time
_outcome: dict[Path, str | None] = {}  # cache dir -> why install.sh failed (None: it ran well), once per process


def peers_dir() -> Path:
    """The cache dir of tests/peers/install.sh: ${A2A_LAB_PEERS:-~/.cache/a2a-lab-peers}."""
    return Path(os.environ.get("A2A_LAB_PEERS") or Path.home() / ".cache" / "a2a-lab-peers").expanduser().resolve()


def command(peers: Path | None = None) -> str:
    """The command that installs the peers, as a failure names it."""
    return f"tests/peers/install.sh {shlex.quote(str(peers or peers_dir()))}"


def ensure(missing: Callable[[], str | None], peers: Path | None = None) -> str | None:
    """None when `missing()` says nothing is missing, running install.sh first if it did; else why not."""
    why = missing()
    if why is None:
        return None
    peers = peers or peers_dir()
    if os.environ.get("A2A_LAB_PEERS_INSTALL", "1") == "0":
        run = "" if command(peers) in why else f"; run {command(peers)}"
        return f"{why} (A2A_LAB_PEERS_INSTALL=0: the tests do not install it{run})"
    with _lock:
        failed = _outcome[peers] if peers in _outcome else _install(peers, missing)
    return failed if failed is not None else missing()


def _install(peers: Path, missing: Callable[[], str | None]) -> str | None:
    """Under the cache dir's lock: if `missing()` still says so (another process may have installed it meanwhile),
    run install.sh into `peers` and remember how it went. None, or why it failed."""
    peers.mkdir(parents=True, exist_ok=True)
    log = peers / "install.log"
    env = {**os.environ, "PYTHON": os.environ.get("PYTHON") or sys.executable}
    with open(peers / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes (or the process dies)
        if missing() is None:
            return None
        _outcome[peers] = _run(peers, log, env)
    return _outcome[peers]


def _run(peers: Path, log: Path, env: dict[str, str]) -> str | None:
    with open(log, "w", encoding="utf-8") as out:
        try:
            done = subprocess.run(
                ["bash", str(INSTALL), str(peers)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                timeout=INSTALL_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"{command(peers)} took over {INSTALL_TIMEOUT_S} s (its log: {log})"
    if done.returncode == 0:
        return None
    tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_LINES:]
    return f"{command(peers)} failed (exit {done.returncode}); the end of {log}:\n" + "\n".join(tail)
