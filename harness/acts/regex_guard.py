"""`matches` (ACTS §5.1) under a time bound: a regular expression from an ACTS file searched in a text from the server
under test, in a worker process that is killed when the search runs past its time.

Python's `re` backtracks, and a search cannot be interrupted from inside the process (the engine holds the GIL), so a
pattern such as `(a+)+$` against a long run of `a`s would stall the whole run for hours. The worker is one small
interpreter (`python -I`, the standard library only), started with the first search and kept for the next ones: a
search costs a round trip on a pipe. A search that takes longer than the bound kills the worker (the next search
starts another) and the search answers None, which fails the assertion saying so.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time

#: How long one search may take.
SEARCH_SECONDS = 1.0
#: How long the worker may take to start (an interpreter without site packages: some 20 ms; a loaded machine: more).
START_SECONDS = 10.0

_WORKER = r"""
import json, re, sys
cache = {}
for line in sys.stdin:
    ask = json.loads(line)
    try:
        pattern = cache.get(ask[0])
        if pattern is None:
            if len(cache) > 256:
                cache.clear()
            pattern = cache[ask[0]] = re.compile(ask[0])
        said = [pattern.search(ask[1]) is not None, ""]
    except Exception as exc:
        said = [False, f"{type(exc).__name__}: {exc}"]
    sys.stdout.write(json.dumps(said) + "\n")
    sys.stdout.flush()
"""


class _Worker:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"PYTHONIOENCODING": "utf-8", "PATH": os.environ.get("PATH", "")},
        )
        self.pending = b""
        if self.ask("", "", START_SECONDS) is None:  # ready: the interpreter has started
            raise OSError("the search worker did not start")

    def ask(self, pattern: str, text: str, seconds: float) -> tuple[bool, str] | None:
        """(found, the compile error or ""), or None when no answer came within `seconds`."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps([pattern, text]).encode() + b"\n")
        self.proc.stdin.flush()
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + seconds
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        found, problem = json.loads(line)
        return bool(found), str(problem)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


_lock = threading.Lock()
_worker: _Worker | None = None


def search(pattern: str, text: str, seconds: float = SEARCH_SECONDS) -> bool | None:
    """Whether `pattern` is found in `text` (re.search); None when the search takes longer than `seconds` (or the
    worker cannot run); ValueError for a pattern `re` does not compile (the reader refuses those first)."""
    global _worker
    with _lock:
        try:
            if _worker is None or _worker.proc.poll() is not None:
                _worker = _Worker()
            said = _worker.ask(pattern, text, seconds)
        except (OSError, ValueError):
            said = None
        if said is None:
            if _worker is not None:
                _worker.close()
            _worker = None
            return None
    found, problem = said
    if problem:
        raise ValueError(problem)
    return found


def close() -> None:
    """Stop the worker (the next search starts another)."""
    global _worker
    with _lock:
        if _worker is not None:
            _worker.close()
            _worker = None
