"""Forks ten children, each of which forks a grandchild; all of them sleep with stdout and stderr open. Then exits 0
at once. The harness must kill the whole family (they share the client's process group)."""

from __future__ import annotations

import os

from _common import read_pids, report_pids, sleep_forever, tell

CHILDREN = 10

r, w = os.pipe()
for _ in range(CHILDREN):
    if os.fork() == 0:
        os.close(r)
        if os.fork() == 0:
            tell(w)
            sleep_forever()
        tell(w)
        sleep_forever()
os.close(w)
report_pids("forker", [os.getpid(), *read_pids(r, 2 * CHILDREN)])
print("forker: 20 descendants left sleeping", flush=True)
