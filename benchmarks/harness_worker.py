"""Runs scenarios the way `a2a-lab run` does (runner.run_all on local servers, no report files) with whichever a2a_lab
this interpreter imports, and prints one JSON object: the tree it ran, the wall time, and each scenario's timings
(and, with --journals, its journal). Run by bench_harness.py and same_journals.py under each tree they compare
(trees.py); it uses only what every compared tree has.

    python benchmarks/harness_worker.py --client true -j 1 [--scenario ID ...] [--journals]
    python benchmarks/harness_worker.py --list
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from a2a_lab.contract import handshake
from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.cli import presets
from a2a_lab.harness.client_judging import process, runner


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--client", default="true")
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--scenario", action="append", help="an id to run (repeatable; default: every scenario)")
    p.add_argument("--journals", action="store_true", help="include each scenario's journal")
    p.add_argument("--list", action="store_true", help="only list the catalogue's ids")
    args = p.parse_args()
    catalogue = Catalogue.load()
    everything = catalogue.select(None, None)
    tree = str(Path(runner.__file__).resolve().parent.parent)
    if args.list:
        json.dump({"tree": tree, "ids": [s.id for s in everything]}, sys.stdout)
        return
    wanted = set(args.scenario or [s.id for s in everything])
    scenarios = [s for s in everything if s.id in wanted]
    if missing := wanted - {s.id for s in scenarios}:
        raise SystemExit(f"not in this tree's catalogue: {sorted(missing)}")

    cpu: dict[str, float] = {}
    if args.jobs == 1:  # one client at a time: the children's CPU time around process.run is this client's
        run_client = process.run

        def measured(argv: list[str], env: dict[str, str], timeout: float, cwd: str | None = None, **more: Any) -> Any:
            before = children_cpu()
            finished = run_client(argv, env, timeout, cwd, **more)  # `more`: a stopper, in trees that pass one
            cpu[env[handshake.ENV_SCENARIO]] = children_cpu() - before
            return finished

        process.run = measured

    opts = runner.RunOptions(presets.resolve(args.client), 0, None, args.jobs)
    began, own, children = time.monotonic(), time.process_time(), children_cpu()
    raws = runner.execute_all(scenarios, opts)
    results, _ = runner.score_all(raws, opts)
    wall = time.monotonic() - began
    cpu_total = {"harness": time.process_time() - own, "clients": children_cpu() - children}
    rows = []
    for raw, result in zip(raws, results, strict=True):
        teardown = getattr(raw, "teardown_cost", None)  # trees before issue 18 do not record it
        client = raw.duration - raw.setup_cost - teardown if teardown is not None else raw.client.duration
        row: dict[str, Any] = {
            "id": raw.scenario.id,
            "outcome": result.outcome.value,
            "duration": raw.duration,
            "setup": raw.setup_cost,
            "client": client,
            "teardown": raw.duration - raw.setup_cost - client,
            "scoring": result.harness_cost - raw.setup_cost,
            "client_cpu": cpu.get(raw.scenario.id),
        }
        if args.journals:
            row["journal"] = raw.journal
        rows.append(row)
    json.dump({"tree": tree, "wall": wall, "cpu": cpu_total, "scenarios": rows}, sys.stdout)


if __name__ == "__main__":
    main()
