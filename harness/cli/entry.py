"""The `a2a-lab` command line: the top-level parser, one sub-command per Command record (each command's module
registers its own options and help), and the entry point."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from a2a_lab.harness.cli.overview import Overview
from a2a_lab.harness.cli.parser import Parser, innermost
from a2a_lab.harness.cli.tasks import commands, tasks
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import refuse

__all__ = ["build_parser", "commands", "main"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"a2a-lab {version('a2a-lab')}"
    except PackageNotFoundError:
        return "a2a-lab (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The `a2a-lab` parser: every command of the table of tasks (tasks.py), registered in its order."""
    table = tasks()
    parser = Overview(
        prog="a2a-lab",
        description="A2A test server and client conformance harness.",
        epilog="`a2a-lab COMMAND --help` explains a command, with examples and its exit codes.",
        tasks=table,
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for task in table:
        for command in task.commands:
            command.register(sub)
    return parser


def _guard_credentials(args: argparse.Namespace) -> None:
    """In a2a-lab's own process (not when called as a function), before any client starts: the admin and run tokens
    out of what /proc shows of its command line and environment, and the process undumpable (secrecy.py)."""
    from a2a_lab.harness.common import secrecy

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
    from a2a_lab.harness.cli.outputs import unwritable

    problem = unwritable(innermost(parser, args), args)
    if problem:  # before anything runs: a run that cannot write its reports is not started
        return refuse(problem)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # here, not at exit, where a closed pipe can only be reported as a traceback
        return code
    except BrokenPipeError:
        # The reader left (`a2a-lab checks | head -1`): no traceback, and nothing more to flush at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return Exit.BROKEN_PIPE
