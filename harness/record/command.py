"""`a2a-lab record BASE_URL --out scenarios/NAME.yaml`: capture a live server into a scenario file that replays it.

Exit codes: 0 written; 1 the server could not be recorded (an interface gave no answer); 2 unusable input (no card,
not a URL, the file exists without --force); 3 internal error. Nothing is written unless everything succeeded.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..refclient.options import DEFAULT_TEXT, READ_TIMEOUT_S
from ..run_command import EXIT_FAILED, EXIT_HARNESS, EXIT_OK, EXIT_USAGE
from .capture import RecordError, capture
from .scenario_file import document, render, write


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "target",
        metavar="BASE_URL",
        help="the server's origin (its card is at BASE_URL/.well-known/agent-card.json) or its card URL",
    )
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FILE.yaml",
        help="the scenario file to write (serve it with `a2a-lab serve FILE.yaml`)",
    )
    p.add_argument("--text", default=DEFAULT_TEXT, help=f"the message to send (default {DEFAULT_TEXT!r})")
    p.add_argument(
        "--keep-origin",
        action="store_true",
        help="keep the card's bytes untouched (its URLs keep naming the recorded server)",
    )
    p.add_argument("--force", action="store_true", help="overwrite FILE.yaml if it exists")
    p.add_argument(
        "--timeout",
        type=float,
        default=READ_TIMEOUT_S,
        help=f"seconds to wait for any one answer (default {READ_TIMEOUT_S:g})",
    )


def _err(text: str) -> None:
    print(f"a2a-lab: {text}", file=sys.stderr)


def cmd_record(args: argparse.Namespace) -> int:
    out: Path = args.out
    if out.exists() and not args.force:
        _err(f"{out} exists; give --force to overwrite it")
        return EXIT_USAGE
    if args.timeout <= 0:
        _err("--timeout must be positive")
        return EXIT_USAGE
    try:
        cap = capture(args.target, args.text, args.timeout)
        write(out, render(document(cap, args.keep_origin, args.text), out), args.force)
    except RecordError as exc:
        _err(f"nothing written: {exc}")
        return EXIT_USAGE if exc.usage else EXIT_FAILED
    except Exception as exc:
        _err(f"nothing written: record error: {type(exc).__name__}: {exc}")
        return EXIT_HARNESS
    print(
        f"a2a-lab: recorded {cap.card_url} ({len(cap.exchanges)} exchange(s)) to {out}; replay with: a2a-lab serve {out}",
        file=sys.stderr,
    )
    return EXIT_OK
