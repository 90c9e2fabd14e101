"""Running a client command: its own process group, a hard timeout, bounded output tails, nothing left behind."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass

TAIL_BYTES = 16 * 1024
#: After SIGTERM, how long a client gets before SIGKILL.
TERM_GRACE_S = 0.5


class _Tail:
    """Drains a pipe in a thread, keeping only the last TAIL_BYTES (a client may write gigabytes)."""

    def __init__(self, stream: object) -> None:
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.total = 0
        self.thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self.thread.start()

    def _drain(self, stream: object) -> None:
        read = stream.read1 if hasattr(stream, "read1") else stream.read  # type: ignore[attr-defined]
        while True:
            try:
                chunk = read(65536)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            self.total += len(chunk)
            self.chunks.append(chunk)
            self.size += len(chunk)
            while self.size - len(self.chunks[0]) >= TAIL_BYTES:
                self.size -= len(self.chunks.popleft())

    def text(self) -> str:
        data = b"".join(self.chunks)[-TAIL_BYTES:]
        prefix = f"[... {self.total - len(data)} earlier bytes dropped]\n" if self.total > len(data) else ""
        return prefix + data.decode("utf-8", "replace")


@dataclass
class Finished:
    exit_code: int | None
    duration: float
    timed_out: bool
    stdout: str
    stderr: str
    start_error: str | None = None


def split(command: str) -> list[str]:
    return shlex.split(command)


def _kill_group(pgid: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        if sig is signal.SIGTERM:
            deadline = time.monotonic() + TERM_GRACE_S
            while time.monotonic() < deadline:
                try:
                    os.killpg(pgid, 0)
                except ProcessLookupError:
                    return
                time.sleep(0.02)


def run(argv: list[str], env: dict[str, str], timeout: float, cwd: str | None = None) -> Finished:
    """Run argv to completion or timeout. The whole process group is killed either way."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return Finished(None, 0.0, False, "", "", f"cannot start {argv[0]!r}: {exc.strerror or exc}")
    out, err = _Tail(proc.stdout), _Tail(proc.stderr)
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(proc.pid)  # children the client left behind go too
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    duration = time.monotonic() - started
    for tail in (out, err):
        tail.thread.join(1.0)  # a grandchild that escaped the group may hold the pipe open: don't wait for it
    for tail, pipe in ((out, proc.stdout), (err, proc.stderr)):
        if pipe is not None and not tail.thread.is_alive():
            pipe.close()
    return Finished(None if timed_out else proc.returncode, duration, timed_out, out.text(), err.text())
