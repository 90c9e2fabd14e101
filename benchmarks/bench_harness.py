"""Harness overhead (issue 18), before and after side by side in one run.

    python benchmarks/bench_harness.py                      # before = 581f9cf~1, the code before issue 18's changes
    python benchmarks/bench_harness.py --before main --rounds 9 --no-reference

Two trees run the same scenarios (those both catalogues hold) through harness_worker.py, which runs them as
`a2a-lab run` does (runner.run_all, a fresh server per scenario, no report files): this working tree, and the
`--before` commit exported by trees.py. Rounds alternate which tree goes first.

1. A client that does nothing (`true`) at -j 1: the harness's overhead per scenario (its duration plus its share of
   the scoring), median and p90 over every scenario of every round, and where it goes: setup (the app, the socket,
   the server's start), the client process (spawning and reaping `true`, collecting its output), teardown (the
   result file, the journal, the server's stop), scoring.
2. The reference client (`builtin`) over the catalogue at -j 1 and -j 2, and at -j 2 without the scenarios that make
   a correct client wait by design. Those are found in the -j 1 run: a client that spends WAIT_S or more of its
   wall time off the CPU (its process's CPU time, measured around each client at -j 1) is waiting for the server
   (delays, never-answers, polling) by the scenario's design.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

import trees

#: A client off the CPU this long is waiting by the scenario's design (a client process that does its work spends
#: about 0.1 s of its wall time waiting: the server's answers, its own start).
WAIT_S = 1.0
DEFAULT_BEFORE = "581f9cf~1"


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else values[0]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def noop(before: trees.Tree, after: trees.Tree, ids: list[str], rounds: int) -> None:
    runs: dict[str, list[dict[str, Any]]] = {before.label: [], after.label: []}
    for r in range(rounds):
        for t in (before, after) if r % 2 == 0 else (after, before):
            runs[t.label].append(t.worker("--client", "true", "-j", "1", *scenario_args(ids)))
    print(f"\n## A client that does nothing (`true`), -j 1: {len(ids)} scenarios, {rounds} rounds\n")
    print(
        "| tree | per scenario, median ms | p90 ms | setup | client process | teardown | scoring | wall / scenario ms |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for t in (before, after):
        rows = [row for run in runs[t.label] for row in run["scenarios"]]
        total = [row["duration"] + row["scoring"] for row in rows]
        parts = [statistics.median(row[k] for row in rows) for k in ("setup", "client", "teardown", "scoring")]
        wall = statistics.median(run["wall"] / len(run["scenarios"]) for run in runs[t.label])
        cells = [ms(statistics.median(total)), ms(p90(total)), *map(ms, parts), ms(wall)]
        print(f"| {t.label} ({t.ref}) | " + " | ".join(cells) + " |")
    print("\n(setup, client process, teardown and scoring: medians of each part alone.)")


def scenario_args(ids: list[str]) -> list[str]:
    return [arg for sid in ids for arg in ("--scenario", sid)]


def reference(before: trees.Tree, after: trees.Tree, ids: list[str]) -> None:
    one = {t.label: t.worker("--client", "builtin", "-j", "1", *scenario_args(ids)) for t in (after, before)}
    waits: dict[str, dict[str, float]] = {}
    for label, run in one.items():
        waits[label] = {
            row["id"]: row["client"] - row["client_cpu"] for row in run["scenarios"] if row["client_cpu"] is not None
        }
    waiting = sorted(sid for sid, idle in waits[after.label].items() if idle >= WAIT_S)
    quick = [sid for sid in ids if sid not in waiting]
    two = {t.label: t.worker("--client", "builtin", "-j", "2", *scenario_args(ids)) for t in (before, after)}
    two_quick = {t.label: t.worker("--client", "builtin", "-j", "2", *scenario_args(quick)) for t in (after, before)}

    print(f"\n## The reference client (`builtin`): {len(ids)} scenarios\n")
    print(
        "| tree | -j 1 wall s | -j 2 wall s | -j 2 without the waits, wall s | client processes at -j 1: median s "
        "| their CPU, median s | CPU s at -j 2 without the waits: harness, clients | PASS (-j 1, -j 2, -j 2 without) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for t in (before, after):
        rows = one[t.label]["scenarios"]
        passes = [
            sum(row["outcome"] == "PASS" for row in run["scenarios"])
            for run in (one[t.label], two[t.label], two_quick[t.label])
        ]
        cells = [
            f"{one[t.label]['wall']:.1f}",
            f"{two[t.label]['wall']:.1f}",
            f"{two_quick[t.label]['wall']:.1f}",
            f"{statistics.median(row['client'] for row in rows):.2f}",
            f"{statistics.median(row['client_cpu'] for row in rows):.2f}",
            "{harness:.1f}, {clients:.1f}".format(**two_quick[t.label]["cpu"]),
            f"{passes[0]}, {passes[1]}, {passes[2]} of {len(ids)}, {len(ids)}, {len(quick)}",
        ]
        print(f"| {t.label} ({t.ref}) | " + " | ".join(cells) + " |")
    total = {sid: row["client"] for row in one[after.label]["scenarios"] for sid in [row["id"]]}
    share = sum(total[s] for s in waiting) / sum(total.values())
    print(
        f"\nWaiting by design (the client off the CPU for {WAIT_S:g} s or more at -j 1, {after.label}): "
        f"{len(waiting)} of {len(ids)} scenarios, {share:.0%} of the client processes' wall time at -j 1:\n"
    )
    print(f"| scenario | client wall s ({after.label}) | of which waiting s | waiting s ({before.label}) |")
    print("|---|---|---|---|")
    for sid in waiting:
        print(f"| {sid} | {total[sid]:.1f} | {waits[after.label][sid]:.1f} | {waits[before.label].get(sid, 0.0):.1f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--before", default=DEFAULT_BEFORE, help=f"the git commit to compare with (default {DEFAULT_BEFORE})"
    )
    p.add_argument("--rounds", type=int, default=5, help="rounds of the no-op client (default 5)")
    p.add_argument("--no-reference", action="store_true", help="skip the reference client's runs (~6 minutes)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="a2a-lab-bench-") as scratch:
        after = trees.tree("after", trees.HERE, Path(scratch))
        before = trees.tree("before", args.before, Path(scratch))
        listed = [t.worker("--list")["ids"] for t in (before, after)]
        ids = [sid for sid in listed[1] if sid in set(listed[0])]
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
        print(f"before: {before.ref}; after: {after.ref}; {len(ids)} scenarios in both catalogues")
        noop(before, after, ids, args.rounds)
        if not args.no_reference:
            reference(before, after, ids)
        print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
