"""Shared by the hostile clients: where to report pids (HOSTILE_PID_DIR/<client>.json), and a pipe to collect them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def report_pids(name: str, pids: list[int]) -> None:
    folder = os.environ.get("HOSTILE_PID_DIR")
    if folder:
        Path(folder, f"{name}.json").write_text(json.dumps(pids), encoding="utf-8")


def read_pids(fd: int, count: int) -> list[int]:
    """Block until `count` pids (one per line) have been written to the pipe `fd`."""
    pids: list[int] = []
    with os.fdopen(fd, "r", encoding="ascii") as pipe:
        for line in pipe:
            pids.append(int(line))
            if len(pids) == count:
                break
    return pids


def tell(fd: int) -> None:
    os.write(fd, f"{os.getpid()}\n".encode("ascii"))


def sleep_forever() -> None:
    while True:
        try:
            os.pause() if hasattr(os, "pause") else __import__("time").sleep(3600)
        except InterruptedError:
            pass


def card_url() -> str:
    return os.environ.get("A2A_LAB_CARD_URL") or sys.argv[-1]
