"""Running harness_worker.py against a2a-lab as it is here, or as it was at a git commit: for before-and-after figures
measured side by side in one run, on the same machine, by the same interpreter and libraries.

A commit is exported with `git archive` into a temporary directory (no worktree registered, nothing in the
repository touched) and put first on PYTHONPATH as `a2a_lab`, ahead of the editable install. Clients the harness
starts inherit PYTHONPATH, so the `builtin` preset runs that commit's reference client too. Each tree's modules are
compiled to bytecode first, as an installed package's are (this machine sets PYTHONDONTWRITEBYTECODE, and a client
process that compiles its ~50 a2a-lab modules from source every time would measure the compiler, not a2a-lab).
"""

from __future__ import annotations

import compileall
import io
import json
import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().parent / "harness_worker.py"
#: The package's parts (pyproject's package-dir): a2a_lab.<name> is the tree's <name>/.
PARTS = ("protocol", "contract", "server", "harness", "scenarios")
HERE = "HEAD+"  # the working tree as installed (the committed HEAD plus whatever is not committed yet)


@dataclass
class Tree:
    label: str
    ref: str
    root: Path
    env: dict[str, str] = field(default_factory=dict)

    def worker(self, *args: str) -> dict[str, Any]:
        """harness_worker.py's JSON output, run against this tree."""
        done = subprocess.run(
            [sys.executable, str(WORKER), *args],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the worker failed on {self.label} ({self.ref}):\n{done.stderr[-4000:]}")
        out: dict[str, Any] = json.loads(done.stdout)
        if Path(out["tree"]).resolve() != self.root.resolve():
            raise RuntimeError(f"the worker for {self.label} imported a2a_lab from {out['tree']}, not {self.root}")
        return out


def commit_of(ref: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", ref], capture_output=True, text=True, check=True
    ).stdout.strip()


def compile_tree(root: Path) -> None:
    for part in PARTS:
        compileall.compile_dir(root / part, quiet=1, workers=1)


def tree(label: str, ref: str, scratch: Path) -> Tree:
    """The working tree (ref HERE), or `ref` exported under `scratch`."""
    if ref == HERE:
        compile_tree(REPO)
        return Tree(label, f"{commit_of('HEAD')} + working tree", REPO)
    commit = commit_of(ref)
    root = scratch / commit / "tree"
    if not root.exists():
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", commit], capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(root, filter="data")
        package = scratch / commit / "path" / "a2a_lab"
        package.mkdir(parents=True)
        for part in PARTS:
            (package / part).symlink_to(root / part, target_is_directory=True)
        compile_tree(root)
    path = str(scratch / commit / "path")
    pythonpath = os.pathsep.join(filter(None, [path, os.environ.get("PYTHONPATH", "")]))
    return Tree(label, f"{ref} = {commit}", root, {"PYTHONPATH": pythonpath})
