"""`a2a-lab checks`: the client checks as a table, JSON or Markdown."""

from __future__ import annotations

import argparse
import json

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.options import add_json_or_markdown
from a2a_lab.harness.common.exit_codes import Exit


def as_markdown() -> str:
    """The check reference: per check, what a correct client does (its rule), the fix for a client that misses it,
    its level and spec section, and the full requirement with how it is graded."""
    from a2a_lab.harness.client_judging.checks import client_checks
    from a2a_lab.harness.client_judging.checks.base import CARD_READING

    lines = [
        "| check | level | what a correct client does | fix | spec | what it requires |",
        "|---|---|---|---|---|---|",
    ]
    for c in client_checks():
        grading = f" *{c.grading}.*" if c.grading else ""
        cells = [f"`{c.id}`", c.level.value, c.rule, c.fix, c.section, c.requirement + grading]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n\n" + CARD_READING


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_json_or_markdown(p, "machine-readable catalogue")


def cmd_checks(args: argparse.Namespace) -> int:
    from a2a_lab.harness.client_judging.checks import client_checks
    from a2a_lab.harness.reports.json_report import check_json

    if args.json:
        print(json.dumps([check_json(c) for c in client_checks()], indent=2))
    elif args.markdown:
        print(as_markdown(), end="")
    else:
        width = max(len(c.id) for c in client_checks())
        for c in client_checks():
            print(f"{c.id.ljust(width)}  {c.level.value:<6}  {c.title}")
    return Exit.OK


COMMAND = Command(
    "checks",
    "list the check catalogue (ids, levels, spec sections)",
    add_arguments,
    cmd_checks,
    examples=("a2a-lab checks", "a2a-lab checks --markdown > checks.md"),
    exit_codes=((Exit.OK, "listed"),),
)
