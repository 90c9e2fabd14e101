"""The command line's layout (harness/cli/): every command registers itself through its Command record, with its
own help, and no function grows past what a reader takes in at once."""

from __future__ import annotations

import ast
from pathlib import Path

from a2a_lab.harness.cli import build_parser
from a2a_lab.harness.cli.entry import commands
from a2a_lab.harness.cli.help_text import EPILOGS

CLI = Path(__file__).resolve().parents[2] / "harness" / "cli"
#: The most lines a function of harness/cli/ may have (decorators and docstring included).
MOST_LINES = 80


def test_every_command_registers_itself_with_its_own_help() -> None:
    names = [c.name for c in commands()]
    assert len(set(names)) == len(names) and set(names) == set(EPILOGS)
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == names  # type: ignore[arg-type]
    for command in commands():
        parser = sub.choices[command.name]  # type: ignore[index]
        assert parser.get_default("func") is command.run and parser.get_default("guarded") is command.guarded
        assert parser.epilog == EPILOGS[command.name] and parser.description[1:].startswith(command.help[1:])


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
