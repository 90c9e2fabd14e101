"""`a2a-lab run`: score a client against the catalogue and gate on the result."""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from a2a_lab.harness.cli import presets
from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.help_text import gate_codes
from a2a_lab.harness.cli.options import (
    add_admin_token,
    add_client_environment,
    add_client_mode,
    add_jobs_and_timeout,
    add_report_arguments,
    baseline_of,
    client_environment,
    client_mode_of,
    report_files,
)
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import crashed, load_catalogue, refuse, say
from a2a_lab.protocol.exceptions import LabError

if TYPE_CHECKING:
    from a2a_lab.contract.scenario import Scenario
    from a2a_lab.harness.cli.running import Interruption
    from a2a_lab.harness.client_judging.baseline import Baseline
    from a2a_lab.harness.common.model import ScenarioResult


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--client",
        default="builtin",
        help="the client command (placeholders {card_url} {base_url}; without them the card URL is "
        f"appended), or a preset: {', '.join(presets.PRESETS)} (default: builtin)",
    )
    add_client_mode(p)
    add_client_environment(p)
    add_jobs_and_timeout(p)
    p.add_argument("--seed", type=int, default=0, help="seed for every random choice (ids); recorded in every report")
    p.add_argument(
        "--server",
        metavar="URL",
        help="score against an already-running `a2a-lab serve` (e.g. in another container) instead of starting servers",
    )
    add_admin_token(p)
    add_report_arguments(p, files=True)
    p.add_argument(
        "--shard",
        metavar="K/N",
        help="run only the K-th of N deterministic slices of the selected scenarios "
        "(for CI matrices; join with `a2a-lab report merge`)",
    )


class Refusal(LabError):
    """The scenarios chosen cannot be run: why (None: already said)."""

    def __init__(self, message: str | None) -> None:
        super().__init__(message)
        self.message = message


def select(args: argparse.Namespace, baseline: Baseline | None) -> tuple[list[Scenario], list[str], str | None]:
    """The scenarios to run (the catalogue narrowed by --scenario, --exclude and --shard, minus what cannot be run
    here), the gRPC ones skipped, and why. Refusal for a selection that cannot be run."""
    from a2a_lab.protocol import grpcwire

    cat = load_catalogue(skipping=False)
    if cat.broken:
        raise Refusal(None)
    try:  # SelectionError and BaselineError are ValueErrors
        scenarios = cat.choose(args.scenario, args.exclude, files=not args.server)
        if baseline:
            from a2a_lab.harness.client_judging.checks import client_checks

            baseline.validate({*cat.ids(), *(s.id for s in scenarios)}, {c.id for c in client_checks()})
        if args.shard:
            scenarios = shard(scenarios, args.shard)
    except ValueError as exc:
        raise Refusal(str(exc)) from None
    if not scenarios:
        raise Refusal(
            f"no scenario matches {args.scenario or '*'} (minus {args.exclude or 'nothing'}); "
            "`a2a-lab scenarios` lists them"
        )
    if args.server:
        from a2a_lab.harness.cli.running import own_server_only

        scenarios = own_server_only(scenarios)
        if not scenarios:
            raise Refusal("every scenario chosen is served over TLS, which needs a server of its own (drop --server)")
    no_grpc = grpcwire.missing() if not args.server else None
    skipped = [s.id for s in scenarios if s.serves_grpc] if no_grpc else []
    if skipped:
        scenarios = [s for s in scenarios if not s.serves_grpc]
        say(f"skipped {len(skipped)} gRPC scenario(s) ({', '.join(skipped)}): {no_grpc}")
        if not scenarios:
            raise Refusal("every scenario chosen serves gRPC, which this installation cannot: " + str(no_grpc))
    return scenarios, skipped, no_grpc


def cmd_run(args: argparse.Namespace) -> int:
    from a2a_lab.harness.cli.tokens import admin_token_of
    from a2a_lab.protocol.cards import parse_support

    try:  # PresetError and BaselineError are ValueErrors
        args.client_mode = client_mode_of(args)
        client = presets.client_for(args.client, args.client_mode)
        supports = parse_support(args.client_supports) if args.client_supports else None
        baseline = baseline_of(args)
        admin = admin_token_of(args)
        client_env, webhook_host = client_environment(args, admin)
    except ValueError as exc:
        return refuse(str(exc))
    if args.jobs < 1 or (args.timeout is not None and args.timeout <= 0):
        return refuse("--jobs must be at least 1 and --timeout positive")
    files = report_files(args)
    try:
        scenarios, skipped, no_grpc = select(args, baseline)
    except Refusal as refusal:
        return refuse(refusal.message) if refusal.message else Exit.USAGE
    from a2a_lab.contract.catalogue import uncited
    from a2a_lab.harness.cli.gate import conclude
    from a2a_lab.harness.cli.running import Progress, interruptible, never_started
    from a2a_lab.harness.client_judging import process, runner
    from a2a_lab.harness.client_judging.remote import RemoteError, RemoteServer

    stopper = process.Stopper()
    opts = runner.RunOptions(
        client,
        args.seed,
        args.timeout,
        args.jobs,
        args.strict,
        supports,
        baseline,
        env=client_env,
        webhook_host=webhook_host,
        stopper=stopper,
        client_mode=args.client_mode,
    )
    if not args.quiet:
        for warning in uncited(scenarios):
            say(warning)
        say(f"{len(scenarios)} scenario(s), client: {client} ({args.client_mode}), seed {args.seed}, -j {args.jobs}")
    began, started = time.monotonic(), datetime.now(UTC).isoformat(timespec="milliseconds")
    server = RemoteServer(args.server, admin) if args.server else None
    with interruptible(stopper) as interruption:
        try:
            progress = Progress(args.verbose, opts, args.quiet)
            results, supported = runner.run_all(scenarios, opts, progress, server)
            progress.revise(results, supported)
        except RemoteError as exc:
            return refuse(str(exc))
        except Exception as exc:
            return crashed("harness error", exc)
    meta = {
        "client": client,
        "seed": args.seed,
        "jobs": args.jobs,
        "client_mode": args.client_mode,
        "started": started,  # when the run began (wall_time later it ended)
        "wall_time": round(time.monotonic() - began, 3),
        "shard": args.shard,
        "server": args.server,
        # Scenarios chosen but not run, and why (gRPC ones where the grpc extra is missing).
        "skipped": {"scenarios": skipped, "why": no_grpc} if skipped else None,
    }
    incomplete(meta, interruption, scenarios, results)
    code = conclude(results, supported, meta, files, args.strict, args.verbose, baseline=baseline, quiet=args.quiet)
    if interruption.signal:
        say(
            f"interrupted ({interruption.signal}): stopped every client and server, {len(results)} of "
            f"{len(scenarios)} scenario(s) finished; the verdict and the reports (marked incomplete) cover only those"
        )
        return Exit.INTERRUPTED
    why = never_started(results)
    if why:
        return refuse(f"the client never started: {why}")
    return code


def incomplete(
    meta: dict[str, Any], interruption: Interruption, scenarios: list[Scenario], results: list[ScenarioResult]
) -> None:
    """An interrupted run's reports cover what finished; `unfinished`: cut short or never started."""
    if interruption.signal:
        finished = {r.id for r in results}
        meta["incomplete"] = {
            "signal": interruption.signal,
            "unfinished": [s.id for s in scenarios if s.id not in finished],
        }


def shard(scenarios: list[Scenario], spec: str) -> list[Scenario]:
    """`2/4`: every 4th scenario starting with the 2nd, in id order: deterministic, and balanced across groups."""
    try:
        k, n = (int(x) for x in spec.split("/"))
    except ValueError:
        raise ValueError(f"--shard {spec!r}: expected K/N with whole numbers, e.g. 1/3") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {spec!r}: K must be between 1 and N")
    ordered = sorted(scenarios, key=lambda s: s.id)
    return ordered[k - 1 :: n]


COMMAND = Command(
    "run",
    "run a client against every scenario and score it (default: the built-in client, whole catalogue)",
    add_arguments,
    cmd_run,
    guarded=True,
    examples=(
        "a2a-lab run                                          # the reference client, the whole catalogue",
        "a2a-lab run --client 'node my-client.js' -j 2        # the card URL is appended as the last argument",
        "a2a-lab run --client 'my-client --card {card_url}' --scenario 'quirks/*' --junit reports/junit.xml",
        "a2a-lab run --client ./bin/client --scenario ci/vendor-x.yaml --scenario ci/more/   # your own scenario files",
        "a2a-lab run --client ./bin/client --baseline a2a-baseline.yaml --json - > report.json",
    ),
    exit_codes=gate_codes(never_started="it exited before any request in every scenario", interrupted=True),
)
