"""Whether the files and folders a command was told to write can be written, checked before the work starts: a run
that ends in a traceback over a report path wastes the whole run, and exits with the gate's code.

An option that names something a command writes says so by its type (`type=output_file`, `output_folder` or
`output_path`); main() checks every such option of the command chosen (unwritable) before the command runs, so a new
command or option is checked without a line of its own. Nothing is left behind: where the target does not exist yet,
a file is created beside it and removed at once (the only proof that holds for root, /proc and read-only mounts)."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from a2a_lab.harness.reports.files import STDOUT

__all__ = [
    "STDOUT",
    "file_problem",
    "folder_problem",
    "output_file",
    "output_folder",
    "output_path",
    "path_problem",
    "unwritable",
]

#: The fix a refusal ends with.
_FIX = "give a path in a folder you can write"


def _instead(path: Path, option: str) -> str:
    """The fix, with an example: the same name in the current folder."""
    return f"{_FIX}, e.g. {option} {path.name}" if path.name and path.parent != Path(".") else _FIX


def output_file(text: str) -> Path:
    """argparse type: a file the command writes (`-`: stdout); checked by unwritable before the command runs."""
    return Path(text)


def output_folder(text: str) -> Path:
    """argparse type: a folder the command writes files into (created when missing)."""
    return Path(text)


def output_path(text: str) -> Path:
    """argparse type: a file, or an existing folder to write files into (`acts run --json FILE|DIR`)."""
    return Path(text)


def _nearest_existing(path: Path) -> Path:
    for candidate in [path, *path.parents]:
        if candidate.exists():
            return candidate
    return Path(".")


def _create_in(folder: Path) -> OSError | None:
    """Whether a file can be created in `folder`: one is, and removed (os.access says yes to root on /proc)."""
    try:
        handle, name = tempfile.mkstemp(prefix=".a2a-lab-", dir=folder)
    except OSError as exc:
        return exc
    os.close(handle)
    os.unlink(name)
    return None


def _creatable(path: Path, option: str) -> str | None:
    """Why `path`, which does not exist, cannot be created (its folders included), or None."""
    base = _nearest_existing(path.parent if path.parent != path else path)
    if not base.is_dir():
        return f"{option} {path}: {base} is not a folder; {_instead(path, option)}"
    failed = _create_in(base)
    if failed is not None:
        return (
            f"{option} {path}: nothing can be created in {base} ({failed.strerror or failed}); {_instead(path, option)}"
        )
    return None


def _opens_for_writing(path: Path) -> OSError | None:
    """Whether an existing file opens for writing (nothing is written, nothing truncated)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK))
    except OSError as exc:
        return exc
    return None


def file_problem(path: Path | None, option: str) -> str | None:
    """Why the file `path` cannot be written (None: it can, or none was asked for)."""
    if path is None or str(path) == STDOUT:
        return None
    if path.is_dir():
        return f"{option} {path}: is a folder; give a file name, e.g. {option} {path / 'report'}"
    if path.exists():
        failed = _opens_for_writing(path) if path.is_file() else None
        if failed is not None or not os.access(path, os.W_OK):
            why = failed.strerror if failed is not None else "permission denied"
            return f"{option} {path}: the file is not writable ({why}); {_instead(path, option)}"
        return None
    return _creatable(path, option)


def folder_problem(path: Path | None, option: str) -> str | None:
    """Why files cannot be written into the folder `path` (created when missing)."""
    if path is None:
        return None
    if path.exists() and not path.is_dir():
        return f"{option} {path}: exists and is not a folder; give a folder (or a new name)"
    if path.is_dir():
        failed = _create_in(path)
        if failed is not None:
            return f"{option} {path}: the folder is not writable ({failed.strerror}); {_instead(path, option)}"
        return None
    return _creatable(path, option)


def path_problem(path: Path | None, option: str) -> str | None:
    """Why `path`, a file or an existing folder, cannot be written."""
    return folder_problem(path, option) if path is not None and path.is_dir() else file_problem(path, option)


#: What each output type is checked with.
_CHECKS: dict[Callable[[str], Path], Callable[[Path | None, str], str | None]] = {
    output_file: file_problem,
    output_folder: folder_problem,
    output_path: path_problem,
}


def unwritable(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """Why one of the outputs `args` names (the options of `parser` typed output_*) cannot be written, or None."""
    for action in parser._actions:
        check = next((c for kind, c in _CHECKS.items() if action.type is kind), None)
        if check is None:
            continue
        named = action.option_strings[-1] if action.option_strings else str(action.metavar or action.dest)
        value = getattr(args, action.dest, None)
        for path in value if isinstance(value, list) else [value]:
            problem = check(path, named)
            if problem:
                return problem
    return None
