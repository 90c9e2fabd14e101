"""The argument parser of every command: argparse's, with did-you-mean (contract/suggest.py) for a mistyped
command, option or choice, and an unknown option reported under the usage of the command it was given to."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import Any, NoReturn

from a2a_lab.contract.suggest import nearest

#: argparse's wording of a value outside `choices` (Python 3.11-3.13: the choices quoted, comma-separated).
_INVALID_CHOICE = re.compile(
    r"^(?P<head>argument .+?: invalid choice: )(?P<given>'.*?'|\S+) \(choose from (?P<all>.*)\)$"
)


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors suggest the nearest spelling; sub-commands are made of this class too
    (argparse builds them with the parent's class)."""

    def error(self, message: str) -> NoReturn:
        super().error(_with_suggestion(message))

    def parse_args(  # type: ignore[override]  # the overloads of the base add nothing here
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            # Under the usage of the (sub-)command the arguments were given to, not the top level's.
            target = innermost(self, parsed)
            target.error(_unrecognized(extras, target))
        return parsed


def _with_suggestion(message: str) -> str:
    found = _INVALID_CHOICE.match(message)
    if not found:
        return message
    given = found["given"].strip("'")
    choices = re.findall(r"'([^']*)'", found["all"]) or [c.strip() for c in found["all"].split(",")]
    near = nearest(given, choices)
    if near is None:
        return message
    return f"{found['head']}{found['given']}: did you mean {near!r}? (choose from {found['all']})"


def innermost(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the deepest sub-command `parsed` chose (`a2a-lab report merge` -> merge's)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(parsed, action.dest, None)
            sub: Any = action.choices.get(chosen) if isinstance(chosen, str) else None
            if isinstance(sub, argparse.ArgumentParser):
                return innermost(sub, parsed)
    return parser


def _unrecognized(extras: list[str], parser: argparse.ArgumentParser) -> str:
    """argparse's message for arguments no option took, with the nearest option for each that looks like one."""
    options = sorted({o for action in parser._actions for o in action.option_strings if o.startswith("--")})
    hints = []
    for extra in extras:
        name = extra.split("=", 1)[0]
        if name.startswith("--"):
            near = nearest(name, options)
            if near is not None:
                hints.append(f"{name}: did you mean {near}?")
    return f"unrecognized arguments: {' '.join(extras)}" + (f" ({'; '.join(hints)})" if hints else "")
