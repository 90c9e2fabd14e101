"""`python -m a2a_lab.harness.clients.refclient CARD_URL [TEXT] ...`: the reference client alone, without loading the
harness and the server (the `builtin` preset runs it this way: a client process starts in a fraction of the time)."""

from __future__ import annotations

import argparse
import sys

from a2a_lab.harness.clients.refclient import command_line as client_command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="a2a-lab client", description="The a2a-lab reference A2A client.")
    client_command.add_arguments(parser)
    return int(client_command.cmd_client(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
