"""The harness's public entry points keep working where its rooms moved: `a2a_lab.harness.inprocess` (documented),
the pytest plugin's entry point, `a2a-lab` itself, and the reference client's former path
`a2a_lab.harness.refclient`, a deprecation alias of `a2a_lab.harness.clients.refclient`."""

from __future__ import annotations

import importlib
import subprocess
import sys
from importlib.metadata import entry_points

import pytest


def test_the_documented_in_process_api_is_where_the_docs_say() -> None:
    inprocess = importlib.import_module("a2a_lab.harness.inprocess")
    assert {"run", "run_async", "Assignment", "InProcessRun", "Client"} <= set(inprocess.__all__)


def test_the_entry_points_name_modules_that_exist() -> None:
    plugin = [e for e in entry_points(group="pytest11") if e.name == "a2a_lab"]
    script = [e for e in entry_points(group="console_scripts") if e.name == "a2a-lab"]
    assert plugin and script, "a2a-lab is not installed (pip install -e .)"
    assert plugin[0].load().__name__ == "a2a_lab.harness.pytest_plugin"
    assert callable(script[0].load())


def test_the_former_refclient_path_warns_and_hands_out_the_same_names() -> None:
    sys.modules.pop("a2a_lab.harness.refclient", None)
    with pytest.warns(DeprecationWarning, match=r"moved to a2a_lab\.harness\.clients\.refclient"):
        alias = importlib.import_module("a2a_lab.harness.refclient")
    current = importlib.import_module("a2a_lab.harness.clients.refclient")
    assert alias.__all__ == current.__all__
    assert all(getattr(alias, name) is getattr(current, name) for name in current.__all__)


def test_the_former_refclient_path_still_runs_the_client_with_a_note() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.refclient", "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "usage: a2a-lab client" in done.stdout
    assert "deprecated" in done.stderr and "a2a_lab.harness.clients.refclient" in done.stderr
