"""The command line as a new user meets it (issue 17): through a real subprocess, its exit code and its streams."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "a2a_lab.harness.cli"]
#: Scenarios a client that makes no call runs through fast.
FEW = ["spec/conformant", "spec/tck-sut", "spec/tck-sut-no-capabilities", "spec/v1.0.0-server"]


def a2a_lab(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def scenarios(*ids: str) -> list[str]:
    return [a for sid in ids for a in ("--scenario", sid)]


def script(folder: Path, name: str, body: str) -> str:
    """A tiny Python client, as a command line."""
    path = folder / name
    path.write_text(body, encoding="utf-8")
    return f"{sys.executable} {path}"


# Point 1: a client that does not start.


def test_a_client_that_never_starts_is_a_usage_error_that_quotes_its_stderr(tmp_path: Path) -> None:
    proc = a2a_lab("run", "--client", f"{sys.executable} {tmp_path / 'missing.py'}", *scenarios(*FEW), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    progress, _, last = proc.stderr.rpartition("a2a-lab: the client never started:")
    assert "exited 2 before any request, in all 4 scenario(s)" in last and "can't open file" in last, proc.stderr
    # The first three progress lines quote the stderr, the fourth does not repeat it.
    assert progress.count("can't open file") == 3, progress
    assert "exit 2 before any request reached the server" in progress


def test_a_client_that_exits_0_without_a_call_fails_the_gate_not_usage(tmp_path: Path) -> None:
    proc = a2a_lab("run", "--client", "true", *scenarios(*FEW[:2]), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "never started" not in proc.stderr and "NO_CONTACT" in proc.stdout


def test_a_client_that_fails_only_sometimes_is_scored_and_its_exit_code_is_not_a_progress_note(tmp_path: Path) -> None:
    """It reads the card (contact) and exits 1 in one scenario, and fails to do anything in the other: the run is
    scored (exit 1), the silent scenario quotes the stderr, the other shows no `exit 1` beside it."""
    client = script(
        tmp_path,
        "sometimes.py",
        "import os, sys, urllib.request\n"
        "if os.environ['A2A_LAB_SCENARIO'] == 'spec/conformant':\n"
        "    urllib.request.urlopen(sys.argv[-1]).read()\n"
        "    sys.exit(1)\n"
        "sys.exit('refusing to start today')\n",
    )
    proc = a2a_lab("run", "--client", client, *scenarios(*FEW[:2]), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "never started" not in proc.stderr
    [contacted] = [line for line in proc.stderr.splitlines() if "spec/conformant (" in line]
    assert "exit" not in contacted, proc.stderr
    assert "    | refusing to start today" in proc.stderr
