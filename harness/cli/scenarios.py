"""`a2a-lab scenarios`: list the scenario catalogue, or explain one scenario."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.options import add_json_or_markdown, add_selection
from a2a_lab.harness.common import escape
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import load_catalogue, refuse

if TYPE_CHECKING:
    from a2a_lab.contract.loader import ScenarioError


def unresolved(exc: KeyError | ScenarioError) -> Exit:
    """An unknown scenario id or a missing file (a KeyError, whose str() is quoted) or a broken scenario file."""
    return refuse(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("id", nargs="?", help="scenario id or scenario file (with `show`)")
    add_json_or_markdown(p, "machine-readable list")
    add_selection(p)


def cmd_scenarios(args: argparse.Namespace) -> int:
    from a2a_lab.contract.catalogue import SelectionError, resolve
    from a2a_lab.contract.loader import ScenarioError
    from a2a_lab.harness.reports import catalogue_view

    cat = load_catalogue()
    if args.action == "show":
        if not args.id:
            return refuse("usage: a2a-lab scenarios show ID")
        try:
            scenario = resolve(args.id, cat)
        except (KeyError, ScenarioError) as exc:
            return unresolved(exc)
        if args.json:
            print(json.dumps(catalogue_view.as_json([scenario])["scenarios"][0], indent=2))
        else:
            print(escape.console(catalogue_view.explain(scenario)))
        return Exit.OK
    try:
        scenarios = cat.choose(args.scenario, args.exclude)
    except SelectionError as exc:
        return refuse(str(exc))
    if args.json:
        print(json.dumps(catalogue_view.as_json(scenarios, cat.broken), indent=2))
    elif args.markdown:
        print(escape.console(catalogue_view.as_markdown(scenarios)), end="")
    else:
        print(escape.console(catalogue_view.as_table(scenarios)))
    return Exit.OK if not cat.broken else Exit.USAGE


COMMAND = Command(
    "scenarios",
    "list the scenario catalogue, or explain one scenario",
    add_arguments,
    cmd_scenarios,
    examples=(
        "a2a-lab scenarios",
        "a2a-lab scenarios --scenario 'quirks/*' --json",
        "a2a-lab scenarios --scenario my-scenarios/          # your own files, as `run --scenario` takes them",
        "a2a-lab scenarios show quirks/advertised-method-not-found --json",
    ),
    exit_codes=(
        (Exit.OK, "listed"),
        (Exit.USAGE, "an unknown scenario id, a missing or broken scenario file"),
    ),
)
