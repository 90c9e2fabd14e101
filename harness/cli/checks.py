"""`a2a-lab checks`: the client checks as a table, JSON or Markdown."""

from __future__ import annotations

import argparse
import json

from ..checks import client_checks
from ..checks.base import CARD_READING
from ..reports.json_report import check_json
from .command import Command
from .exit_codes import Exit
from .options import add_json_or_markdown


def as_markdown() -> str:
    lines = ["| check | level | spec | what it requires |", "|---|---|---|---|"]
    for c in client_checks():
        grading = f" *{c.grading}.*" if c.grading else ""
        lines.append(f"| `{c.id}` | {c.level.value} | {c.section} | {c.requirement}{grading} |")
    return "\n".join(lines) + "\n\n" + CARD_READING


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_json_or_markdown(p, "machine-readable catalogue")


def cmd_checks(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps([check_json(c) for c in client_checks()], indent=2))
    elif args.markdown:
        print(as_markdown(), end="")
    else:
        width = max(len(c.id) for c in client_checks())
        for c in client_checks():
            print(f"{c.id.ljust(width)}  {c.level.value:<6}  {c.title}")
    return Exit.OK


COMMAND = Command("checks", "list the check catalogue (ids, levels, spec sections)", add_arguments, cmd_checks)
