"""`a2a-lab run`: score a client against the catalogue and gate on the result."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from a2a_lab.contract import handshake
from a2a_lab.contract.catalogue import Catalogue, SelectionError
from a2a_lab.contract.scenario import Scenario
from a2a_lab.protocol import grpcwire
from a2a_lab.protocol.cards import parse_support

from . import environment, presets, process, run_file, runner
from .baseline import Baseline, BaselineError
from .checks import client_checks
from .command_line import (
    ADMIN_TOKEN_ENV,
    RUN_TOKEN_ENV,
    add_admin_token,
    add_jobs_and_timeout,
    add_report_files,
    add_selection,
    add_verbose,
    admin_token_of,
    crashed,
    load_catalogue,
    refuse,
    say,
)
from .exit_codes import Exit
from .gate import conclude
from .model import ClientRun
from .outputs import file_problem
from .remote import RemoteError, RemoteRun, RemoteServer
from .reports import console, escape
from .reports.files import ReportFiles


def add_report_arguments(p: argparse.ArgumentParser, files: bool = False) -> None:
    add_report_files(p)
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
    add_selection(p, files)
    add_verbose(p)


def add_client_environment(p: argparse.ArgumentParser, webhook: bool = True) -> None:
    """What the client's environment holds beyond the allow-list and the handshake (environment.py)."""
    p.add_argument(
        "--client-env",
        action="append",
        metavar="NAME[=VALUE]",
        help="pass this variable to the client (repeatable): NAME as it is set here, or NAME=VALUE. The client gets "
        "only these, PATH, HOME, the locale, TMPDIR, CA bundles, NODE_* and PYTHON* (proxies off), and the handshake",
    )
    if not webhook:
        return
    p.add_argument(
        "--webhook-host",
        metavar="HOST",
        help=f"the host name or address at which the server reaches this machine, handed to the client as "
        f"{handshake.ENV_WEBHOOK_HOST} for the webhooks it registers (client and server on different hosts, e.g. "
        "the client's compose service name); the reference client listens where HOST resolves",
    )


def client_environment(args: argparse.Namespace, admin: str | None = None) -> tuple[dict[str, str], str | None]:
    """The explicit variables and the webhook host a command was given (environment.ClientEnvError when unusable)."""
    env = environment.explicit(args.client_env or [], os.environ, [admin, os.environ.get(ADMIN_TOKEN_ENV)])
    given = getattr(args, "webhook_host", None)
    host = environment.check_webhook_host(given) if given is not None else None
    return env, host


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--client",
        default="builtin",
        help="the client command (placeholders {card_url} {base_url}; without them the card URL is "
        f"appended), or a preset: {', '.join(presets.PRESETS)} (default: builtin)",
    )
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


def check_client(command: str) -> None:
    """A client that cannot even be started is a usage error (exit 2), not a harness fault in every scenario."""
    try:
        argv = process.split(command)
    except ValueError as exc:
        raise presets.PresetError(f"--client {command!r} cannot be parsed: {exc}") from None
    if not argv:
        raise presets.PresetError("--client is empty")
    program = Path(argv[0])
    if "/" in argv[0]:  # a path, not a name looked up on PATH
        if not program.exists():
            raise presets.PresetError(f"--client: {argv[0]} does not exist")
        if program.is_dir() or not os.access(program, os.X_OK):
            raise presets.PresetError(
                f"--client: {argv[0]} is not an executable file: make it one (chmod +x {argv[0]}, with a #! line), "
                f"or name its interpreter first, e.g. --client 'python3 {argv[0]}'"
            )
        return
    if shutil.which(argv[0]) is None:
        raise presets.PresetError(
            f"--client {argv[0]!r} is neither a preset ({', '.join(presets.PRESETS)}) nor a program found on PATH"
            + (f" (a file of that name is here: run it as ./{argv[0]})" if program.is_file() else "")
        )


#: How many scenarios quote the client's stderr in their progress line when it ended before any request (-v: all).
QUOTED_STDERR = 3


class Progress:
    """The live progress line per finished scenario, on stderr. A client that ended before any request reached the
    server says why (its exit code, its stderr's last lines) in the first scenarios; its exit code is not shown
    otherwise, since exiting 1 is right where a client refuses a bad card."""

    def __init__(self, verbose: bool = False) -> None:
        self.verbose = verbose
        self.quoted = 0

    def __call__(self, raw: runner.RawRun, index: int, total: int) -> None:
        silent = not raw.journal and not raw.client.timed_out
        if raw.client.timed_out:
            note = "timed out"
        elif raw.error:
            note = raw.error
        elif silent:
            note = f"exit {raw.client.exit_code} before any request reached the server"
        else:
            note = ""
        lines = [console.progress_line(index, total, raw.scenario.id, raw.duration, note)]
        if silent and raw.client.stderr_tail.strip() and (self.verbose or self.quoted < QUOTED_STDERR):
            self.quoted += 1
            lines += console.stderr_tail(raw.client.stderr_tail)
        print(escape.console("\n".join(lines)), file=sys.stderr, flush=True)


@dataclass
class Interruption:
    """The first SIGINT or SIGTERM a run received (None: none)."""

    signal: str | None = None


@contextmanager
def interruptible(stopper: process.Stopper) -> Iterator[Interruption]:
    """While a run goes: the first SIGINT or SIGTERM kills every client process group at once (`stopper`) and lets the
    run end with what finished; a second one exits at once. The handlers before are restored after."""
    seen = Interruption()

    def handler(signum: int, _frame: object) -> None:
        if seen.signal is not None:
            os._exit(Exit.INTERRUPTED)  # asked twice: the clients are gone already, leave now
        seen.signal = signal.Signals(signum).name
        stopper.stop()

    before = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield seen
    finally:
        for sig, previous in before.items():
            signal.signal(sig, previous)


class Ran(Protocol):
    """A scenario's run as never_started reads it (a ScenarioResult, or a RawRun before scoring)."""

    @property
    def client(self) -> ClientRun | None: ...

    @property
    def journal(self) -> list[dict[str, Any]]: ...


def never_started(results: Sequence[Ran]) -> str | None:
    """What the client said when it failed, or could not be started, before any request in every scenario of the run
    (a missing script, a bad interpreter): a usage error, not a verdict on the client. None otherwise."""
    if not results:
        return None
    for r in results:
        c = r.client
        if c is None or r.journal or c.timed_out or (c.exit_code == 0 and not c.start_error):
            return None
    first = results[0].client
    assert first is not None
    if first.start_error:
        return first.start_error
    said = "\n".join(console.stderr_tail(first.stderr_tail))
    return f"it exited {first.exit_code} before any request, in all {len(results)} scenario(s); " + (
        f"its stderr ends:\n{said}" if said else "it wrote nothing on stderr"
    )


def cmd_run(args: argparse.Namespace) -> int:
    try:
        client = presets.resolve(args.client)
        check_client(client)
        supports = parse_support(args.client_supports) if args.client_supports else None
        baseline = Baseline.load(args.baseline) if args.baseline else None
        admin = admin_token_of(args)
        client_env, webhook_host = client_environment(args, admin)
    except (presets.PresetError, ValueError, BaselineError) as exc:
        return refuse(str(exc))
    if args.jobs < 1 or (args.timeout is not None and args.timeout <= 0):
        return refuse("--jobs must be at least 1 and --timeout positive")
    unwritable = ReportFiles.from_args(args).problem()
    if unwritable:
        return refuse(unwritable)
    cat = load_catalogue(skipping=False)
    if cat.broken:
        return Exit.USAGE
    try:
        scenarios = cat.choose(args.scenario, args.exclude, files=not args.server)
    except SelectionError as exc:
        return refuse(str(exc))
    try:
        if baseline:
            baseline.validate({*cat.ids(), *(s.id for s in scenarios)}, {c.id for c in client_checks()})
    except BaselineError as exc:
        return refuse(str(exc))
    if args.shard:
        try:
            scenarios = shard(scenarios, args.shard)
        except ValueError as exc:
            return refuse(str(exc))
    if not scenarios:
        return refuse(
            f"no scenario matches {args.scenario or '*'} (minus {args.exclude or 'nothing'}); "
            "`a2a-lab scenarios` lists them"
        )
    if args.server:
        scenarios = own_server_only(scenarios)
        if not scenarios:
            return refuse("every scenario chosen is served over TLS, which needs a server of its own (drop --server)")
    no_grpc = grpcwire.missing() if not args.server else None
    skipped = [s.id for s in scenarios if s.serves_grpc] if no_grpc else []
    if skipped:
        scenarios = [s for s in scenarios if not s.serves_grpc]
        say(f"skipped {len(skipped)} gRPC scenario(s) ({', '.join(skipped)}): {no_grpc}")
        if not scenarios:
            return refuse("every scenario chosen serves gRPC, which this installation cannot: " + str(no_grpc))
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
    )
    say(f"{len(scenarios)} scenario(s), client: {client}, seed {args.seed}, -j {args.jobs}")
    began, started = time.monotonic(), datetime.now(UTC).isoformat(timespec="milliseconds")
    server = RemoteServer(args.server, admin) if args.server else None
    with interruptible(stopper) as interruption:
        try:
            results, supported = runner.run_all(scenarios, opts, Progress(args.verbose), server)
        except RemoteError as exc:
            return refuse(str(exc))
        except Exception as exc:
            return crashed("harness error", exc)
    meta = {
        "client": client,
        "seed": args.seed,
        "jobs": args.jobs,
        "started": started,  # when the run began (wall_time later it ended)
        "wall_time": round(time.monotonic() - began, 3),
        "shard": args.shard,
        "server": args.server,
        # Scenarios chosen but not run, and why (gRPC ones where the grpc extra is missing).
        "skipped": {"scenarios": skipped, "why": no_grpc} if skipped else None,
    }
    if interruption.signal:
        # The reports cover what finished; `unfinished`: cut short or never started.
        finished = {r.id for r in results}
        meta["incomplete"] = {
            "signal": interruption.signal,
            "unfinished": [s.id for s in scenarios if s.id not in finished],
        }
    code = conclude(results, supported, meta, ReportFiles.from_args(args), args.strict, args.verbose, baseline=baseline)
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


def add_score_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", required=True, metavar="URL", help="the `a2a-lab serve` the client drove itself against")
    run = p.add_mutually_exclusive_group(required=True)
    run.add_argument("--run", metavar="ID", help="the run id (from POST /_lab/runs), with --run-token")
    run.add_argument(
        "--run-file",
        type=Path,
        metavar="FILE",
        help="read the run id and token from FILE (as `a2a-lab drive --run-file` writes it)",
    )
    p.add_argument(
        "--run-token",
        metavar="TOKEN",
        help=f"the run's own token, from the answer to POST /_lab/runs (also {RUN_TOKEN_ENV})",
    )
    add_report_arguments(p)


def cmd_score(args: argparse.Namespace) -> int:
    """Score the traffic a client produced in a run of a shared server: driven by `a2a-lab drive` (the run file holds
    what its processes did, and which scenarios were driven: exactly those are scored, as `a2a-lab run` would), or
    by itself (Autobahn-style: every scenario chosen)."""
    try:
        supports = parse_support(args.client_supports) if args.client_supports else None
        baseline = Baseline.load(args.baseline) if args.baseline else None
    except (ValueError, BaselineError) as exc:
        return refuse(str(exc))
    unwritable = ReportFiles.from_args(args).problem()
    if unwritable:
        return refuse(unwritable)
    server = RemoteServer(args.server)
    cat = Catalogue.load()
    driven: run_file.Driven | None = None
    try:
        if args.run_file:
            run, driven = run_file.read(server, args.run_file)
        else:
            token = args.run_token or os.environ.get(RUN_TOKEN_ENV)
            if not token:
                return refuse(
                    f"--run {args.run} needs the run's token: --run-token TOKEN or {RUN_TOKEN_ENV} (the answer to "
                    "POST /_lab/runs carries it), or use --run-file"
                )
            run = RemoteRun(server, args.run, token)
        info = run.info()
        if driven is None:
            scenarios = own_server_only(cat.choose(args.scenario, args.exclude, files=False))
        else:
            scenarios = driven_scenarios(cat, driven, args.scenario, args.exclude, args.run_file)
        if baseline:
            baseline.validate(cat.ids(), {c.id for c in client_checks()})
        seed = driven.seed if driven is not None else int(info.get("seed", 0))
        client_name = driven.client if driven is not None else "(self-driven)"
        opts = runner.RunOptions(client_name, seed, strict=args.strict, supports=supports, baseline=baseline)
        shared = runner.SharedRun(run)
        if driven is None:
            raws = [shared.collect(s, ClientRun([], None, 0.0, False), opts.seed) for s in scenarios]
        else:
            by_id = {d.id: d for d in driven.scenarios}
            raws = [
                shared.collect(s, by_id[s.id].client, opts.seed, by_id[s.id].duration, by_id[s.id].error)
                for s in scenarios
            ]
    except (RemoteError, SelectionError, BaselineError) as exc:
        return refuse(str(exc))
    results, supported = runner.score_all(raws, opts)
    if driven is None:
        meta: dict[str, Any] = {"client": f"self-driven (run {run.id} on {args.server})", "seed": opts.seed}
    else:
        meta = {"client": driven.client, "seed": opts.seed, "driven_by": "a2a-lab drive", "server": args.server}
        if driven.incomplete:
            meta["incomplete"] = driven.incomplete
    meta["run"] = run.id
    code = conclude(results, supported, meta, ReportFiles.from_args(args), args.strict, args.verbose, baseline=baseline)
    why = never_started(results) if driven is not None else None
    if why:
        return refuse(f"the client never started: {why}")
    return code


def driven_scenarios(
    cat: Catalogue, driven: run_file.Driven, chosen: list[str] | None, excluded: list[str] | None, path: Path
) -> list[Scenario]:
    """The scenarios a run file says were driven, in the catalogue, narrowed by --scenario / --exclude: exactly what
    is scored. SelectionError naming what does not fit."""
    unknown = [sid for sid in driven.ids if sid not in cat.scenarios]
    if unknown:
        raise SelectionError(
            f"{path}: the run drove {len(unknown)} scenario(s) this catalogue does not have ({', '.join(unknown[:3])}"
            f"{', ...' if len(unknown) > 3 else ''}): score with the a2a-lab version that drove it"
        )
    if not chosen and not excluded:
        return [cat.scenarios[sid] for sid in driven.ids]
    wanted = {s.id for s in cat.choose(chosen, excluded, files=False)}
    picked = [cat.scenarios[sid] for sid in driven.ids if sid in wanted]
    if not picked:
        raise SelectionError(
            f"{path}: none of the {len(driven.ids)} scenario(s) driven in this run matches --scenario "
            f"{' '.join(chosen or ['*'])} (minus {' '.join(excluded or []) or 'nothing'}); leave --scenario out to "
            "score all that were driven"
        )
    return picked


def add_drive_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", required=True, metavar="URL", help="the shared `a2a-lab serve` to drive")
    p.add_argument("--client", default="builtin", help="the client command, as for `a2a-lab run` (default: builtin)")
    add_client_environment(p)
    p.add_argument(
        "--run-file",
        type=Path,
        metavar="FILE",
        help="once the clients are done, write the run id and token here (mode 0600) with what the client's "
        "processes did, for `a2a-lab score --run-file`",
    )
    add_admin_token(p)
    add_selection(p, files=False)
    add_jobs_and_timeout(p)
    p.add_argument("--seed", type=int, default=0, help="the run's seed")


def cmd_drive(args: argparse.Namespace) -> int:
    """Autobahn-style: start a run on a shared server and drive a client through every scenario, without scoring
    (the `harness` service of docker-compose scores it with `a2a-lab score`). The run's token stays in this process
    until every client is done: only then is the run file written (or the token printed)."""
    try:
        client = presets.resolve(args.client)
        check_client(client)
        admin = admin_token_of(args)
        client_env, webhook_host = client_environment(args, admin)
    except (presets.PresetError, ValueError) as exc:
        return refuse(str(exc))
    if args.jobs < 1 or (args.timeout is not None and args.timeout <= 0):
        return refuse("--jobs must be at least 1 and --timeout positive")
    unwritable = file_problem(args.run_file, "--run-file")
    if unwritable:
        return refuse(unwritable)
    try:
        scenarios = own_server_only(Catalogue.load().choose(args.scenario, args.exclude, files=False))
    except SelectionError as exc:
        return refuse(str(exc))
    if not scenarios:
        return refuse("every scenario chosen is served over TLS, which needs a server of its own (a2a-lab run)")
    server = RemoteServer(args.server, admin)
    stopper = process.Stopper()
    opts = runner.RunOptions(
        client, args.seed, args.timeout, args.jobs, env=client_env, webhook_host=webhook_host, stopper=stopper
    )
    try:
        shared = runner.SharedRun.start(server, args.seed)
    except RemoteError as exc:
        return refuse(str(exc))
    say(f"run {shared.run_id} on {args.server}: {len(scenarios)} scenario(s), client: {client}")
    with interruptible(stopper) as interruption:
        done = runner.execute_all(scenarios, opts, Progress(), shared)
    driven = run_file.Driven(
        client, args.seed, [run_file.DrivenScenario(r.scenario.id, r.client, r.duration, r.error) for r in done]
    )
    if interruption.signal:
        finished = set(driven.ids)
        driven.incomplete = {
            "signal": interruption.signal,
            "unfinished": [s.id for s in scenarios if s.id not in finished],
        }
    # Only now, with every client gone, does the run's token leave this process.
    if args.run_file:
        try:
            run_file.write(args.run_file, shared.run, driven)
        except OSError as exc:
            return refuse(f"--run-file {args.run_file}: cannot write it: {exc.strerror or exc}")
    else:
        say(f"score it with: a2a-lab score --server {args.server} --run {shared.run_id} --run-token {shared.run.token}")
    print(shared.run_id)
    if interruption.signal:
        say(f"interrupted ({interruption.signal}): {len(done)} of {len(scenarios)} scenario(s) driven")
        return Exit.INTERRUPTED
    why = never_started(done)
    if why:
        return refuse(
            f"the client never started: {why}. Nothing was driven that `a2a-lab score` could judge; fix the --client "
            "command (try it by hand on one card URL) and drive again"
        )
    return Exit.OK


def own_server_only(scenarios: list[Scenario]) -> list[Scenario]:
    """Without the scenarios served over TLS (`tls/`): a shared server serves every scenario with one certificate (or
    none), so their point is lost there; each needs a server of its own (`a2a-lab run` without --server)."""
    skipped = [s.id for s in scenarios if s.tls is not None]
    if skipped:
        say(
            f"skipped {len(skipped)} TLS scenario(s) ({', '.join(skipped[:3])}{', ...' if len(skipped) > 3 else ''}): "
            "a shared server cannot present their certificates; run them with a server of their own"
        )
    return [s for s in scenarios if s.tls is None]


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
