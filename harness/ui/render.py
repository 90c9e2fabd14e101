"""Results on a page, drawn by the HTML report's own parts (reports/html_scenario.py): the checks with their
outcome, rule, spec sections, evidence and fix; the exchanges as a sequence diagram and as the raw transcript. A
result is the JSON report's form of a `ScenarioResult` (`to_json`), whatever produced it: the card check, the probe,
the proxy's live verdict, a run of a shared server, or a report file."""

from __future__ import annotations

from typing import Any

from a2a_lab.harness.common.model import MISSES
from a2a_lab.harness.reports.html_scenario import anchor, badge, cause_first, check_detail, e, sequence_svg, transcript

#: The most exchanges a live page draws in its sequence diagram (the transcript has them all).
DIAGRAM_LIMIT = 60


def checks_table(result: dict[str, Any], at: str, client_index: int = 0) -> str:
    """One result's checks, cause first; `at` names the transcript the evidence links point into."""
    rows = [
        "<table><caption class=note>checks, in the order the exchange meets them</caption>"
        "<tr><th scope=col>check</th><th scope=col>level</th><th scope=col>outcome</th><th scope=col>message</th>"
        "<th scope=col>details</th></tr>"
    ]
    for check in cause_first(result.get("checks") or []):
        full = check.get("outcome") in MISSES or bool(check.get("baseline"))
        rows.append(
            f"<tr><td><code>{e(check.get('id'))}</code></td><td>{e(check.get('level'))}</td>"
            f"<td>{badge(str(check.get('outcome')))}</td><td>{e(check.get('message', ''))}</td>"
            f"<td>{check_detail(check, client_index, at, full)}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def exchanges(journal: list[dict[str, Any]], at: str, lifelines: tuple[str, str], client_index: int = 0) -> str:
    """The sequence diagram of `journal` and its transcript (the raw bytes, redacted as the journal keeps them)."""
    here = anchor(client_index, at)
    if not journal:
        return "<p class=note>no exchange yet</p>"
    return (
        f"<h3>Sequence ({len(journal)} exchange{'s' if len(journal) != 1 else ''})</h3>"
        f"{sequence_svg(journal, f'ah-{here}', *lifelines, limit=DIAGRAM_LIMIT)}"
        f"<details><summary>raw exchanges (requests and answers as sent)</summary>{transcript(journal, here)}</details>"
    )


def result_block(result: dict[str, Any], lifelines: tuple[str, str], client_index: int = 0, open_: bool = False) -> str:
    """A whole result: heading with its outcome, its error, its checks, its exchanges."""
    sid = str(result.get("id", ""))
    opened = " open" if open_ or result.get("outcome") not in ("PASS", "SKIPPED", "INFORMATIONAL") else ""
    error = f"<p><b>{e(result['error'])}</b></p>" if result.get("error") else ""
    return (
        f'<details class=box{opened} id="{e(anchor(client_index, sid))}-block"><summary><b>{e(sid)}</b> '
        f"{badge(str(result.get('outcome')))} {e(result.get('title', ''))}</summary>{error}"
        f"{checks_table(result, sid, client_index)}"
        f"{exchanges(result.get('journal') or [], sid, lifelines, client_index)}</details>"
    )


def counts(results: list[dict[str, Any]]) -> str:
    """The outcomes of `results`, counted, worst first."""
    seen: dict[str, int] = {}
    for r in results:
        seen[str(r.get("outcome"))] = seen.get(str(r.get("outcome")), 0) + 1
    return " ".join(badge(o, n) for o, n in sorted(seen.items())) or "—"


def badge_of(result: dict[str, Any]) -> str:
    """A result's outcome as the report's badge."""
    return badge(str(result.get("outcome")))
