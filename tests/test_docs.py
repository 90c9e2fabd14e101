"""The generated reference pages of the docs site stay in sync with the code and the scenario files
(docs/regen.sh writes them)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.cli import checks
from a2a_lab.harness.reports import catalogue_view

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "reference"
CLI_REFERENCE = "a2a_lab.harness.cli.reference"


def _body(name: str) -> str:
    text = (REFERENCE / name).read_text(encoding="utf-8")
    return text[text.index("|") :]


def test_checks_doc_in_sync() -> None:
    assert _body("checks.md") == checks.as_markdown(), "run docs/regen.sh: docs/reference/checks.md is stale"


def test_scenarios_doc_in_sync() -> None:
    cat = Catalogue.load()
    # the order `a2a-lab scenarios` lists them in: by id; the page is a heading and a line, then the generated text
    text = (REFERENCE / "scenarios.md").read_text(encoding="utf-8")
    assert text.endswith(catalogue_view.as_markdown(cat.choose([], []))), (
        "run docs/regen.sh: docs/reference/scenarios.md is stale"
    )


def test_cli_doc_in_sync() -> None:
    if importlib.util.find_spec(CLI_REFERENCE) is None:
        pytest.skip(f"{CLI_REFERENCE} does not exist yet: docs/reference/cli.md is a placeholder until it does")
    done = subprocess.run(
        [sys.executable, "-m", CLI_REFERENCE], capture_output=True, text=True, encoding="utf-8", timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (REFERENCE / "cli.md").read_text(encoding="utf-8") == done.stdout, (
        "run docs/regen.sh: docs/reference/cli.md is stale"
    )


#: The README is a front door: what a2a-lab is, the set-up commands, the ways in, and links into the docs site.
README_MOST_LINES = 250


def test_the_readme_stays_a_front_door() -> None:
    readme = (REFERENCE.parents[1] / "README.md").read_text(encoding="utf-8")
    lines = readme.count("\n")
    assert lines <= README_MOST_LINES, f"README.md has {lines} lines: move what is not a way in to a page of docs/"
    assert "pip install . && a2a-lab run" in readme and "pip install -e '.[test]' && pytest" in readme


def test_the_handshake_page_names_every_variable_the_client_inherits() -> None:
    """docs/reference/handshake.md writes the allow-list out for the reader; harness/client_judging/environment.py is
    what holds."""
    from a2a_lab.harness.client_judging.environment import names_given

    page = (REFERENCE / "handshake.md").read_text(encoding="utf-8")
    missing = [name for name in names_given() if f"`{name}`" not in page]
    assert not missing, f"docs/reference/handshake.md does not name {missing} in its allow-list"
