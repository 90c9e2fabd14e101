"""Running a client command: its own process group, a hard timeout, bounded output tails, nothing left behind.

Cleaning up: the client's process group is killed (SIGTERM, then SIGKILL); a descendant that left the group (setsid)
but kept the client's stdout or stderr is found through /proc by the pipe it holds (Linux), and killed. A descendant
that left the group AND closed both is not found: containing that takes a PID namespace or a cgroup (run the harness
in a container)."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from a2a_lab.contract import handshake

#: How the client command is run (`--client-mode`): a process per scenario, or started once per worker and handed
#: scenario after scenario (the loop handshake, contract/handshake.py).
PROCESS_MODE, LOOP_MODE = "process", "loop"
CLIENT_MODES = (PROCESS_MODE, LOOP_MODE)
#: The client command's placeholders: the scenario's card URL and base URL (without either, the card URL is appended).
CARD_PLACEHOLDER, BASE_PLACEHOLDER = "{card_url}", "{base_url}"
TAIL_BYTES = 16 * 1024
#: The first bytes of each output are kept too: a runtime may print the cause of a crash first (node prints the
#: throwing line and the error before its stack), and a tail alone would hide it.
HEAD_BYTES = 4 * 1024
#: After SIGTERM, how long a client gets before SIGKILL.
TERM_GRACE_S = 0.5
#: Once the client and its process group are gone, how long its output pipes may stay open before the harness looks for
#: whoever still holds them (a process that left the group with setsid) and kills it.
PIPE_GRACE_S = 0.2
#: After that, how long to wait for the pipes to close before giving up on them (they are then left open, not closed
#: under a reading thread).
PIPE_WAIT_S = 1.0


class Kept:
    """What is kept of one output: the first HEAD_BYTES and the last TAIL_BYTES (a client may write gigabytes)."""

    def __init__(self) -> None:
        self.head = b""
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.total = 0

    def add(self, chunk: bytes) -> None:
        if len(self.head) < HEAD_BYTES:
            self.head += chunk[: HEAD_BYTES - len(self.head)]
        self.total += len(chunk)
        self.chunks.append(chunk)
        self.size += len(chunk)
        while self.size - len(self.chunks[0]) >= TAIL_BYTES:
            self.size -= len(self.chunks.popleft())

    def text(self) -> str:
        data = b"".join(self.chunks)[-TAIL_BYTES:]
        if self.total <= len(data):
            return data.decode("utf-8", "replace")
        head = self.head[: max(0, min(len(self.head), self.total - len(data)))]
        dropped = self.total - len(data) - len(head)
        middle = f"\n[... {dropped} bytes dropped]\n" if dropped else ""
        return head.decode("utf-8", "replace") + middle + data.decode("utf-8", "replace")


class _Tail(Kept):
    """Drains a pipe in a thread, keeping what Kept keeps."""

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__()
        self.thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self.thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        read = stream.read1 if hasattr(stream, "read1") else stream.read
        while True:
            try:
                chunk = read(65536)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            self.add(chunk)


@dataclass
class Finished:
    exit_code: int | None
    duration: float
    timed_out: bool
    stdout: str
    stderr: str
    start_error: str | None = None
    #: Processes that left the client's process group but held its output open, killed by the harness.
    escaped: list[int] = field(default_factory=list)
    #: The run was interrupted (Stopper.stop) while this client ran, or before it started: no verdict can be taken.
    interrupted: bool = False


class Stopper:
    """Every client process group a run has running, so that an interrupted run (Ctrl-C, SIGTERM) kills them all at
    once and starts no more. `stop` is safe to call from a signal handler: it takes a lock only the workers take."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[int] = set()
        self._killed: set[int] = set()
        self.stopped = False

    def enter(self, pgid: int) -> bool:
        """A client started (its group is `pgid`); False when the run is already stopped (the caller kills it)."""
        with self._lock:
            if self.stopped:
                return False
            self._running.add(pgid)
            return True

    def leave(self, pgid: int) -> bool:
        """The client is done; True when it was killed by `stop`."""
        with self._lock:
            self._running.discard(pgid)
            return pgid in self._killed

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            groups = sorted(self._running)
            self._killed.update(groups)
        for pgid in groups:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except OSError:
                pass


def split(command: str) -> list[str]:
    return shlex.split(command)


def command_for(template: str, card_url: str, base_url: str) -> list[str]:
    argv = split(template)
    if CARD_PLACEHOLDER not in template and BASE_PLACEHOLDER not in template:
        return [*argv, card_url]
    return [a.replace(CARD_PLACEHOLDER, card_url).replace(BASE_PLACEHOLDER, base_url) for a in argv]


def loop_command(template: str) -> list[str]:
    """A loop client's command: as given (it learns each scenario's URLs from its line). ValueError for a command
    that names a per-scenario placeholder."""
    if CARD_PLACEHOLDER in template or BASE_PLACEHOLDER in template:
        raise ValueError(
            f"--client {template!r}: a loop client is started once for many scenarios, so {CARD_PLACEHOLDER} and "
            f"{BASE_PLACEHOLDER} have no single value; drop them (each scenario's line carries "
            f"{handshake.ENV_CARD_URL} and {handshake.ENV_BASE_URL})"
        )
    return split(template)


def kill_group(pgid: int, leader: subprocess.Popen[bytes] | None = None) -> None:
    """SIGTERM to a process group, SIGKILL to what is left of it after TERM_GRACE_S. `leader`: the group's leader,
    our child, reaped as soon as it ends (unreaped, it stays in the group as a zombie and the grace runs out)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        if sig is signal.SIGTERM:
            deadline = time.monotonic() + TERM_GRACE_S
            while time.monotonic() < deadline:
                if leader is not None:
                    leader.poll()
                try:
                    os.killpg(pgid, 0)
                except ProcessLookupError:
                    return
                time.sleep(0.02)


def _write_end_holders(inodes: set[int]) -> set[int]:
    """Processes (other than this one) holding the write end of one of these pipes open, found through /proc (Linux).

    Only the client and its descendants ever had the write ends (the harness closed its own copies when it started
    the client), so this finds the descendants that left the client's process group and session (setsid) but kept
    its stdout or stderr. Elsewhere, or for processes that are not ours to inspect, it finds nothing."""
    targets = {f"pipe:[{inode}]" for inode in inodes}
    me, found = os.getpid(), set[int]()
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        if pid == me:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") not in targets:
                    continue
                with open(f"/proc/{pid}/fdinfo/{fd}", encoding="ascii") as info:
                    flags = next((int(line.split()[1], 8) for line in info if line.startswith("flags:")), 0)
            except (OSError, ValueError, IndexError):
                continue
            if flags & os.O_ACCMODE != os.O_RDONLY:
                found.add(pid)
                break
    return found


def kill_escaped(pipes: list[IO[bytes]]) -> list[int]:
    """Once a client and its process group are gone: kill whoever still holds the write end of its output pipes (a
    process that left the group with setsid); the pids killed."""
    inodes = set()
    for pipe in pipes:
        try:
            inodes.add(os.fstat(pipe.fileno()).st_ino)
        except (OSError, ValueError, AttributeError):
            pass
    killed: list[int] = []
    for pid in sorted(_write_end_holders(inodes)) if inodes else []:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    return killed


def _close_pipes(tails: list[_Tail], pipes: list[IO[bytes]]) -> list[int]:
    """Wait (briefly) for the output pipes to reach end of file; then kill whoever still holds their write ends (a
    process that escaped the process group) and wait a little more. Returns the pids killed."""
    inodes = set()
    for pipe in pipes:
        try:
            inodes.add(os.fstat(pipe.fileno()).st_ino)
        except (OSError, ValueError, AttributeError):
            pass
    deadline = time.monotonic() + PIPE_GRACE_S
    for tail in tails:
        tail.thread.join(max(0.0, deadline - time.monotonic()))
    killed: list[int] = []
    deadline = time.monotonic() + PIPE_WAIT_S
    while inodes and any(t.thread.is_alive() for t in tails) and time.monotonic() < deadline:
        for pid in sorted(_write_end_holders(inodes) - set(killed)):
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
        for tail in tails:
            tail.thread.join(min(0.05, max(0.0, deadline - time.monotonic())))
    return killed


def run(
    argv: list[str],
    env: dict[str, str],
    timeout: float,
    cwd: str | None = None,
    *,
    stopper: Stopper | None = None,
    on_start: Callable[[int], None] | None = None,
) -> Finished:
    """Run argv to completion or timeout. The whole process group is killed either way, and at once when `stopper`
    stops the run. `on_start` is told the client's process group once it runs (schedule.Ticket.started)."""
    started = time.monotonic()
    if stopper is not None and stopper.stopped:
        return Finished(None, 0.0, False, "", "", interrupted=True)
    try:
        proc = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return Finished(None, 0.0, False, "", "", f"cannot start {argv[0]!r}: {exc.strerror or exc}")
    assert proc.stdout is not None and proc.stderr is not None  # both are PIPEs
    out, err = _Tail(proc.stdout), _Tail(proc.stderr)
    if on_start is not None:
        on_start(proc.pid)
    timed_out = interrupted = False
    if stopper is not None and not stopper.enter(proc.pid):
        kill_group(proc.pid, proc)  # the run was stopped while this client started
        interrupted = True
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        kill_group(proc.pid, proc)  # children the client left behind go too
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if stopper is not None and stopper.leave(proc.pid):
            interrupted = True
    duration = time.monotonic() - started
    # A descendant that left the process group (setsid) and kept stdout or stderr open is found and killed too.
    escaped = _close_pipes([out, err], [proc.stdout, proc.stderr])
    for tail, pipe in ((out, proc.stdout), (err, proc.stderr)):
        if pipe is not None and not tail.thread.is_alive():
            pipe.close()
    stderr = err.text()
    if escaped:
        stderr += (
            f"\n[a2a-lab: killed {len(escaped)} process{'es' if len(escaped) > 1 else ''} "
            "that left the client's process group "
            f"but kept its output open: pid {', '.join(map(str, escaped))}]\n"
        )
    return Finished(
        None if timed_out else proc.returncode,
        duration,
        timed_out,
        out.text(),
        stderr,
        escaped=escaped,
        interrupted=interrupted,
    )
