"""`a2a-lab probe BASE_URL`: the other direction — a2a-lab's reference client judges a server against its own card.

Exit codes are the harness's: 0 no FAIL, 1 a FAIL, 2 unusable input (no card), 3 internal error.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from a2a_lab.protocol.bindings import SHORT_NAMES

from ..cardcheck import urlpolicy
from ..refclient.options import READ_TIMEOUT_S
from ..run_command import EXIT_HARNESS, EXIT_USAGE, finish
from .catalogue import CATALOGUE
from .runner import ProbeOptions, Unusable, probe

BINDINGS = ("jsonrpc", "http+json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "target",
        metavar="BASE_URL",
        help="the server's origin (its card is at BASE_URL/.well-known/agent-card.json) or its card URL",
    )
    p.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report")
    p.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    p.add_argument("--html", type=Path, metavar="DIR", help="write a self-contained HTML report to DIR/index.html")
    p.add_argument("--binding", choices=BINDINGS, help="probe only the interfaces of this binding")
    p.add_argument(
        "--policy",
        choices=urlpolicy.POLICIES,
        help="the card's URL policy (default: lenient for a loopback target, strict otherwise)",
    )
    p.add_argument(
        "--token", help="present Authorization: Bearer TOKEN on every A2A call (for agents whose card requires it)"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=READ_TIMEOUT_S,
        help=f"seconds to wait for any one answer (default {READ_TIMEOUT_S:g})",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="show every miss in the scorecard")


def cmd_probe(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        print("a2a-lab: --timeout must be positive", file=sys.stderr)
        return EXIT_USAGE
    options = ProbeOptions(
        binding=SHORT_NAMES[args.binding] if args.binding else None,
        policy=args.policy,
        timeout=args.timeout,
        token=args.token,
    )
    started = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        run = probe(args.target, options)
    except Unusable as exc:
        print(f"a2a-lab: nothing to probe: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        print(f"a2a-lab: probe error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    print(
        f"a2a-lab: probed {run.card_url} ({len(run.results) - 1} interface(s), URL policy {run.policy})",
        file=sys.stderr,
    )
    args.strict, args.report_dir = False, None
    meta = {
        "client": f"a2a-lab probe {run.target}",
        "probe": {"target": run.target, "card_url": run.card_url, "policy": run.policy},
        "seed": 0,
        "started": started,
    }
    return finish(run.results, run.probed, args, meta, checks=CATALOGUE)
