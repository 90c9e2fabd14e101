"""`a2a-lab card check FILE|URL`: lint, derived requests, signatures.

Exit 0 (warnings at most), 1 (errors), 2 (unusable input).
"""

from __future__ import annotations

import argparse
import json

from a2a_lab.contract import userfile
from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.common import escape
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import refuse
from a2a_lab.harness.server_judging.cardcheck import urlpolicy
from a2a_lab.protocol import cards


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["check"], help="what to do with the card")
    p.add_argument(
        "source",
        metavar="FILE|URL",
        help="a card file, or a URL to fetch it from once: the card's own URL, or the agent's origin or base URL "
        "(its card at /.well-known/agent-card.json, the legacy agent.json on 404, as `probe` and `client` find it)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--policy",
        choices=urlpolicy.POLICIES,
        default=None,
        help=(
            "URL policy: strict (https, port 443, no IP literal or local name) or lenient (any http(s) URL); "
            "default: lenient for a file (a local draft) and a loopback URL, strict for any other URL"
        ),
    )
    p.add_argument("--jwks", metavar="FILE|URL", help="verify the card's signatures with this JWKS (or single JWK)")
    p.add_argument(
        "--max-bytes",
        type=_max_bytes,
        default=cards.DEFAULT_CARD_SIZE_LIMIT,
        help=f"size cap (default {cards.DEFAULT_CARD_SIZE_LIMIT}, at most {userfile.CARD.max_bytes})",
    )


def _max_bytes(text: str) -> int:
    """--max-bytes: a size from 1 byte to the most a card file may be (userfile.CARD), for argparse."""
    most = userfile.CARD.max_bytes
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of bytes") from None
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"{value} is not from 1 to {most} bytes (a card is a few KiB)")
    return value


def cmd_card(args: argparse.Namespace) -> int:
    from a2a_lab.harness.server_judging.cardcheck.check import UnusableInput, check, load, render

    try:
        report = check(load(args.source, args.max_bytes), args.policy, args.jwks)
    except UnusableInput as exc:
        return refuse(str(exc))
    print(json.dumps(report, indent=2) if args.json else escape.console(render(report)))
    return Exit.FAILED if report["errors"] else Exit.OK


COMMAND = Command(
    "card",
    "check an agent card, from a file or a URL: lint, derived requests, signatures",
    add_arguments,
    cmd_card,
    examples=(
        "a2a-lab card check agent-card.json",
        "a2a-lab card check http://127.0.0.1:8000          # an origin: its card at /.well-known/agent-card.json",
        "a2a-lab card check https://agent.example/.well-known/agent-card.json --json --jwks jwks.json",
    ),
    exit_codes=(
        (Exit.OK, "the card has warnings at most"),
        (Exit.FAILED, "the card has errors"),
        (Exit.USAGE, "usage error: no card (a missing file, no card at the URL), not JSON, not a URL"),
    ),
)
