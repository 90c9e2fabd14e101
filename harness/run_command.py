"""`a2a-lab run`: score a client against the catalogue and gate on the result."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from a2a_lab.protocol.cards import parse_support
from a2a_lab.server.catalogue import Catalogue

from . import presets, process, runner, scoring
from .baseline import Baseline, BaselineError
from .model import ClientRun, ScenarioResult
from .remote import RemoteError, RemoteServer
from .reports import console, html, json_report, junit

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_HARNESS = 0, 1, 2, 3


def add_report_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report")
    p.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    p.add_argument(
        "--report-dir",
        type=Path,
        metavar="DIR",
        help="write every format (JSON, JUnit, HTML) plus each scenario's journal as JSONL",
    )
    p.add_argument("--html", type=Path, metavar="DIR", help="write a self-contained HTML report to DIR/index.html")
    p.add_argument("--strict", action="store_true", help="also fail the gate on NON_STRICT (a SHOULD missed)")
    p.add_argument(
        "--baseline", type=Path, help="YAML/JSON of expected failures: {scenario-id: {CHECK-ID or '*': reason}}"
    )
    p.add_argument(
        "--client-supports",
        metavar="LIST",
        help="declare what the client supports, e.g. jsonrpc@1.0,jsonrpc@0.3 "
        "(default: inferred from what it uses anywhere in the run)",
    )
    p.add_argument("--scenario", action="append", metavar="GLOB", help="only scenarios whose id matches (repeatable)")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip scenarios whose id matches (repeatable)")
    p.add_argument("-v", "--verbose", action="store_true", help="show every miss in the scorecard")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--client",
        default="builtin",
        help="the client command (placeholders {card_url} {base_url}; without them the card URL is "
        f"appended), or a preset: {', '.join(presets.PRESETS)} (default: builtin)",
    )
    p.add_argument("-j", "--jobs", type=int, default=1, help="scenarios run in parallel (default 1)")
    p.add_argument("--timeout", type=float, help="seconds per scenario (default: each scenario's own)")
    p.add_argument("--seed", type=int, default=0, help="seed for every random choice (ids); recorded in every report")
    p.add_argument(
        "--server",
        metavar="URL",
        help="score against an already-running `a2a-lab serve` (e.g. in another container) instead of starting servers",
    )
    p.add_argument("--admin-token", help="the shared server's admin token (also A2A_LAB_ADMIN_TOKEN)")
    add_report_arguments(p)
    p.add_argument(
        "--shard",
        metavar="K/N",
        help="run only the K-th of N deterministic slices of the selected scenarios (for CI matrices; join with `a2a-lab report merge`)",
    )


def _check_client(command: str) -> None:
    """A client that cannot even be started is a usage error (exit 2), not a harness fault in every scenario."""
    try:
        argv = process.split(command)
    except ValueError as exc:
        raise presets.PresetError(f"--client {command!r} cannot be parsed: {exc}") from None
    if not argv:
        raise presets.PresetError("--client is empty")
    if shutil.which(argv[0]) is None:
        raise presets.PresetError(
            f"--client {argv[0]!r} is neither a preset ({', '.join(presets.PRESETS)}) nor a program found on PATH"
        )


def cmd_run(args: argparse.Namespace) -> int:
    err = lambda text: print(f"a2a-lab: {text}", file=sys.stderr)  # noqa: E731
    try:
        client = presets.resolve(args.client)
        _check_client(client)
        supports = parse_support(args.client_supports) if args.client_supports else None
        baseline = Baseline.load(args.baseline) if args.baseline else None
    except (presets.PresetError, ValueError, BaselineError) as exc:
        err(str(exc))
        return EXIT_USAGE
    if args.jobs < 1 or (args.timeout is not None and args.timeout <= 0):
        err("--jobs must be at least 1 and --timeout positive")
        return EXIT_USAGE
    cat = Catalogue.load()
    for sid, exc in sorted(cat.broken.items()):
        err(f"scenario {sid} is broken:\n  {exc}")
    if cat.broken:
        return EXIT_USAGE
    scenarios = cat.select(args.scenario, args.exclude)
    if args.shard:
        try:
            scenarios = shard(scenarios, args.shard)
        except ValueError as exc:
            err(str(exc))
            return EXIT_USAGE
    if not scenarios:
        err(
            f"no scenario matches {args.scenario or '*'} (minus {args.exclude or 'nothing'}); `a2a-lab scenarios` lists them"
        )
        return EXIT_USAGE
    opts = runner.RunOptions(client, args.seed, args.timeout, args.jobs, args.strict, supports, baseline)
    print(f"a2a-lab: {len(scenarios)} scenario(s), client: {client}, seed {args.seed}, -j {args.jobs}", file=sys.stderr)
    began = time.monotonic()

    def progress(raw: runner.RawRun, index: int, total: int) -> None:
        note = "timed out" if raw.client.timed_out else (raw.error or f"exit {raw.client.exit_code}")
        print(console.progress_line(index, total, raw.scenario.id, raw.duration, note), file=sys.stderr, flush=True)

    server = RemoteServer(args.server, args.admin_token) if args.server else None
    try:
        results, supported = runner.run_all(scenarios, opts, progress, server)
    except RemoteError as exc:
        err(str(exc))
        return EXIT_USAGE
    except Exception as exc:
        err(f"harness error: {type(exc).__name__}: {exc}")
        return EXIT_HARNESS
    meta = {
        "client": client,
        "seed": args.seed,
        "jobs": args.jobs,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "wall_time": round(time.monotonic() - began, 3),
        "shard": args.shard,
        "server": args.server,
    }
    return finish(results, supported, args, meta)


def finish(
    results: list[ScenarioResult],
    supported: set,
    args: argparse.Namespace,
    meta: dict,
    checks: Iterable[Any] | None = None,
) -> int:  # type: ignore[type-arg]
    """Scorecard, report files and the exit code: the same for `run`, `score` and `probe` (`checks`: the catalogue
    the results come from, when it is not the client checks')."""
    summary = scoring.summary(results, args.strict)
    console.scorecard(results, summary, verbose=args.verbose)
    meta = {**meta, "strict": args.strict, "supports": sorted(f"{b.value}@{v.value}" for b, v in supported)}
    report = json_report.build(results, summary, meta, checks=checks)
    if args.json:
        json_report.write(args.json, report)
    if args.junit:
        junit.write(args.junit, report, args.strict)
    if args.report_dir:
        write_dir(args.report_dir, report, results, args.strict)
    if args.html:
        html.write(args.html, [report])
    if any(r.outcome.value == "ERROR" for r in results):
        return EXIT_HARNESS
    return EXIT_FAILED if summary["gate"] == "failed" else EXIT_OK


def add_score_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", required=True, metavar="URL", help="the `a2a-lab serve` the client drove itself against")
    run = p.add_mutually_exclusive_group(required=True)
    run.add_argument("--run", metavar="ID", help="the run id (from POST /_lab/runs)")
    run.add_argument(
        "--run-file",
        type=Path,
        metavar="FILE",
        help="read the run id from FILE (as `a2a-lab drive --run-file` writes it)",
    )
    p.add_argument("--admin-token", help="the shared server's admin token (also A2A_LAB_ADMIN_TOKEN)")
    add_report_arguments(p)


def cmd_score(args: argparse.Namespace) -> int:
    """Score traffic a client produced by itself in a run of a shared server (Autobahn-style)."""
    err = lambda text: print(f"a2a-lab: {text}", file=sys.stderr)  # noqa: E731
    try:
        supports = parse_support(args.client_supports) if args.client_supports else None
        baseline = Baseline.load(args.baseline) if args.baseline else None
    except (ValueError, BaselineError) as exc:
        err(str(exc))
        return EXIT_USAGE
    server = RemoteServer(args.server, args.admin_token)
    cat = Catalogue.load()
    if args.run_file:
        try:
            args.run = args.run_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            err(f"{args.run_file}: cannot read the run id: {exc.strerror or exc}")
            return EXIT_USAGE
    try:
        info = server.run_info(args.run)
        scenarios = cat.select(args.scenario, args.exclude)
        opts = runner.RunOptions(
            "(self-driven)", int(info.get("seed", 0)), strict=args.strict, supports=supports, baseline=baseline
        )
        client = ClientRun([], None, 0.0, False)
        raws = [runner.collect_remote(s, server, args.run, client, opts.seed) for s in scenarios]
    except RemoteError as exc:
        err(str(exc))
        return EXIT_USAGE
    results, supported = runner.score_all(raws, opts)
    return finish(
        results,
        supported,
        args,
        {"client": f"self-driven (run {args.run} on {args.server})", "seed": opts.seed, "run": args.run},
    )


def add_drive_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", required=True, metavar="URL", help="the shared `a2a-lab serve` to drive")
    p.add_argument("--client", default="builtin", help="the client command, as for `a2a-lab run` (default: builtin)")
    p.add_argument(
        "--run-file", type=Path, metavar="FILE", help="write the run id here, for `a2a-lab score --run-file`"
    )
    p.add_argument("--admin-token", help="the shared server's admin token (also A2A_LAB_ADMIN_TOKEN)")
    p.add_argument("--scenario", action="append", metavar="GLOB", help="only scenarios whose id matches (repeatable)")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip scenarios whose id matches (repeatable)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="scenarios run in parallel (default 1)")
    p.add_argument("--timeout", type=float, help="seconds per scenario (default: each scenario's own)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed")


def cmd_drive(args: argparse.Namespace) -> int:
    """Autobahn-style: start a run on a shared server and drive a client through every scenario, without scoring
    (the `harness` service of docker-compose scores it with `a2a-lab score`)."""
    err = lambda text: print(f"a2a-lab: {text}", file=sys.stderr)  # noqa: E731
    try:
        client = presets.resolve(args.client)
        _check_client(client)
    except presets.PresetError as exc:
        err(str(exc))
        return EXIT_USAGE
    scenarios = Catalogue.load().select(args.scenario, args.exclude)
    server = RemoteServer(args.server, args.admin_token)
    opts = runner.RunOptions(client, args.seed, args.timeout, args.jobs)
    try:
        run_id = server.start_run(args.seed)["run"]
    except RemoteError as exc:
        err(str(exc))
        return EXIT_USAGE
    if args.run_file:
        args.run_file.parent.mkdir(parents=True, exist_ok=True)
        args.run_file.write_text(run_id + "\n", encoding="utf-8")
    print(f"a2a-lab: run {run_id} on {args.server}: {len(scenarios)} scenario(s), client: {client}", file=sys.stderr)

    def progress(raw: runner.RawRun, index: int, total: int) -> None:
        note = "timed out" if raw.client.timed_out else (raw.error or f"exit {raw.client.exit_code}")
        print(console.progress_line(index, total, raw.scenario.id, raw.duration, note), file=sys.stderr, flush=True)

    runner.execute_all(scenarios, opts, progress, server, run_id)
    print(run_id)
    return EXIT_OK


def shard(scenarios: list, spec: str) -> list:  # type: ignore[type-arg]
    """`2/4`: every 4th scenario starting with the 2nd, in id order: deterministic, and balanced across groups."""
    try:
        k, n = (int(x) for x in spec.split("/"))
    except ValueError:
        raise ValueError(f"--shard {spec!r}: expected K/N with whole numbers, e.g. 1/3") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {spec!r}: K must be between 1 and N")
    ordered = sorted(scenarios, key=lambda s: s.id)
    return ordered[k - 1 :: n]


def write_dir(folder: Path, report: dict, results: list, strict: bool) -> None:  # type: ignore[type-arg]
    folder.mkdir(parents=True, exist_ok=True)
    json_report.write(folder / "report.json", report)
    junit.write(folder / "junit.xml", report, strict)
    html.write(folder, [report])
    import json

    for r in results:
        path = folder / "journals" / f"{r.id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in r.journal), encoding="utf-8")
