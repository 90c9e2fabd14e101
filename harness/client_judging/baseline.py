"""Expected failures: a YAML (or JSON) map of scenario id -> check id (or `*` for the whole scenario) -> reason.

A check id excuses that check's FAIL or NON_STRICT in that scenario. `*` excuses the whole scenario: its TIMEOUT or
NO_CONTACT and every failing check in it (never an ERROR, a harness fault). An entry with nothing to excuse in a run
that ran its scenario is stale, and listed so it can be removed. Unknown scenario and check ids are refused, with the
nearest known id."""

from __future__ import annotations

import difflib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from a2a_lab.contract import userfile, yamlfile
from a2a_lab.contract.userfile import Refused
from a2a_lab.harness.client_judging.scoring import gating
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.exceptions import LabError

#: The check id of an entry for the whole scenario.
WHOLE = "*"
#: Scenario outcomes `*` excuses (ERROR is the harness's fault, never expected).
EXCUSABLE = frozenset({Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.FAIL, Outcome.NON_STRICT})


class BaselineError(LabError, ValueError):
    pass


@dataclass
class Baseline:
    entries: dict[str, dict[str, str]] = field(default_factory=dict)
    source: str = "baseline"
    #: Entries that had nothing to excuse, as (scenario id, check id or `*`, what happened instead), as runs show them.
    stale: list[tuple[str, str, str]] = field(default_factory=list)
    #: Where each entry is in the file (`line L, column C`), by (scenario id, check id or "" for the scenario's own).
    lines: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Baseline:
        """Read through the bounded reader of user files (userfile.BASELINE); the form is checked on the composed
        YAML, so that every refusal names its line and none quotes what the file holds there."""
        try:
            top = yamlfile.compose(userfile.read_text(path, userfile.BASELINE), userfile.BASELINE, path)
        except Refused as exc:
            raise BaselineError(str(exc)) from None
        out = cls(source=str(path))
        if top is None:
            return out
        if not isinstance(top, yaml.MappingNode):
            raise _malformed(path, top, f"expected a mapping of scenario id -> {{check id or '{WHOLE}': reason}}")
        for key, checks in top.value:
            sid = _text(path, key, "a scenario id")
            if not isinstance(checks, yaml.MappingNode):
                raise _malformed(path, checks, f"expected a mapping of check id (or '{WHOLE}') -> reason text")
            out.lines[(sid, "")] = yamlfile.where(key)
            entry = out.entries[sid] = {}  # a scenario listed twice: the last entry counts, as YAML reads it
            for check, reason in checks.value:
                cid = _text(path, check, "a check id")
                if not (isinstance(reason, yaml.ScalarNode) and reason.tag == _STR):
                    raise _malformed(path, reason, "expected a reason, as text")
                entry[cid] = reason.value
                out.lines[(sid, cid)] = yamlfile.where(check)
        return out

    def validate(self, scenario_ids: Collection[str], check_ids: Collection[str]) -> None:
        """Refuse ids that name nothing (a misspelling would otherwise excuse nothing, silently)."""
        for sid, checks in self.entries.items():
            if sid not in scenario_ids:
                raise BaselineError(f"{self._at(sid, '')}unknown scenario {_id(sid)}; {_nearest(sid, scenario_ids)}")
            for cid in checks:
                if cid != WHOLE and cid not in check_ids:
                    raise BaselineError(
                        f"{self._at(sid, cid)}{sid}: unknown check {_id(cid)}; {_nearest(cid, check_ids)} "
                        f"(or '{WHOLE}' for the whole scenario)"
                    )

    def _at(self, sid: str, cid: str) -> str:
        """The start of an error about an entry: the file, and the entry's line when it was read from one."""
        line = self.lines.get((sid, cid))
        return f"{self.source}: {line}: " if line else f"{self.source}: "

    def apply_checks(self, result: ScenarioResult, strict: bool) -> list[str]:
        """Mark the expected check failures of a scored scenario, before its outcome is taken (an excused check does
        not make the outcome); returns notes for check entries with nothing to excuse."""
        notes: list[str] = []
        expected = self.entries.get(result.id, {})
        whole = expected.get(WHOLE)
        for check in result.checks:
            reason = expected.get(check.id)
            failed = gating(check.outcome, strict) or check.outcome is Outcome.NON_STRICT
            if reason is not None and failed:
                check.baseline = reason
            elif reason is not None:
                notes.append(self._stale(result.id, check.id, reason, check.outcome.value))
            elif whole is not None and check.outcome in (Outcome.FAIL, Outcome.NON_STRICT):
                check.baseline = whole
        return notes

    def apply_scenario(self, result: ScenarioResult, excused_checks: bool) -> list[str]:
        """After the outcome is taken: `*` excuses a TIMEOUT or NO_CONTACT; returns a note when `*` had nothing to
        excuse (`excused_checks`: it excused none of the scenario's checks either)."""
        reason = self.entries.get(result.id, {}).get(WHOLE)
        if reason is None:
            return []
        if result.outcome in EXCUSABLE:
            result.baseline = reason
            return []
        if excused_checks:
            return []
        return [self._stale(result.id, WHOLE, reason, result.outcome.value)]

    def _stale(self, sid: str, cid: str, reason: str, now: str) -> str:
        self.stale.append((sid, cid, now))
        what = "the whole scenario" if cid == WHOLE else "it"
        return (
            f"{sid} {cid}: listed as an expected failure ({reason}) but {what} now {now}; remove it from the baseline"
        )


_STR = "tag:yaml.org,2002:str"
#: Longest id an error quotes (a key of any length may be anything: only its line is named then).
_ID_QUOTED = 100


def _malformed(path: Path, node: yaml.Node, problem: str) -> BaselineError:
    return BaselineError(str(Refused(path, yamlfile.where(node), problem, "")))


def _text(path: Path, node: yaml.Node, what: str) -> str:
    """A key's text (a number is its digits, as it is written)."""
    if not isinstance(node, yaml.ScalarNode) or node.tag == "tag:yaml.org,2002:null":
        raise _malformed(path, node, f"expected {what}, as text")
    return str(node.value)


def _id(name: str) -> str:
    """An id as an error quotes it: in quotes, escaped; one too long to be an id by its line only."""
    return repr(name) if len(name) <= _ID_QUOTED else f"(an id of {len(name)} characters)"


def _nearest(name: str, known: Collection[str]) -> str:
    near = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    return f"did you mean {', '.join(near)}?" if near else "no known id is close"
