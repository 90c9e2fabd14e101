"""Ignores SIGTERM, SIGINT and SIGHUP, and so does its child; both sleep forever. Only SIGKILL ends them."""

from __future__ import annotations

import os
import signal

from _common import read_pids, report_pids, sleep_forever, tell

for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)
r, w = os.pipe()
if os.fork() == 0:
    os.close(r)
    tell(w)
    sleep_forever()
os.close(w)
report_pids("stubborn", [os.getpid(), *read_pids(r, 1)])
print("stubborn: ignoring SIGTERM", flush=True)
sleep_forever()
