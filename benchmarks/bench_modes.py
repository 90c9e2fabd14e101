"""Time to verdict (issue 32): the three ways to run a client, side by side in one run.

    python benchmarks/bench_modes.py                                  # the whole catalogue, 3 rounds (long: see below)
    python benchmarks/bench_modes.py --rounds 1 --scenario 'spec/*' --scenario 'quirks/*' --jobs 2 auto

For each client, mode and `-j`, in a fresh interpreter (`--worker`), the scenarios are run the way `a2a-lab run`
runs them (runner.execute_all and score_all on fresh local servers; in-process: inprocess.run_async), and the wall
time is taken; the table gives the median over the rounds (the order of the configurations rotates from round to
round) and how many scenarios passed. The clients:

- `builtin`: the reference client: a process per scenario (`python -m a2a_lab.harness.clients.refclient {card_url}`),
one
  per worker (`--loop`), or in process (its `one_scenario` in a thread per scenario, via asyncio.to_thread);
- `slow-start`: the same after 3 s asleep at its start (an agent framework's imports): in every process, once per
  loop client, once per in-process run;
- `no-op` (`--overhead`, -j 1): a client that does nothing (`true`; a loop client that answers `a2a-lab: done` at
  once; an async function returning None): the wall time per scenario is the harness's own overhead.

A whole-catalogue round is long with a client process per scenario (the reference client about 3 min at -j 1, the
slow-start one about 9 min): narrow with --scenario, --jobs, --modes, --clients.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
MODES = ("process", "loop", "in-process")
CLIENTS = ("builtin", "slow-start")
START_S = 3.0
LOOP_NOOP = "import sys\nfor _ in sys.stdin:\n    print('a2a-lab: done', flush=True)\n"
SLOW = (
    "import sys, time; time.sleep({s}); "
    "from a2a_lab.harness.clients.refclient.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


def command(client: str, mode: str) -> str:
    python = shlex.quote(sys.executable)
    if client == "no-op":
        return "true" if mode == "process" else f"{python} -c {shlex.quote(LOOP_NOOP)}"
    tail = "--loop" if mode == "loop" else "{card_url}"
    if client == "builtin":
        return f"{python} -m a2a_lab.harness.clients.refclient {tail}"
    return f"{python} -c {shlex.quote(SLOW.format(s=START_S))} {tail}"


def in_process_client(client: str) -> Any:
    """An async client for inprocess.run_async: the reference client in a thread per scenario (slow-start: after
    START_S once), or a no-op."""
    from a2a_lab.harness.clients.refclient import command_line as client_command

    parser = argparse.ArgumentParser()
    client_command.add_arguments(parser)
    args = parser.parse_args([])
    woken: list[bool] = []

    async def run(job: Any) -> None:
        if client == "no-op":
            return None
        if client == "slow-start" and not woken:
            woken.append(True)
            await asyncio.sleep(START_S)
        await asyncio.to_thread(client_command.one_scenario, args, {**os.environ, **job.env})
        return None

    return run


def worker(client: str, mode: str, jobs: str, globs: list[str]) -> dict[str, Any]:
    from a2a_lab.contract.catalogue import Catalogue
    from a2a_lab.harness import inprocess
    from a2a_lab.harness.client_judging import runner, schedule

    scenarios = Catalogue.load().choose(globs or None, files=False)
    n = schedule.auto_jobs() if jobs == "auto" else int(jobs)
    began = time.monotonic()
    if mode == "in-process":
        sys.stdout = io.StringIO()  # the reference client prints what it understood
        outcome = asyncio.run(inprocess.run_async(in_process_client(client), scenarios, jobs=n))
        sys.stdout = sys.__stdout__
        results = outcome.results
    else:
        opts = runner.RunOptions(command(client, mode), jobs=n, client_mode=mode)
        results, _ = runner.score_all(runner.execute_all(scenarios, opts), opts)
    wall = time.monotonic() - began
    others = [f"{r.id} {r.outcome.value}" for r in results if r.outcome.value != "PASS"] if client != "no-op" else []
    return {
        "wall": wall,
        "n": len(results),
        "passed": sum(r.outcome.value == "PASS" for r in results),
        "others": others,
    }


def measure(client: str, mode: str, jobs: str, globs: list[str]) -> dict[str, Any]:
    argv = [sys.executable, str(HERE), "--worker", client, mode, jobs, *(a for g in globs for a in ("--scenario", g))]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{client} {mode} -j {jobs} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--scenario", action="append", default=[], help="an id or glob (default: the whole catalogue)")
    p.add_argument("--jobs", nargs="+", default=["1", "2", "auto"])
    p.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    p.add_argument("--clients", nargs="+", default=list(CLIENTS), choices=CLIENTS)
    p.add_argument("--no-overhead", action="store_true", help="skip the no-op client's rows")
    p.add_argument("--worker", nargs=3, metavar=("CLIENT", "MODE", "JOBS"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        client, mode, jobs = args.worker
        print(json.dumps(worker(client, mode, jobs, args.scenario)))
        return
    configs = [(c, m, j) for c in args.clients for m in args.modes for j in args.jobs]
    if not args.no_overhead:
        configs += [("no-op", m, "1") for m in args.modes]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    runs: dict[tuple[str, str, str], list[dict[str, Any]]] = {c: [] for c in configs}
    for r in range(args.rounds):
        shift = r % len(configs)
        for config in configs[shift:] + configs[:shift]:
            runs[config].append(measure(*config, args.scenario))
            print(f"round {r + 1}: {' '.join(config)}: {runs[config][-1]['wall']:.1f} s", file=sys.stderr)
    print(f"\nSelection: {' '.join(args.scenario) or 'the whole catalogue'}; {args.rounds} round(s), medians\n")
    print("| client | mode | -j | wall s | per scenario ms | PASS |")
    print("|---|---|---|---|---|---|")
    for config in configs:
        rows = runs[config]
        wall = statistics.median(row["wall"] for row in rows)
        n = rows[0]["n"]
        cells = [*config, f"{wall:.1f}", f"{wall / n * 1000:.0f}", f"{rows[0]['passed']} of {n}"]
        print("| " + " | ".join(cells) + " |")
    for config in configs:
        for r, row in enumerate(runs[config], 1):
            if row.get("others"):
                print(f"- {' '.join(config)}, round {r}, not PASS: {', '.join(row['others'])}")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
