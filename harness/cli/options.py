"""The options several `a2a-lab` commands take, added the same way wherever they appear, and what the commands read
back from them (the report files, the client's environment)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a_lab.contract import handshake
from a2a_lab.harness.cli.outputs import output_file, output_folder
from a2a_lab.harness.cli.tokens import ADMIN_TOKEN_ENV
from a2a_lab.harness.reports.files import ReportFiles
from a2a_lab.protocol.cards import WELL_KNOWN_PATH

if TYPE_CHECKING:
    from a2a_lab.harness.client_judging.baseline import Baseline


def add_json_or_markdown(p: argparse.ArgumentParser, json_help: str) -> None:
    """`--json` or `--markdown` (a listing command's formats; the default is a table for people)."""
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help=json_help)
    fmt.add_argument("--markdown", action="store_true", help="the catalogue as a Markdown table")


def add_report_files(p: argparse.ArgumentParser, report_dir: bool = True) -> None:
    """The report files a scoring command writes (read back with report_files)."""
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the JSON report (-: to stdout)")
    p.add_argument("--junit", type=output_file, metavar="FILE", help="write JUnit XML")
    add_junit_skipped(p)
    if report_dir:
        p.add_argument(
            "--report-dir",
            type=output_folder,
            metavar="DIR",
            help="write every format (JSON, JUnit, HTML) plus each scenario's journal as JSONL",
        )
    p.add_argument(
        "--html", type=output_folder, metavar="DIR", help="write a self-contained HTML report to DIR/index.html"
    )
    add_compare(p)


def report_files(args: argparse.Namespace) -> ReportFiles:
    """The report files the options of add_report_files asked for (a command without --report-dir has no folder)."""
    return ReportFiles(
        json=args.json,
        junit=args.junit,
        html=args.html,
        folder=getattr(args, "report_dir", None),
        junit_skipped=args.junit_skipped,
        previous=args.compare,
    )


def add_compare(p: argparse.ArgumentParser) -> None:
    def previous(text: str) -> list[dict[str, Any]]:
        from a2a_lab.harness.reports.compare import load_previous

        try:
            return load_previous(Path(text))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    p.add_argument(
        "--compare",
        type=previous,
        metavar="FILE",
        help="an earlier JSON report: the HTML report shows what got worse and what got better since",
    )


def add_junit_skipped(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--junit-skipped",
        action="store_true",
        help="list SKIPPED checks (the situation never arose) in the JUnit XML too; left out by default",
    )


def add_verbose(p: argparse.ArgumentParser) -> None:
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("-v", "--verbose", action="store_true", help="show every finding in full under each scenario")
    shown.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print the verdict alone (no progress, no scorecard); reports as asked",
    )


def add_selection(p: argparse.ArgumentParser, files: bool = True) -> None:
    """Which scenarios: `--scenario ID|GLOB` (with `files`, also FILE.yaml|FOLDER) and `--exclude GLOB`."""
    p.add_argument(
        "--scenario",
        action="append",
        metavar="ID|GLOB|FILE|DIR" if files else "ID|GLOB",
        help="only these scenarios (repeatable): an id or a glob of ids, e.g. 'quirks/*'"
        + (", or a scenario file (.yaml/.yml) or a folder of them, of your own" if files else ""),
    )
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip scenarios whose id matches (repeatable)")


def jobs_value(text: str) -> int:
    """`-j N` or `-j auto` (one per core: schedule.auto_jobs)."""
    from a2a_lab.harness.client_judging.schedule import auto_jobs

    if text == "auto":
        return auto_jobs()
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number, or auto (one per core)") from None


def add_jobs_and_timeout(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-j",
        "--jobs",
        type=jobs_value,
        default=1,
        metavar="N|auto",
        help="scenarios on the CPU at once (a scenario whose client waits on the server does not count); auto: one "
        "per core (default 1)",
    )
    p.add_argument("--timeout", type=float, help="seconds per scenario (default: each scenario's own)")


def add_client_mode(p: argparse.ArgumentParser) -> None:
    """How the client command is run: a process per scenario, or once per worker (the loop handshake)."""
    from a2a_lab.harness.client_judging.process import CLIENT_MODES

    p.add_argument(
        "--client-mode",
        choices=CLIENT_MODES,
        default=None,
        help="process: start the client for every scenario (the handshake in its environment); loop: start it once "
        "per worker and hand it one scenario per line of its stdin, answered by a line on its stdout (the loop "
        "handshake, docs/reference/handshake.md) (default: loop for `builtin`, which speaks it; process for any other "
        "client)",
    )


def client_mode_of(args: argparse.Namespace) -> str:
    """The `--client-mode` given; else loop for the built-in client (it speaks the loop handshake: the whole
    catalogue in seconds rather than minutes), and a process per scenario for any other command (which may not)."""
    from a2a_lab.harness.client_judging.process import LOOP_MODE, PROCESS_MODE

    if args.client_mode is not None:
        return str(args.client_mode)
    return LOOP_MODE if args.client == "builtin" else PROCESS_MODE


def add_live_target(p: argparse.ArgumentParser, optional: bool = False) -> None:
    """The live server a command talks to (`probe`, `record`; `optional` where another source may stand in)."""
    p.add_argument(
        "target",
        nargs="?" if optional else None,
        metavar="BASE_URL",
        help=f"the server's origin (its card is at BASE_URL{WELL_KNOWN_PATH}) or its card URL",
    )


def add_answer_timeout(p: argparse.ArgumentParser) -> None:
    """How long a command talking to a live server waits for any one answer."""
    from a2a_lab.harness.clients.refclient.options import READ_TIMEOUT_S

    p.add_argument(
        "--timeout",
        type=float,
        default=READ_TIMEOUT_S,
        help=f"seconds to wait for any one answer (default {READ_TIMEOUT_S:g})",
    )


def add_admin_token(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--admin-token",
        help=f"the shared server's admin token (better: {ADMIN_TOKEN_ENV} or --admin-token-file; on the command line "
        "it is visible to every local process until a2a-lab has started). The client under test never gets it",
    )
    p.add_argument(
        "--admin-token-file",
        type=Path,
        metavar="FILE",
        help="read the shared server's admin token from FILE (its first line)",
    )


def add_report_arguments(p: argparse.ArgumentParser, files: bool = False) -> None:
    """What a scoring of clients (`run`, `score`) reports and gates on, and which scenarios it scores."""
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


def baseline_of(args: argparse.Namespace) -> Baseline | None:
    """The expected failures --baseline names, if given (BaselineError, a ValueError, for a file that cannot be
    used); the baseline's module is loaded only then."""
    if args.baseline is None:
        return None
    from a2a_lab.harness.client_judging.baseline import Baseline

    return Baseline.load(args.baseline)


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
    from a2a_lab.harness.client_judging import environment

    env = environment.explicit(args.client_env or [], os.environ, [admin, os.environ.get(ADMIN_TOKEN_ENV)])
    given = getattr(args, "webhook_host", None)
    host = environment.check_webhook_host(given) if given is not None else None
    return env, host
