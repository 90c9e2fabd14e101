"""A client under test that looks for the credentials of the harness driving it, the way any process of the same user
can: its own environment, its parent's command line and environment (/proc/$PPID/cmdline, /proc/$PPID/environ), and
the run file its parent's command line names (`--run-file F`). It first talks to its agent as the reference client
does (so that its verdict is PASS when nothing else happens), then tries every string it found that looks like a
token, and none: to start runs on the shared server (the admin token's right), and to read and reset its own
journal (the run's token's). It reports what it saw and every answer to HOSTILE_REPORT (a file path, passed with
--client-env) and exits as the reference client did."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

TOKEN_LIKE = re.compile(r"[A-Za-z0-9_\-]{16,}")


def proc_strings(pid: int, what: str) -> list[str] | str:
    """The NUL-separated strings of /proc/PID/WHAT, or why they cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/{what}").read_bytes()
    except OSError as exc:
        return f"unreadable: {type(exc).__name__}: {exc.strerror}"
    return [s.decode("utf-8", "replace") for s in raw.split(b"\0") if s]


def run_file_of(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg == "--run-file" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--run-file="):
            return arg.partition("=")[2]
    return None


def candidates(*texts: str) -> set[str]:
    return {m for text in texts for m in TOKEN_LIKE.findall(text)}


def call(origin: str, method: str, path: str, token: str | None) -> int | str:
    parts = urlsplit(origin)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, body=b"{}" if method == "POST" else None, headers=headers)
        return conn.getresponse().status
    except (OSError, http.client.HTTPException) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()


def main() -> int:
    ppid = os.getppid()
    env = dict(os.environ)
    cmdline = proc_strings(ppid, "cmdline")
    environ = proc_strings(ppid, "environ")
    seen: dict[str, Any] = {"env": env, "parent_cmdline": cmdline, "parent_environ": environ}
    found = candidates(*env.values())
    for strings in (cmdline, environ):
        if isinstance(strings, list):
            found |= candidates(*strings)
    named = run_file_of(cmdline) if isinstance(cmdline, list) else None
    seen["run_file"] = {"path": named}
    if named:
        try:
            text = Path(named).read_text(encoding="utf-8")
            seen["run_file"]["read"] = text
            found |= candidates(text)
        except OSError as exc:
            seen["run_file"]["error"] = f"{type(exc).__name__}: {exc.strerror}"

    # Talk to the agent first, as a good client would: the journal then holds what a reset would wipe.
    conversation = subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.clients.refclient", sys.argv[-1]], check=False
    )

    base = env["A2A_LAB_BASE_URL"]
    origin = f"{urlsplit(base).scheme}://{urlsplit(base).netloc}"
    where = re.search(r"/runs/([^/]+)/(.+)$", urlsplit(base).path)
    assert where, base
    run, scenario = where.groups()
    attacks: dict[str, dict[str, int | str]] = {}
    for token in [None, *sorted(found)]:
        label = "none" if token is None else hashlib.sha256(token.encode()).hexdigest()[:16]
        attacks[label] = {
            "start-run": call(origin, "POST", "/_lab/runs", token),
            "list-runs": call(origin, "GET", "/_lab/runs", token),
            "read-journal": call(origin, "GET", f"/_lab/runs/{run}/journal?scenario={scenario}", token),
            "reset": call(origin, "POST", f"/_lab/runs/{run}/reset?scenario={scenario}", token),
        }
    report = {"seen": seen, "tried": len(attacks), "attacks": attacks}
    Path(env["HOSTILE_REPORT"]).write_text(json.dumps(report), encoding="utf-8")
    return conversation.returncode


if __name__ == "__main__":
    sys.exit(main())
