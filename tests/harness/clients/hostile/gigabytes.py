"""Writes 1 GiB to stdout in 1 MiB writes (and some to stderr), then a last line. Exits 0."""

from __future__ import annotations

import os

from _common import report_pids

MIB = 1 << 20
report_pids("gigabytes", [os.getpid()])
block = (b"x" * (MIB - 1)) + b"\n"
for i in range(1024):
    os.write(1, block)
    if i % 64 == 0:
        os.write(2, b"e" * 4096 + b"\n")
os.write(1, b"THE-END-OF-A-GIGABYTE\n")
