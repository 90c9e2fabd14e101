"""`a2a-lab checks`: the check catalogue as a table, JSON or Markdown."""

from __future__ import annotations

import argparse
import json

from .checks import catalogue


def as_markdown() -> str:
    lines = ["| check | level | spec | what it requires |", "|---|---|---|---|"]
    for c in catalogue():
        grading = f" *{c.grading}.*" if c.grading else ""
        lines.append(f"| `{c.id}` | {c.level.value} | {c.section} | {c.requirement}{grading} |")
    return "\n".join(lines) + "\n"


def add_arguments(p: argparse.ArgumentParser) -> None:
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="machine-readable catalogue")
    fmt.add_argument("--markdown", action="store_true", help="the catalogue as a Markdown table")


def cmd_checks(args: argparse.Namespace) -> int:
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": c.id,
                        "level": c.level.value,
                        "section": c.section,
                        "title": c.title,
                        "requirement": c.requirement,
                        "grading": c.grading,
                    }
                    for c in catalogue()
                ],
                indent=2,
            )
        )
    elif args.markdown:
        print(as_markdown(), end="")
    else:
        width = max(len(c.id) for c in catalogue())
        for c in catalogue():
            print(f"{c.id.ljust(width)}  {c.level.value:<6}  {c.title}")
    return 0
