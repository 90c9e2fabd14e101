"""Accept loops that back off when the process runs out of file descriptors, instead of spinning and logging.

A client that opens more connections than the process may hold files makes every accept() fail with EMFILE while
the listening socket stays readable. asyncio (3.11) then logs a traceback for each of the backlog's pending
connections and schedules as many retries (a flood of 5 000 connections wrote 62 MB of log); socketserver retries
at once, forever. Every a2a-lab accept loop instead stops accepting for a while (from MIN_PAUSE_S, doubling up to
MAX_PAUSE_S while nothing can be accepted), and says so at most once per LOG_EVERY_S (with how many pauses it made
since)."""

from __future__ import annotations

import errno
import logging
import math
import time

#: accept() errors that mean "out of a resource", not "this one connection failed".
RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: How long a listener stops accepting after such an error: MIN_PAUSE_S after it accepted a connection since its last
#: pause (descriptors are coming free), twice its last pause otherwise, up to MAX_PAUSE_S. Connections wait in the
#: kernel's backlog meanwhile.
MIN_PAUSE_S = 0.01
MAX_PAUSE_S = 0.5
#: At most one warning this often, per listener.
LOG_EVERY_S = 10.0


class Backoff:
    """One listener's back-off: how long to stop accepting after an accept() error, and a rate-limited warning."""

    def __init__(self, logger: logging.Logger, what: str) -> None:
        self.logger, self.what = logger, what
        #: The last pause (0: none yet).
        self.pause_s = 0.0
        #: Pauses since the last warning.
        self.pauses = 0
        self._warned_at = -math.inf

    def exhausted(self, exc: OSError, progress: bool) -> float | None:
        """How long to stop accepting when `exc` means the process is out of resources (else None). `progress`: the
        listener accepted a connection since its last pause."""
        if exc.errno not in RESOURCE_ERRNOS:
            return None
        self.pause_s = MIN_PAUSE_S if progress or not self.pause_s else min(2 * self.pause_s, MAX_PAUSE_S)
        self.pauses += 1
        now = time.monotonic()
        if now - self._warned_at >= LOG_EVERY_S:
            self.logger.warning(
                "a2a-lab: %s cannot accept connections (%s): it stops accepting for %g to %g s at a time "
                "(%d time(s) since the last warning; the next warning in %g s at the earliest)",
                self.what,
                exc.strerror or errno.errorcode.get(exc.errno or 0, exc),
                MIN_PAUSE_S,
                MAX_PAUSE_S,
                self.pauses,
                LOG_EVERY_S,
            )
            self.pauses = 0
            self._warned_at = now
        return self.pause_s
