"""One expensive run per test session, shared by the tests of several files (and so of both pytest-xdist workers).

`once(name, tmp_path_factory, produce)` gives the path of a file that `produce(path)` writes: the first test to ask
writes it, holding a lock file, and marks it done; a test of another worker that asks meanwhile waits for the lock
(no sleep: `flock` returns when the first releases it) and then reads what was written. The folder is the session's
temporary root, which every worker's basetemp is below (`pytest-of-USER/pytest-N/popen-gwK`), so the sharing never
crosses sessions. When `produce` fails (its assertion, a timeout), nothing is marked done: the next test to ask runs
it again, and fails the same way, naming its own cause.

The whole-catalogue run of the reference client (`a2a-lab run -j 2 --client-mode process --json`: a process per
scenario, as any client command runs by default), which tests/test_catalogue_reference_client.py asserts on in full,
is also the `a2a-lab run` whose verdicts tests/test_compose.py's topologies must reproduce (a subset of its
scenarios).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest


def session_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder of this test session, shared by its xdist workers."""
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


def once(name: str, tmp_path_factory: pytest.TempPathFactory, produce: Callable[[Path], None]) -> Path:
    """The file `produce` writes, written once per session whichever worker asks first (see the module)."""
    folder = session_root(tmp_path_factory) / "shared-runs"
    folder.mkdir(exist_ok=True)
    path, done = folder / name, folder / f"{name}.done"
    with open(folder / f"{name}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                produce(path)
                done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return path


def _catalogue_run(report: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "a2a_lab.harness.cli",
            "run",
            "-j",
            "2",
            "--client-mode",
            "process",
            "--json",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def catalogue_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The JSON report of `a2a-lab run -j 2` (the reference client, the whole catalogue, the way a user runs it),
    run once per session; its exit code was 0."""
    return once("catalogue-run.json", tmp_path_factory, _catalogue_run)
