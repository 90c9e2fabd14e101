"""`a2a-lab serve` (the whole catalogue) in a real process on loopback, for the tests of `drive`, `score` and
`run --server`: its URL, its admin token (given in its environment, as compose gives it), and the CLI to drive it."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

CLI = [sys.executable, "-m", "a2a_lab.harness.cli"]
ADMIN_TOKEN_ENV = "A2A_LAB_ADMIN_TOKEN"


@dataclass
class Served:
    url: str
    admin_token: str
    process: subprocess.Popen[str]
    said: list[str] = field(default_factory=list)

    def runs(self) -> int:
        """How many runs the server keeps now (the admin API, with the admin token)."""
        r = httpx.get(f"{self.url}/_lab/runs", headers={"Authorization": f"Bearer {self.admin_token}"}, trust_env=False)
        r.raise_for_status()
        return int(r.json()["runs"])


@contextmanager
def lab_server(*args: str, hosts: Sequence[str] = ("127.0.0.1",), prefix: Sequence[str] = ()) -> Iterator[Served]:
    """`a2a-lab serve --port 0` on `hosts` (with `prefix`, e.g. to enter a network namespace), until the block ends."""
    token = secrets.token_hex(32)
    argv = [*prefix, *CLI, "serve", "--port", "0", "--log-level", "warning", *(a for h in hosts for a in ("--host", h))]
    env = {**os.environ, ADMIN_TOKEN_ENV: token}
    proc = subprocess.Popen([*argv, *args], env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    said: list[str] = []
    url = None
    for line in proc.stderr:
        said.append(line)
        found = re.search(r" on (http://\S+) \(Ctrl-C", line)
        if found:
            url = found.group(1)
            break
    if url is None:
        proc.wait(10)
        raise AssertionError("a2a-lab serve did not start:\n" + "".join(said))
    drain = threading.Thread(target=lambda: said.extend(proc.stderr or []), daemon=True)
    drain.start()
    try:
        yield Served(url, token, proc, said)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def a2a_lab(
    *args: str, env: dict[str, str] | None = None, timeout: float = 600, prefix: Sequence[str] = ()
) -> subprocess.CompletedProcess[str]:
    """One a2a-lab command in a process of its own (so that it guards its credentials as the installed one does)."""
    return subprocess.run(
        [*prefix, *CLI, *args], env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout
    )


def outcomes(report: Path) -> dict[str, dict[str, Any]]:
    """Per scenario of a JSON report: its outcome and the checks it missed (FAIL, NON_STRICT, ERROR)."""
    data = json.loads(report.read_text(encoding="utf-8"))
    return {
        s["id"]: {
            "outcome": s["outcome"],
            "missed": sorted(c["id"] for c in s["checks"] if c["outcome"] in ("FAIL", "NON_STRICT", "ERROR")),
        }
        for s in data["scenarios"]
    }


def differences(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> list[tuple[str, Any, Any]]:
    """The scenarios two reports judge differently (or that only one of them has), as (id, a's, b's)."""
    return [(sid, a.get(sid), b.get(sid)) for sid in sorted(a.keys() | b.keys()) if a.get(sid) != b.get(sid)]
