"""`a2a-lab drive`: drive a client through every scenario of a shared server in a new run, without scoring."""

from __future__ import annotations

import argparse

from a2a_lab.harness.cli import presets
from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.options import (
    add_admin_token,
    add_client_environment,
    add_client_mode,
    add_jobs_and_timeout,
    add_selection,
    client_environment,
    client_mode_of,
)
from a2a_lab.harness.cli.outputs import output_file
from a2a_lab.harness.cli.tokens import admin_token_of
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import refuse, say


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", required=True, metavar="URL", help="the shared `a2a-lab serve` to drive")
    p.add_argument("--client", default="builtin", help="the client command, as for `a2a-lab run` (default: builtin)")
    add_client_mode(p)
    add_client_environment(p)
    p.add_argument(
        "--run-file",
        type=output_file,
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
    from a2a_lab.contract.catalogue import Catalogue, SelectionError
    from a2a_lab.harness.cli.running import Progress, interruptible, never_started, own_server_only
    from a2a_lab.harness.client_judging import process, run_file, runner
    from a2a_lab.harness.client_judging.remote import RemoteError, RemoteServer

    try:
        args.client_mode = client_mode_of(args)
        client = presets.client_for(args.client, args.client_mode)
        admin = admin_token_of(args)
        client_env, webhook_host = client_environment(args, admin)
    except (presets.PresetError, ValueError) as exc:
        return refuse(str(exc))
    if args.jobs < 1 or (args.timeout is not None and args.timeout <= 0):
        return refuse("--jobs must be at least 1 and --timeout positive")
    try:
        scenarios = own_server_only(Catalogue.load().choose(args.scenario, args.exclude, files=False))
    except SelectionError as exc:
        return refuse(str(exc))
    if not scenarios:
        return refuse("every scenario chosen is served over TLS, which needs a server of its own (a2a-lab run)")
    server = RemoteServer(args.server, admin)
    stopper = process.Stopper()
    opts = runner.RunOptions(
        client,
        args.seed,
        args.timeout,
        args.jobs,
        env=client_env,
        webhook_host=webhook_host,
        stopper=stopper,
        client_mode=args.client_mode,
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


COMMAND = Command(
    "drive",
    "drive a client through every scenario of a shared server in a new run, without scoring",
    add_arguments,
    cmd_drive,
    guarded=True,
    about="""The client gets the handshake and an allow-list of this environment (never the admin token); the run's
token stays in this process until every client is done: only then is the run file written.""",
    examples=(
        "a2a-lab drive --server http://lab:8000 --client './bin/client' --run-file run.json",
        "a2a-lab drive --server http://server:8000 --webhook-host example-client --run-file /reports/run.json   "
        "# compose",
    ),
    exit_codes=(
        (Exit.OK, "every scenario was driven (score it with `a2a-lab score`)"),
        (
            Exit.USAGE,
            "usage error, a run file that cannot be written, the server refused the run, or the client never started "
            "(it exited before any request in every scenario: the end of its stderr is quoted)",
        ),
        (Exit.INTERRUPTED, "interrupted (Ctrl-C, SIGTERM)"),
    ),
)
