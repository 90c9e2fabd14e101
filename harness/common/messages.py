"""What the `a2a-lab` commands say to people: their messages on stderr, the refusal of unusable input (exit 2), a
crash of the harness itself (exit 3), and the catalogue with its broken files reported. Light on purpose: the
reference client imports it and starts fast."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from a2a_lab.harness.common import escape
from a2a_lab.harness.common.exit_codes import Exit

if TYPE_CHECKING:
    from a2a_lab.contract.catalogue import Catalogue

PROG = "a2a-lab"


def say(text: str) -> None:
    """One line for people, on stderr, in the program's name (errors and progress alike), escaped for a terminal."""
    print(escape.console(f"{PROG}: {text}"), file=sys.stderr, flush=True)


def refuse(text: str) -> Exit:
    """Unusable input: say why, and exit with the usage code."""
    say(text)
    return Exit.USAGE


def crashed(what: str, exc: BaseException) -> Exit:
    """An unexpected exception in the harness itself: say what it was, and exit with the harness code."""
    say(f"{what}: {type(exc).__name__}: {exc}")
    return Exit.HARNESS


def load_catalogue(skipping: bool = True) -> Catalogue:
    """The scenario catalogue, each broken scenario file reported (`skipping`: the command goes on without it)."""
    from a2a_lab.contract.catalogue import Catalogue

    cat = Catalogue.load()
    for sid, exc in sorted(cat.broken.items()):
        say(f"scenario {sid} is broken{' and was skipped' if skipping else ''}:\n  {exc}")
    return cat
