"""Which scenario runs when: `-j`'s slots are CPU slots, and a scenario whose client waits on the server does not hold
one.

Some scenarios make a correct client wait by design (a server that answers late, or never; a task that works for
seconds): its client is off the CPU (its process group's CPU time stands still while its wall time runs). A watcher
samples the CPU time of every client in flight (Linux: /proc). A scenario whose client used less than IDLE_SHARE of a
CPU over a WINDOW_S, is not waiting for a CPU either (no process of its group in state R), while the harness's own
process is not busy serving (HARNESS_BUSY: every server shares its one interpreter), gives its slot up, so another
scenario starts; it takes one back when its client is busy again (which may leave more than `-j` busy for a while: a
slot is never taken from a running client). At most CEILING x `-j` scenarios are in flight at once. Scenarios start
in `order`'s order: the longest expected waits first (a scenario's own time limit says how long it expects its client
to take), so that a long wait overlaps the rest rather than ending the run alone. Where /proc is not there, nothing is
sampled and `-j` is what it was: N at a time.

Verdicts do not depend on it: every scenario still has its own server, its own time limit and its own client.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from a2a_lab.contract.scenario import Scenario

#: How often the clients in flight are sampled, and over how long a client's CPU share is judged.
WINDOW_S = 0.25
#: A client that used less than this share of one CPU over a window is waiting.
IDLE_SHARE = 0.1
#: A waiting client that used more than this share over a window is busy again.
BUSY_SHARE = 0.5
#: Scenarios in flight at most, per CPU slot.
CEILING = 4
#: The harness's own process (it serves every scenario, on one interpreter lock) using this share of a CPU or more is
#: busy: a client waiting on a server is then waiting on the harness, and gives no slot up.
HARNESS_BUSY = 0.75
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def auto_jobs() -> int:
    """`-j auto`: one CPU slot per core this process may run on (waiting scenarios come on top, see the module)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def order(scenarios: Iterable[Scenario]) -> list[Scenario]:
    """The order scenarios start in: the longest time limits (the longest expected waits) first, then by id."""
    return sorted(scenarios, key=lambda s: (-s.timeout, s.id))


def group_cpu(pgids: set[int]) -> dict[int, tuple[float, bool]]:
    """Per process group: the CPU seconds (user + system) of its processes, and whether one of them is running or
    waiting for a CPU (state R: a client starved by a busy machine is not waiting on the server), from /proc (empty
    where there is none)."""
    out: dict[int, tuple[float, bool]] = {}
    if not pgids:
        return out
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()
        try:
            state, pgrp, utime, stime = fields[0], int(fields[2]), int(fields[11]), int(fields[12])
        except (IndexError, ValueError):
            continue
        if pgrp in pgids:
            cpu, running = out.get(pgrp, (0.0, False))
            out[pgrp] = (cpu + (utime + stime) / _TICKS, running or state == "R")
    return out


@dataclass
class Ticket:
    """One scenario in flight: whether it holds a CPU slot, and its client's process group once started."""

    holding: bool = True
    pgid: int | None = None
    cpu: float | None = None
    #: When `cpu` was read (time.monotonic()).
    at: float = 0.0

    def __post_init__(self) -> None:
        self._slots: Slots | None = None

    def started(self, pgid: int) -> None:
        """The scenario's client runs in process group `pgid` (process.run and the loop client call this)."""
        if self._slots is not None:
            self._slots.watch(self, pgid)


class Slots:
    """`cpu` CPU slots, and at most `cpu` x CEILING scenarios in flight; `watching=False`: exactly `cpu` at a time."""

    def __init__(self, cpu: int, watching: bool = True) -> None:
        self.cpu = max(1, cpu)
        self.ceiling = self.cpu * CEILING if watching and os.path.isdir("/proc") else self.cpu
        self._cond = threading.Condition()
        self._busy = 0
        self._flight: list[Ticket] = []
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        #: The most scenarios in flight at once, and how often a waiting client gave its slot up (for reports).
        self.most = 0
        self.released = 0

    def __enter__(self) -> Slots:
        if self.ceiling > self.cpu:
            self._watcher = threading.Thread(target=self._watch, name="a2a-lab-slots", daemon=True)
            self._watcher.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join()

    def acquire(self) -> Ticket:
        """Wait for a free CPU slot (and room in flight); the ticket holds it."""
        with self._cond:
            while self._busy >= self.cpu or len(self._flight) >= self.ceiling:
                self._cond.wait()
            ticket = Ticket()
            ticket._slots = self
            self._busy += 1
            self._flight.append(ticket)
            self.most = max(self.most, len(self._flight))
            return ticket

    def release(self, ticket: Ticket) -> None:
        with self._cond:
            if ticket in self._flight:
                self._flight.remove(ticket)
                if ticket.holding:
                    self._busy -= 1
            self._cond.notify_all()

    def watch(self, ticket: Ticket, pgid: int) -> None:
        with self._cond:
            ticket.pgid, ticket.cpu = pgid, None

    def _watch(self) -> None:
        own, own_at = time.process_time(), time.monotonic()
        while not self._stop.wait(WINDOW_S):
            with self._cond:
                watched = [t for t in self._flight if t.pgid is not None]
            used = group_cpu({t.pgid for t in watched if t.pgid is not None})
            was, was_at = own, own_at
            own, own_at = time.process_time(), time.monotonic()
            serving = (own - was) / max(own_at - was_at, WINDOW_S) >= HARNESS_BUSY
            with self._cond:
                for ticket in watched:
                    sample = used.get(ticket.pgid or 0)
                    if sample is None or ticket not in self._flight:
                        continue
                    now, running = sample
                    moment = time.monotonic()
                    share = None if ticket.cpu is None else (now - ticket.cpu) / max(moment - ticket.at, WINDOW_S)
                    ticket.cpu, ticket.at = now, moment
                    if share is None:
                        continue
                    if ticket.holding and share < IDLE_SHARE and not running and not serving:
                        ticket.holding = False
                        self._busy -= 1
                        self.released += 1
                    elif not ticket.holding and share > BUSY_SHARE:
                        ticket.holding = True
                        self._busy += 1
                self._cond.notify_all()
