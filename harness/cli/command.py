"""How a command joins the `a2a-lab` parser: a Command record names it, says what it is for, with examples and its
exit codes, adds its own options, and runs it. Each command module holds its own (`COMMAND`); the table of tasks
(tasks.py) registers them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from a2a_lab.harness.cli.help_text import ExitCodes, epilog
from a2a_lab.harness.cli.parser import Parser


@dataclass(frozen=True)
class Command:
    #: The command's name on the command line (`a2a-lab NAME`).
    name: str
    #: One line for `a2a-lab --help`; capitalised, with a full stop, it opens `a2a-lab NAME --help`.
    help: str
    #: Adds the command's own options and arguments to its parser.
    add_arguments: Callable[[argparse.ArgumentParser], None]
    #: Runs the command on the parsed arguments; returns the exit code.
    run: Callable[[argparse.Namespace], int]
    #: The command holds a2a-lab's credentials (the admin token, a run's token) while other programs run beside it:
    #: main() conceals them first (secrecy.py).
    guarded: bool = False
    #: Command lines, each as shown under `examples:` (a trailing `# ...` explains it). Every `a2a-lab` one is run,
    #: or at least parsed, by tests/harness/test_cli_examples.py.
    examples: tuple[str, ...] = ()
    #: What each exit code means for this command (help_text.py words what commands share).
    exit_codes: ExitCodes = ()
    #: More about the command than its one line, before the examples (paragraphs, as shown).
    about: str = ""

    @property
    def epilog(self) -> str:
        """What `a2a-lab NAME --help` says after the options: `about`, the examples, the exit codes."""
        return epilog(self.about, self.examples, self.exit_codes)

    def register(self, subparsers: argparse._SubParsersAction[Parser]) -> argparse.ArgumentParser:
        """The command's parser among `subparsers`: its help, its epilog, its options."""
        p = subparsers.add_parser(
            self.name,
            help=self.help,
            description=self.help[0].upper() + self.help[1:] + ".",
            epilog=self.epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        self.add_arguments(p)
        p.set_defaults(func=self.run, guarded=self.guarded)
        return p
