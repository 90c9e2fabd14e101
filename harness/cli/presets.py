"""`--client`: its presets (the built-in reference client and an adapter for the official a2a-sdk client), and the
check that a client command can be started at all."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from pathlib import Path

from a2a_lab.contract.suggest import nearest
from a2a_lab.protocol.exceptions import LabError


class PresetError(LabError, ValueError):
    """A --client preset that cannot be used (unknown, or its runtime missing)."""


def _python(module: str, *args: str) -> str:
    return " ".join([shlex.quote(sys.executable), "-m", module, *args])


PRESETS = {
    "builtin": "the a2a-lab reference client (a2a-lab client)",
    "a2a-sdk": (
        "the official a2a-sdk Python client, driven by a2a_lab.harness.clients.adapters.a2a_sdk "
        "(needs a2a-sdk >= 1.3 installed)"
    ),
}


def resolve(client: str, loop: bool = False) -> str:
    """A preset name becomes its command (for the loop handshake: `loop`); anything else is the user's own command,
    unchanged."""
    if client == "builtin":
        return _python("a2a_lab.harness.clients.refclient", "--loop" if loop else "{card_url}")
    if client == "a2a-sdk":
        if loop:
            raise PresetError(
                "the a2a-sdk preset does not speak the loop handshake: drop --client-mode loop, or give a command "
                "of your own that does (see docs/reference/handshake.md)"
            )
        if importlib.util.find_spec("a2a") is None or importlib.util.find_spec("a2a.client") is None:
            raise PresetError(
                "the a2a-sdk preset drives the official A2A Python SDK, which is not installed here; "
                "install it with: pip install 'a2a-sdk[http-server]>=1.3'"
            )
        return _python("a2a_lab.harness.clients.adapters.a2a_sdk", "{card_url}")
    return client


def check_client(command: str) -> None:
    """A client that cannot even be started is a usage error (exit 2), not a harness fault in every scenario."""
    from a2a_lab.harness.client_judging import process

    try:
        argv = process.split(command)
    except ValueError as exc:
        raise PresetError(f"--client {command!r} cannot be parsed: {exc}") from None
    if not argv:
        raise PresetError("--client is empty")
    program = Path(argv[0])
    if "/" in argv[0]:  # a path, not a name looked up on PATH
        if not program.exists():
            raise PresetError(f"--client: {argv[0]} does not exist")
        if program.is_dir() or not os.access(program, os.X_OK):
            raise PresetError(
                f"--client: {argv[0]} is not an executable file: make it one (chmod +x {argv[0]}, with a #! line), "
                f"or name its interpreter first, e.g. --client 'python3 {argv[0]}'"
            )
        return
    if shutil.which(argv[0]) is None:
        raise PresetError(
            f"--client {argv[0]!r} is neither a preset ({', '.join(PRESETS)}) nor a program found on PATH"
            + (f" (a file of that name is here: run it as ./{argv[0]})" if program.is_file() else "")
            + _mistyped_preset(argv)
        )


def _mistyped_preset(argv: list[str]) -> str:
    """`; did you mean 'a2a-sdk'?` when the command is one word near a preset's name; nothing for a command line with
    arguments (`a2a_sdk --x` names a program of the user's, not a preset), or a word near none. Only asked of a word
    that is no program on PATH: a real program is never second-guessed."""
    if len(argv) != 1:
        return ""
    near = nearest(argv[0], PRESETS)
    return f"; did you mean the preset {near!r}?" if near is not None else ""


def client_for(client: str, mode: str) -> str:
    """The command `--client` and `--client-mode` name, checked: PresetError when it cannot be used that way."""
    from a2a_lab.harness.client_judging.process import LOOP_MODE, loop_command

    command = resolve(client, mode == LOOP_MODE)
    check_client(command)
    if mode == LOOP_MODE:
        try:
            loop_command(command)
        except ValueError as exc:
            raise PresetError(str(exc)) from None
    return command
