"""tests/peers/cache.py: the tests install the real peers on first need, once however many processes ask at a time,
and a failed or refused install is a skip that says why (with a stand-in for install.sh, so nothing is installed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.peers import cache

#: A stand-in for install.sh: counts its runs, takes a moment (so that two processes overlap), then "installs" the
#: marker file, or fails as told.
FAKE_INSTALL = """#!/usr/bin/env bash
set -eu
echo run >> "$1/runs"
echo "peers: installing into $1"
sleep 1
if [ -n "${FAKE_FAIL:-}" ]; then echo "peers: ERROR: sdk03: pip install failed" >&2; exit 1; fi
touch "$1/installed"
"""

#: Two processes ask at once, as pytest-xdist's two workers would.
ASK = """
import sys
from pathlib import Path
from tests.peers import cache
cache.INSTALL = Path(sys.argv[1])
peers = Path(sys.argv[2])
print(cache.ensure(lambda: None if (peers / "installed").exists() else "not installed", peers))
"""


@pytest.fixture
def fake_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "install.sh"
    script.write_text(FAKE_INSTALL, encoding="utf-8")
    monkeypatch.setattr(cache, "INSTALL", script)
    monkeypatch.setattr(cache, "_outcome", {})
    monkeypatch.delenv("A2A_LAB_PEERS_INSTALL", raising=False)
    return script


def _installed(peers: Path) -> str | None:
    return None if (peers / "installed").exists() else "not installed"


def test_two_processes_at_once_install_once(fake_install: Path, tmp_path: Path) -> None:
    peers = tmp_path / "peers"
    root = Path(__file__).resolve().parent.parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    asks = [
        subprocess.Popen(
            [sys.executable, "-c", ASK, str(fake_install), str(peers)], stdout=subprocess.PIPE, text=True, env=env
        )
        for _ in range(2)
    ]
    outputs = [ask.communicate(timeout=60)[0].strip() for ask in asks]
    assert outputs == ["None", "None"]
    assert (peers / "runs").read_text(encoding="utf-8").split() == ["run"], "the second found it installed"
    assert "installing into" in (peers / "install.log").read_text(encoding="utf-8")


def test_nothing_missing_runs_nothing(fake_install: Path, tmp_path: Path) -> None:
    peers = tmp_path / "peers"
    assert cache.ensure(lambda: None, peers) is None
    assert not peers.exists()


def test_a_failed_install_is_a_reason_with_the_command_and_the_log_and_is_not_retried(
    fake_install: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_FAIL", "1")
    peers = tmp_path / "peers"
    why = cache.ensure(lambda: _installed(peers), peers)
    assert why is not None
    assert f"tests/peers/install.sh {peers} failed (exit 1)" in why and "pip install failed" in why
    assert cache.ensure(lambda: _installed(peers), peers) == why
    assert (peers / "runs").read_text(encoding="utf-8").split() == ["run"], "once per process"


def test_install_refused_names_the_command(fake_install: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2A_LAB_PEERS_INSTALL", "0")
    peers = tmp_path / "peers"
    why = cache.ensure(lambda: _installed(peers), peers)
    assert why == f"not installed (A2A_LAB_PEERS_INSTALL=0: the tests do not install it; run {cache.command(peers)})"
    assert not peers.exists()
