"""docs/reference/conformance.md says which spec revision each catalogue scenario follows: its table names every
scenario of a revision other than the default, and nothing else, and every revision a2a-lab knows has a row."""

from __future__ import annotations

import re
from pathlib import Path

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.protocol.revisions import DEFAULT, SpecRevision

DOC = Path(__file__).resolve().parents[2] / "docs" / "reference" / "conformance.md"


def _rows() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## Which spec revision each scenario follows") :].split("\n## ", 1)[0]
    rows = [line.split("|")[1:-1] for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    return {cells[0].strip(): cells[2].strip() for cells in rows[1:]}


def _revision(label: str) -> SpecRevision:
    number = re.match(r"v?(\d+\.\d+(?:\.\d+)?)", label)
    assert number is not None, label
    return SpecRevision(number.group(1))


def test_every_revision_has_a_row_and_the_default_is_the_rest() -> None:
    rows = {_revision(label): cell for label, cell in _rows().items()}
    assert set(rows) == set(SpecRevision)
    assert rows[DEFAULT] == "every scenario not listed below"


def test_the_table_lists_the_catalogue(catalogue: Catalogue) -> None:
    for label, cell in _rows().items():
        revision = _revision(label)
        if revision is DEFAULT:
            continue
        listed = set(re.findall(r"`([^`]+)`", cell))
        actual = {s.id for s in catalogue.scenarios.values() if s.spec_revision is revision}
        assert listed == actual, (
            f"docs/reference/conformance.md row {label!r}: listed {sorted(listed)}, catalogue {sorted(actual)}"
        )
