"""`a2a-lab client`: the reference client on the command line (its options and its run: refclient/command_line.py,
which `python -m a2a_lab.harness.clients.refclient` runs without loading the rest of the command line)."""

from __future__ import annotations

import argparse

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.clients.refclient import command_line
from a2a_lab.harness.clients.refclient.command_line import add_arguments
from a2a_lab.harness.common.exit_codes import ClientExit


def cmd_client(args: argparse.Namespace) -> int:
    """Run the reference client as `a2a-lab client` (or in its loop, `--loop`)."""
    return command_line.cmd_client(args)


COMMAND = Command(
    "client",
    "the reference client: send one message to an agent and print what it understood",
    add_arguments,
    cmd_client,
    examples=(
        "a2a-lab client http://127.0.0.1:8000 'hello'",
        "a2a-lab client http://127.0.0.1:8000/.well-known/agent-card.json --stream --json",
    ),
    exit_codes=(
        (ClientExit.ANSWER, "a message, or a task that stopped (finished, failed, rejected, waiting for the user)"),
        (ClientExit.NO_ANSWER, "no answer: an error, or a task still running when the client gave up"),
        (ClientExit.USAGE, "usage error (a bad URL, option or action)"),
    ),
)
