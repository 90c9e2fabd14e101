"""Harness overhead: the whole catalogue with the reference client at -j 1 and -j 2, and the harness's own cost
per scenario (server start + journal scoring, without the client's process).

    python benchmarks/bench_harness.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(jobs: int, report: Path) -> float:
    began = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "run", "-j", str(jobs), "--json", str(report)],
        capture_output=True,
        text=True,
        check=False,
    )
    return time.monotonic() - began


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for jobs in (1, 2):
            path = Path(tmp) / f"j{jobs}.json"
            wall = run(jobs, path)
            report = json.loads(path.read_text())
            costs = [s["harness_cost"] * 1000 for s in report["scenarios"]]
            client = [s["client"]["duration"] for s in report["scenarios"] if s.get("client")]
            rows.append(
                (
                    jobs,
                    len(costs),
                    wall,
                    statistics.median(costs),
                    max(costs),
                    sum(client),
                    report["summary"]["verdict"],
                )
            )
    print(
        f"{'-j':>3} {'scenarios':>9} {'wall s':>8} {'harness median ms':>18} {'harness max ms':>15} "
        f"{'client total s':>15}  verdict"
    )
    for jobs, n, wall, med, worst, client, verdict in rows:
        print(f"{jobs:>3} {n:>9} {wall:>8.1f} {med:>18.1f} {worst:>15.1f} {client:>15.1f}  {verdict}")


if __name__ == "__main__":
    main()
