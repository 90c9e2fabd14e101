"""The command line's layout (harness/cli/): every command registers itself through its Command record, with its
own help beside it, under the task it serves (one table: tasks.py), and no function grows past what a reader takes
in at once."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

from a2a_lab.harness.cli import build_parser, help_text
from a2a_lab.harness.cli.entry import commands
from a2a_lab.harness.cli.tasks import tasks

CLI = Path(__file__).resolve().parents[2] / "harness" / "cli"
#: The most lines a function of harness/cli/ may have (decorators and docstring included).
MOST_LINES = 80


def test_every_command_registers_itself_with_its_own_help() -> None:
    names = [c.name for c in commands()]
    assert len(set(names)) == len(names) == 15
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == names  # type: ignore[arg-type]
    for command in commands():
        parser = sub.choices[command.name]  # type: ignore[index]
        assert parser.get_default("func") is command.run and parser.get_default("guarded") is command.guarded
        assert parser.epilog == command.epilog and parser.description[1:].startswith(command.help[1:])


def test_each_commands_help_lives_in_its_own_module() -> None:
    """Its examples and exit codes are in the module that runs it; help_text.py holds only what commands share."""
    assert not hasattr(help_text, "EPILOGS")
    for command in commands():
        module = importlib.import_module(command.run.__module__)
        assert module.COMMAND is command, command.name
        assert command.examples and command.exit_codes, command.name


def test_the_top_level_help_lists_every_command_once_under_its_task() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "--help"], capture_output=True, text=True, check=True
    ).stdout
    lines = shown.splitlines()
    listed: list[str] = []
    for task in tasks():
        assert task.heading + ":" in lines, task.heading
        assert len(task.heading) + 1 < 80 and "\n" not in task.heading  # one line on a terminal of 80 columns
        at = lines.index(task.heading + ":")
        under = [line.split()[0] for line in lines[at + 1 :] if line.startswith("  ") and not line.startswith("   ")]
        section = under[: len(task.commands)]
        assert section == [c.name for c in task.commands], (task.heading, section)
        listed += section
    assert sorted(listed) == sorted(c.name for c in commands())
    assert shown.index(tasks()[-1].heading) < shown.index("options:")


def test_no_function_of_the_command_line_is_over_80_lines() -> None:
    long = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = (node.end_lineno or node.lineno) - start + 1
                if lines > MOST_LINES:
                    long.append(f"{path.name}:{node.lineno} {node.name}: {lines} lines")
    assert not long, long
