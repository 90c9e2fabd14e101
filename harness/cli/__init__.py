"""The `a2a-lab` command line: the parser and entry point (entry.py), one module per command (each registers its own
options and help through a Command record, command.py), and what the commands share: messages, options, help texts,
the gate, the checks of output paths, exit codes, and the `--client` presets.

`a2a-lab` is `a2a_lab.harness.cli:main`; `python -m a2a_lab.harness.cli` runs the same.

Every `a2a-lab` process builds the whole parser, so a command's module imports at its top only what its options need
(argparse, the Command record, the option helpers, light constants), and what its function runs inside that function:
parsing, `--help`, `--version` and a usage error load no server, HTTP library or room's machinery
(tests/harness/test_cli_startup.py)."""

from a2a_lab.harness.cli.entry import build_parser, main

__all__ = ["build_parser", "main"]
