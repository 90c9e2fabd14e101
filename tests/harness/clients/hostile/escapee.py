"""Leaves the client's process group and session: a child calls setsid() and forks a grandchild; both keep the
client's stdout and stderr open and sleep. The client itself exits 0 at once."""

from __future__ import annotations

import os

from _common import read_pids, report_pids, sleep_forever, tell

r, w = os.pipe()
if os.fork() == 0:
    os.close(r)
    os.setsid()
    if os.fork() == 0:
        tell(w)
        sleep_forever()
    tell(w)
    sleep_forever()
os.close(w)
report_pids("escapee", [os.getpid(), *read_pids(r, 2)])
print("escapee: two processes in a session of their own, holding stdout", flush=True)
