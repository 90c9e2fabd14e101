"""docs/reference/client-requirements.md traces every client requirement of the spec to what judges it; the table
cannot drift.

The Markdown table is the data. Every check and scenario it names exists, every check of the catalogue is traced by
at least one row, ids are unique, each row is exactly one of judged / not observable / gap, and the counts at the top
agree with the rows. No server is started.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.client_judging.checks import REGISTRY

DOC = Path(__file__).resolve().parent.parent / "docs" / "reference" / "client-requirements.md"

COLUMNS = ("id", "keyword", "spec", "requirement", "checks", "scenarios", "judged from / why not")
COUNT_COLUMNS = ("keyword", "requirements", "judged", "not observable", "gap")
#: RFC 2119 keywords as the spec writes them; lower case for duties stated without one; `(none)` for no word at all.
KEYWORDS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "must", "should", "(none)")
BASES = ("wire + self-report", "self-report", "wire")
NOT_OBSERVABLE = "not observable on the wire: "
GAP = "gap"
NONE = "—"

ROW_ID = re.compile(r"C-[A-Z0-9]+-\d+")
CODE_LIST = re.compile(r"`[^`]+`(, `[^`]+`)*")
CODE = re.compile(r"`([^`]+)`")
SELF_REPORT_SENTENCE = re.compile(
    r"Of the (?P<judged>\d+) judged rows, (?P<self_report>\d+) are judged from self-report only"
)
#: One `;`-separated citation: an A2A 1.0 section (§8.3.2), a 0.3 one (0.3 §5.6.3), the proto, Appendix A, or the
#: JSON-RPC 2.0, RFC or WHATWG text the spec relies on.
CITATION = re.compile(
    r"((0\.3|1\.1) )?§\d+(\.\d+)*( rules? \d+(-\d+)?)?"
    r"|App\. A(\.\d+)*"
    r"|proto `[A-Za-z_.]+`"
    r"|JSON-RPC 2\.0 §\d+(\.\d+)?"
    r"|RFC \d+ §\d+(\.\d+)*"
    r"|WHATWG HTML §\d+(\.\d+)*"
)


@dataclass(frozen=True)
class Row:
    line: int
    cells: dict[str, str]

    @property
    def id(self) -> str:
        return self.cells["id"]

    @property
    def keyword(self) -> str:
        return self.cells["keyword"]

    @property
    def checks(self) -> list[str]:
        return CODE.findall(self.cells["checks"])

    @property
    def scenarios(self) -> list[str]:
        return CODE.findall(self.cells["scenarios"])

    @property
    def verdict(self) -> str:
        return self.cells["judged from / why not"]

    @property
    def category(self) -> str:
        if self.verdict.startswith(NOT_OBSERVABLE):
            return "not observable"
        if self.verdict.startswith(GAP):
            return "gap"
        return "judged"

    def where(self) -> str:
        return f"{DOC.name}:{self.line} {self.id}"


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _tables(header: tuple[str, ...]) -> list[list[tuple[int, list[str]]]]:
    """Every table whose header row is `header`: its body rows, with their line numbers."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    tables = []
    for i, line in enumerate(lines):
        if line.startswith("|") and tuple(_cells(line)) == header:
            body = []
            for j in range(i + 2, len(lines)):
                if not lines[j].startswith("|"):
                    break
                body.append((j + 1, _cells(lines[j])))
            tables.append(body)
    return tables


@cache
def _rows() -> tuple[Row, ...]:
    rows = []
    for table in _tables(COLUMNS):
        for line, cells in table:
            assert len(cells) == len(COLUMNS), f"{DOC.name}:{line}: {len(cells)} cells, expected {len(COLUMNS)}"
            rows.append(Row(line, dict(zip(COLUMNS, cells, strict=True))))
    return tuple(rows)


@cache
def _scenario_ids() -> frozenset[str]:
    return frozenset(Catalogue.load().scenarios)


def test_the_doc_has_requirement_tables() -> None:
    assert len(_tables(COLUMNS)) >= 5
    assert len(_rows()) >= 50


def test_ids_are_well_formed_and_unique() -> None:
    ids = Counter(row.id for row in _rows())
    assert not [row.where() for row in _rows() if not ROW_ID.fullmatch(row.id)], "ids look like C-AREA-1"
    assert not [i for i, n in ids.items() if n > 1], "requirement ids must be unique"


def test_keywords_and_citations() -> None:
    bad_keyword = [f"{row.where()}: {row.keyword!r}" for row in _rows() if row.keyword not in KEYWORDS]
    assert not bad_keyword, f"keyword must be one of {KEYWORDS}"
    bad_spec = [
        f"{row.where()}: {part!r}"
        for row in _rows()
        for part in row.cells["spec"].split("; ")
        if not CITATION.fullmatch(part)
    ]
    assert not bad_spec, "cite sections as §8.3.2, 0.3 §5.6.3, JSON-RPC 2.0 §5, RFC 9110 §15, proto `Name`"
    assert not [row.where() for row in _rows() if not row.cells["requirement"]], "every row states its requirement"


def test_each_row_is_judged_or_not_observable_or_a_gap() -> None:
    problems = []
    for row in _rows():
        checks, scenarios = row.cells["checks"], row.cells["scenarios"]
        if row.category == "judged":
            if not CODE_LIST.fullmatch(checks) or not CODE_LIST.fullmatch(scenarios):
                problems.append(f"{row.where()}: a judged row lists `CHECK`s and `area/scenario`s, comma-separated")
            if not row.verdict.startswith(BASES):
                problems.append(f"{row.where()}: a judged row starts with one of {BASES}, got {row.verdict!r}")
        else:
            if (checks, scenarios) != (NONE, NONE):
                problems.append(f"{row.where()}: a row no check judges has {NONE} for checks and scenarios")
            reason = row.verdict.removeprefix(NOT_OBSERVABLE).removeprefix(GAP).lstrip(" (:")
            if len(reason) < 20:
                problems.append(f"{row.where()}: say why it is not observable, or what would judge the gap")
    assert not problems, "\n".join(problems)


def test_every_named_check_exists() -> None:
    unknown = [f"{row.where()}: {c}" for row in _rows() for c in row.checks if c not in REGISTRY]
    assert not unknown, "checks named in the doc that the registry does not have"


def test_every_named_scenario_exists() -> None:
    unknown = [f"{row.where()}: {s}" for row in _rows() for s in row.scenarios if s not in _scenario_ids()]
    assert not unknown, "scenarios named in the doc that the catalogue does not have"


def test_every_check_is_traced_to_a_requirement() -> None:
    cited = {c for row in _rows() for c in row.checks}
    untraced = sorted(set(REGISTRY) - cited)
    assert not untraced, f"add a row to {DOC.name} for what these checks judge: {untraced}"


def test_counts_at_the_top_match_the_table() -> None:
    (table,) = _tables(COUNT_COLUMNS)
    stated = {cells[0]: [int(n) for n in cells[1:]] for _, cells in table}
    counted: dict[str, list[int]] = {}
    for keyword in (*KEYWORDS, "all"):
        rows = [row for row in _rows() if keyword in (row.keyword, "all")]
        if rows:
            kinds = Counter(row.category for row in rows)
            counted[keyword] = [len(rows), kinds["judged"], kinds["not observable"], kinds["gap"]]
    assert stated == counted, f"update the counts table in {DOC.name}"


def test_self_report_count_at_the_top_matches_the_table() -> None:
    stated = SELF_REPORT_SENTENCE.search(DOC.read_text(encoding="utf-8"))
    assert stated is not None, f"{DOC.name} says how many judged rows rest on self-report only"
    judged = [row for row in _rows() if row.category == "judged"]
    self_report = [row for row in judged if row.verdict.startswith("self-report")]
    assert (int(stated["judged"]), int(stated["self_report"])) == (len(judged), len(self_report))
