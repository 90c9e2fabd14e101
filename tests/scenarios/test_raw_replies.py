"""Expressiveness as a measured figure (issue 29): a catalogue scenario answers with `reply.raw` only where the bytes
themselves are the quirk, and says why (`reply.raw.byte_exact`). Everything else is written with structured options,
which follow the client's ids and version. Before issue 29: 9 raw replies in 8 scenarios, none saying why."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.loader import load_file
from a2a_lab.contract.scenario import Scenario
from tests.server.helpers import scenario_text, write_scenario


def raw_replies(scenarios: Iterable[Scenario]) -> dict[str, list[str | None]]:
    """Scenario id -> the `byte_exact` reason of each of its raw replies (None: it gives none)."""
    found: dict[str, list[str | None]] = {}
    for s in scenarios:
        for rules in s.rules.values():
            for rule in rules:
                if rule.reply.raw_status is not None:
                    found.setdefault(s.id, []).append(rule.reply.raw_byte_exact)
    return found


def unexplained(scenarios: Iterable[Scenario]) -> list[str]:
    return sorted(sid for sid, reasons in raw_replies(scenarios).items() if None in reasons)


def test_every_raw_reply_in_the_catalogue_says_why_its_bytes_are_the_quirk(catalogue: Catalogue) -> None:
    scenarios = [catalogue.get(sid) for sid in catalogue.ids()]
    assert unexplained(scenarios) == [], "a raw reply without byte_exact: express it with structured options"
    found = raw_replies(scenarios)
    assert found, "the catalogue has byte-exact quirks (HTML pages, a gateway's own JSON)"
    print(f"raw replies: {sum(map(len, found.values()))} in {len(found)} scenarios, each byte_exact")


def test_a_raw_reply_without_a_reason_is_caught(tmp_path: Path) -> None:
    body = "behaviour: {SendMessage: [{reply: {raw: {status: 502, body: '<h1>x</h1>'}}}]}\n"
    plain = load_file(write_scenario(tmp_path, scenario_text(body), "plain.yaml"), "test/plain")
    said = body.replace("'<h1>x</h1>'", "'<h1>x</h1>', byte_exact: a proxy page")
    explained = load_file(write_scenario(tmp_path, scenario_text(said), "said.yaml"), "test/said")
    assert unexplained([plain, explained]) == ["test/plain"]
