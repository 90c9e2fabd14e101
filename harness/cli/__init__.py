"""The `a2a-lab` command line: the parser and entry point (entry.py), one module per command (each registers its own
options and help through a Command record, command.py), and what the commands share: messages, options, help texts,
the gate, the checks of output paths, exit codes, and the `--client` presets.

`a2a-lab` is `a2a_lab.harness.cli:main`; `python -m a2a_lab.harness.cli` runs the same."""

from a2a_lab.harness.cli.entry import build_parser, main

__all__ = ["build_parser", "main"]
