"""Whether the files and folders a command was told to write can be written, checked before the work starts: a run
that ends in a traceback over a report path wastes the whole run, and exits with the gate's code."""

from __future__ import annotations

import os
from pathlib import Path

from ..reports.files import STDOUT, ReportFiles

__all__ = ["STDOUT", "file_problem", "first_problem", "folder_problem", "report_files_problem"]


def _nearest_existing(path: Path) -> Path:
    for candidate in [path, *path.parents]:
        if candidate.exists():
            return candidate
    return Path(".")


def _creatable(path: Path, option: str) -> str | None:
    """Why `path`, which does not exist, cannot be created (its folders included), or None."""
    base = _nearest_existing(path.parent if path.parent != path else path)
    if not base.is_dir():
        return f"{option} {path}: {base} is not a folder"
    if not os.access(base, os.W_OK | os.X_OK):
        return f"{option} {path}: cannot create it, {base} is not writable"
    return None


def file_problem(path: Path | None, option: str) -> str | None:
    """Why the file `path` cannot be written (None: it can, or none was asked for)."""
    if path is None or str(path) == STDOUT:
        return None
    if path.is_dir():
        return f"{option} {path}: is a folder; give a file name"
    if path.exists():
        return None if os.access(path, os.W_OK) else f"{option} {path}: the file is not writable"
    return _creatable(path, option)


def folder_problem(path: Path | None, option: str) -> str | None:
    """Why files cannot be written into the folder `path` (created when missing)."""
    if path is None:
        return None
    if path.exists() and not path.is_dir():
        return f"{option} {path}: exists and is not a folder"
    if path.is_dir():
        return None if os.access(path, os.W_OK | os.X_OK) else f"{option} {path}: the folder is not writable"
    return _creatable(path, option)


def first_problem(*problems: str | None) -> str | None:
    return next((p for p in problems if p), None)


def report_files_problem(files: ReportFiles) -> str | None:
    """Why one of the report files a command was asked for cannot be written (checked before a run starts), or None."""
    return first_problem(
        file_problem(files.json, "--json"),
        file_problem(files.junit, "--junit"),
        folder_problem(files.html, "--html"),
        folder_problem(files.folder, "--report-dir"),
    )
