"""What one `a2a-lab ui` keeps while it runs: the guard, the shared catalogue server (lab.py), the live pairs and runs
the pages opened, and the reports loaded or made; each kind bounded (the oldest goes first)."""

from __future__ import annotations

import secrets
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from a2a_lab.harness.ui.guard import UiGuard
from a2a_lab.harness.ui.lab import Lab
from a2a_lab.harness.ui.liverun import LiveRun
from a2a_lab.harness.ui.proxied import Pair

#: How many of each a UI keeps: pairs and runs hold a server each; reports may be large.
MAX_PAIRS = 8
MAX_RUNS = 8
MAX_REPORTS = 16

_T = TypeVar("_T")


def new_id() -> str:
    """An id for a page's pair, run or report (random: a URL of one is not guessable)."""
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


@dataclass
class UiState:
    guard: UiGuard
    lab: Lab
    #: Where live runs write their report folders (None: a fresh temporary folder at the first run).
    report_dir: Path | None = None
    pairs: OrderedDict[str, Pair] = field(default_factory=OrderedDict)
    runs: OrderedDict[str, LiveRun] = field(default_factory=OrderedDict)
    #: id -> (a name for people, the reports in the file).
    reports: OrderedDict[str, tuple[str, list[dict[str, Any]]]] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _runs_made: int = 0

    def add_pair(self, pair: Pair) -> None:
        with self._lock:
            self.pairs[pair.id] = pair
            while len(self.pairs) > MAX_PAIRS:
                _, oldest = self.pairs.popitem(last=False)
                oldest.close()

    def add_run(self, run: LiveRun) -> None:
        with self._lock:
            self.runs[run.id] = run
            while len(self.runs) > MAX_RUNS:
                self.runs.popitem(last=False)

    def add_report(self, name: str, reports: list[dict[str, Any]]) -> str:
        report_id = new_id()
        with self._lock:
            self.reports[report_id] = (name, reports)
            while len(self.reports) > MAX_REPORTS:
                self.reports.popitem(last=False)
        return report_id

    def run_folder(self) -> Path:
        """A new folder for a live run's reports."""
        with self._lock:
            if self.report_dir is None:
                self.report_dir = Path(tempfile.mkdtemp(prefix="a2a-lab-ui-"))
            self._runs_made += 1
            folder = self.report_dir / f"run-{self._runs_made}"
        return folder

    def close(self) -> None:
        """Stop every server the pages started."""
        with self._lock:
            for pair in self.pairs.values():
                pair.close()
            self.pairs.clear()
        self.lab.stop()
