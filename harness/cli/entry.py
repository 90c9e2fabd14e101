"""The `a2a-lab` command line: the top-level parser, one sub-command per Command record (each command's module
registers its own options and help), and the entry point."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .command import Command
from .exit_codes import Exit
from .parser import Parser


def commands() -> list[Command]:
    """Every command, in the order `a2a-lab --help` lists them (imported when the parser is built, not with the
    package: the reference client, which takes its options and exit codes from here, loads none of the others)."""
    from ..acts import command as acts
    from ..cardcheck import command as card
    from ..fuzz import command as fuzz
    from ..probe import command as probe
    from ..proxy import command as proxy
    from ..record import command as record
    from . import checks, client, drive, merge, run, scenarios, score, serve

    return [
        scenarios.COMMAND,
        serve.COMMAND,
        run.COMMAND,
        client.COMMAND,
        checks.COMMAND,
        score.COMMAND,
        drive.COMMAND,
        merge.COMMAND,
        card.COMMAND,
        probe.COMMAND,
        acts.COMMAND,
        fuzz.COMMAND,
        record.COMMAND,
        proxy.COMMAND,
    ]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"a2a-lab {version('a2a-lab')}"
    except PackageNotFoundError:
        return "a2a-lab (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="a2a-lab",
        description="A2A test server and client conformance harness.",
        epilog="`a2a-lab COMMAND --help` explains a command, with examples and its exit codes.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands():
        command.register(sub)
    return parser


def _guard_credentials(args: argparse.Namespace) -> None:
    """In a2a-lab's own process (not when called as a function), before any client starts: the admin and run tokens
    out of what /proc shows of its command line and environment, and the process undumpable (secrecy.py)."""
    from .. import secrecy

    secrecy.conceal(
        [
            getattr(args, "admin_token", None),
            getattr(args, "run_token", None),
            os.environ.get(secrecy.ADMIN_TOKEN_ENV),
            os.environ.get(secrecy.RUN_TOKEN_ENV),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return Exit.USAGE
    if argv is None and args.guarded:
        _guard_credentials(args)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # here, not at exit, where a closed pipe can only be reported as a traceback
        return code
    except BrokenPipeError:
        # The reader left (`a2a-lab checks | head -1`): no traceback, and nothing more to flush at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return Exit.BROKEN_PIPE
