"""The rendered catalogues in docs/ stay in sync with the code and the scenario files."""

from __future__ import annotations

from pathlib import Path

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.cli import catalogue_view, checks

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _body(name: str) -> str:
    text = (DOCS / name).read_text(encoding="utf-8")
    return text[text.index("|") :]


def test_checks_doc_in_sync() -> None:
    assert _body("checks.md") == checks.as_markdown(), "run: a2a-lab checks --markdown, and update docs/checks.md"


def test_scenarios_doc_in_sync() -> None:
    cat = Catalogue.load()
    # the order `a2a-lab scenarios` lists them in: by id
    assert _body("scenarios.md") == catalogue_view.as_markdown(cat.choose([], [])), (
        "run: a2a-lab scenarios --markdown, and update docs/scenarios.md"
    )
