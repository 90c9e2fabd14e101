"""`a2a-lab --help`: the commands grouped by task (tasks.py), each group under its one-line heading, where argparse
alone would list them in one run. Sub-commands have no groups in argparse; this parser lays its help out itself, with
argparse's own formatter, so widths and wrapping are argparse's."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from a2a_lab.harness.cli.parser import Parser
from a2a_lab.harness.cli.tasks import Task


class Overview(Parser):
    """The top-level parser: its help lists `tasks` where argparse lists the sub-commands."""

    def __init__(self, *args: Any, tasks: Sequence[Task], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tasks = tuple(tasks)

    def format_help(self) -> str:
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(self.description)
        for task in self.tasks:
            formatter.start_section(task.heading)
            formatter.add_arguments([_listed(c.name, c.help) for c in task.commands])
            formatter.end_section()
        formatter.start_section(self._optionals.title)
        formatter.add_arguments(self._optionals._group_actions)
        formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def _listed(name: str, help: str) -> argparse.Action:
    """A command as one line of the listing (an action only the formatter sees)."""
    return argparse.Action(option_strings=[], dest=name, help=help)
