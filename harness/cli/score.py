"""`a2a-lab score`: score the traffic a client produced in a run of a shared server (Autobahn-style), driven by
`a2a-lab drive` or by itself."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.help_text import gate_codes
from a2a_lab.harness.cli.options import add_report_arguments, baseline_of, report_files
from a2a_lab.harness.cli.tokens import RUN_TOKEN_ENV
from a2a_lab.harness.common.messages import refuse
from a2a_lab.protocol.cards import parse_support

if TYPE_CHECKING:
    from a2a_lab.contract.catalogue import Catalogue
    from a2a_lab.contract.scenario import Scenario
    from a2a_lab.harness.client_judging import run_file


def add_arguments(p: argparse.ArgumentParser) -> None:
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
    try:  # BaselineError is a ValueError
        supports = parse_support(args.client_supports) if args.client_supports else None
        baseline = baseline_of(args)
    except ValueError as exc:
        return refuse(str(exc))
    from a2a_lab.contract.catalogue import Catalogue, SelectionError
    from a2a_lab.harness.cli.gate import conclude
    from a2a_lab.harness.cli.running import never_started, own_server_only
    from a2a_lab.harness.client_judging import run_file, runner
    from a2a_lab.harness.client_judging.baseline import BaselineError
    from a2a_lab.harness.client_judging.checks import client_checks
    from a2a_lab.harness.client_judging.remote import RemoteError, RemoteRun, RemoteServer
    from a2a_lab.harness.client_judging.run_file import collect

    files = report_files(args)
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
        raws = collect(runner.SharedRun(run), scenarios, driven, opts.seed)
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
    code = conclude(results, supported, meta, files, args.strict, args.verbose, baseline=baseline, quiet=args.quiet)
    why = never_started(results) if driven is not None else None
    if why:
        return refuse(f"the client never started: {why}")
    return code


def driven_scenarios(
    cat: Catalogue, driven: run_file.Driven, chosen: list[str] | None, excluded: list[str] | None, path: Path
) -> list[Scenario]:
    """The scenarios a run file says were driven, in the catalogue, narrowed by --scenario / --exclude: exactly what
    is scored. SelectionError naming what does not fit."""
    from a2a_lab.contract.catalogue import SelectionError

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


COMMAND = Command(
    "score",
    "score traffic a client produced by itself in a run of a shared server (Autobahn-style)",
    add_arguments,
    cmd_score,
    guarded=True,
    about="""With --run-file (as `a2a-lab drive` writes it), exactly the scenarios driven are scored, each with what
the client's process did there (exit code, result file, output): the verdict `a2a-lab run` gives. With --run ID
(a client that drove itself), every scenario chosen.""",
    examples=("a2a-lab score --server http://lab:8000 --run-file run.json --junit junit.xml",),
    exit_codes=gate_codes(never_started="the run file says: before any request in every scenario"),
)
