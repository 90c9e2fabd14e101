"""A command the docs' tests run in the background as a reader would in a second terminal (`a2a-lab serve ...`):
its stderr read to the end on a thread (so a server's log never fills the pipe), read line by line until the
command says it is ready, and stopped at the end."""

from __future__ import annotations

import queue
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path


class Background:
    """`bash -e -c 'exec COMMAND'` in `cwd` with `env`; `ready` is given each stderr line until it says True."""

    def __init__(
        self, command: str, cwd: Path, env: dict[str, str], ready: Callable[[str], bool], timeout: float
    ) -> None:
        self.command, self.timeout = command, timeout
        self.process = subprocess.Popen(
            ["bash", "-e", "-c", "exec " + command], cwd=cwd, env=env, stderr=subprocess.PIPE, text=True
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        try:
            self._wait(ready)
        except BaseException:
            self.stop()
            raise

    def _wait(self, ready: Callable[[str], bool]) -> None:
        said = ""
        while True:
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                raise AssertionError(f"{self.command!r} was not ready in {self.timeout} s:\n{said}") from None
            assert line is not None, f"{self.command!r} ended before it was ready:\n{said}"
            said += line
            if ready(line):
                return

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._lines.put(line)
        self._lines.put(None)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(self.timeout)
