"""A self-contained HTML report, one file with no scripts, fonts or anything fetched at view time: a summary first
(outcome counts, per group), the failures with requirement / expected / actual and the quoted request, what
changed against a previous report or the baseline, a per-check view, the client x scenario matrix, then every
scenario with its checks, sequence diagram and transcript. Probe reports are worded for a server under test."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from a2a_lab.harness.common.model import GATING, MISSES, SEVERITY, Outcome
from a2a_lab.harness.reports import compare
from a2a_lab.harness.reports.html_scenario import (
    CHECKS_DOC,
    anchor,
    badge,
    cause_first,
    check_anchor,
    check_detail,
    check_link,
    e,
    more_line,
    prose,
    scenario_section,
    section_links,
)

PROBE_DOC = "https://github.com/a2a-lab/a2a-lab/blob/main/docs/how-to/probe.md"
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #d0d7de}h3{font-size:15px}
h4{font-size:14px;margin:12px 0 4px}nav a{margin-right:12px}
table{border-collapse:collapse;margin:8px 0}\
td,th{border:1px solid #d0d7de;padding:4px 8px;font-size:13px;text-align:left;vertical-align:top}
th{background:#f6f8fa}.o{color:#fff;font-weight:600;border-radius:4px;padding:1px 6px;font-size:12px;white-space:nowrap;
margin-right:3px}
a{color:#0969da;text-decoration:none}pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:12px;max-height:400px}
td pre{white-space:pre-wrap;word-break:break-all;max-width:70ch}td{max-width:80ch}.req{color:#57606a;margin-bottom:4px}
.fail{border-left:4px solid #cf222e;padding:2px 12px;margin:8px 0;background:#fff8f8}.fail ul{margin:4px 0}
.fail li{margin:6px 0}details{margin:4px 0}svg{background:#fbfcfd;border:1px solid #d0d7de}
.rule{margin:4px 0}.fix{margin:4px 0;background:#f0f7ff;padding:2px 6px}.follows{color:#9a6700;font-style:italic}
.more{margin:4px 0;color:#57606a}
:target{outline:2px solid #bf8700}
"""
#: Outcomes that make a scenario worth listing under Failures.
_SHOWN = frozenset(o.value for o in GATING) | {Outcome.NON_STRICT.value}


def _rank(outcome: str) -> int:
    return -SEVERITY[Outcome(outcome)]


def _counts(outcomes: list[str]) -> str:
    counted = Counter(outcomes)
    return " ".join(badge(o, n) for o, n in sorted(counted.items(), key=lambda kv: _rank(kv[0]))) or "—"


class Page:
    def __init__(self, reports: list[dict[str, Any]], previous: list[dict[str, Any]] | None = None) -> None:
        self.reports = reports
        self.previous = previous
        self.probe = bool(reports) and all("probe" in r for r in reports)
        #: A live pair seen through `a2a-lab proxy`: both lanes are under test (`proxy/client`, `proxy/server`).
        self.proxied = bool(reports) and all("proxy" in r for r in reports)
        self.names = [str(r.get("name") or r.get("client") or f"client {i + 1}") for i, r in enumerate(reports)]
        self.by = [{s["id"]: s for s in r["scenarios"]} for r in reports]
        worst = {
            sid: min(_rank(s["outcome"]) for scenarios in self.by if (s := scenarios.get(sid)))
            for sid in {sid for scenarios in self.by for sid in scenarios}
        }
        self.ids = sorted(worst, key=lambda sid: (worst[sid], sid))  # failures first
        self.who = "server" if self.probe else "client"
        self.what = "interface" if self.probe else "scenario"

    def short(self, i: int) -> str:
        name = self.names[i]
        return name if len(name) <= 48 else name[:45] + "..."

    def build(self) -> str:
        title = (
            "a2a-lab probe report"
            if self.probe
            else "a2a-lab proxy report"
            if self.proxied
            else "a2a-lab conformance report"
        )
        return "\n".join(
            [
                f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
                f"<style>{CSS}</style></head><body>",
                f"<h1>{title}</h1>",
                '<nav><a href="#summary">Summary</a><a href="#failures">Failures</a><a href="#changes">Changes</a>'
                f'<a href="#checks">Checks</a><a href="#matrix">Matrix</a><a href="#scenarios">{self.what.title()}s</a>'
                "</nav>",
                self.summary(),
                self.failures(),
                self.changes(),
                self.checks(),
                self.matrix(),
                self.scenarios(),
                "</body></html>",
            ]
        )

    def summary(self) -> str:
        out = [
            '<h2 id="summary">Summary</h2><table>'
            f"<tr><th>{self.who}</th><th>verdict</th><th>{self.what}s</th><th>checks passed</th><th>run</th></tr>"
        ]
        for i, report in enumerate(self.reports):
            summary = report.get("summary", {})
            levels = ", ".join(
                f"{k} {v['passed']}/{v['judged']}" for k, v in summary.get("levels", {}).items() if v.get("judged")
            )
            gate = "FAIL" if summary.get("gate") == "failed" else "PASS"
            seed = [f"seed {report['seed']}"] if report.get("seed") is not None else []  # a probe or proxy has none
            run = [*seed, f"started {report.get('started') or '?'}"]
            if report.get("merged_from"):
                run.append(f"merged from {report['merged_from']} report(s)")
            command = f"<br><small><code>{e(report.get('client', ''))}</code></small>" if report.get("name") else ""
            out.append(
                f"<tr><td><b>{e(self.names[i])}</b>{command}</td><td>{badge(gate)} {e(summary.get('verdict', ''))}</td>"
                f"<td>{_counts([s['outcome'] for s in report['scenarios']])}{_subjects(summary)}</td>"
                f"<td>{e(levels or 'none judged')}</td>"
                f"<td>{e(', '.join(run))}</td></tr>"
            )
        out.append("</table>")
        groups = sorted({s["group"] for r in self.reports for s in r["scenarios"]})
        out.append(
            "<h4>Per group</h4><table><tr><th>group</th>"
            + "".join(f"<th>{e(self.short(i))}</th>" for i in range(len(self.reports)))
            + "</tr>"
        )
        for group in groups:
            cells = "".join(
                f"<td>{_counts([s['outcome'] for s in r['scenarios'] if s['group'] == group])}</td>"
                for r in self.reports
            )
            out.append(f"<tr><td>{e(group)}</td>{cells}</tr>")
        out.append("</table>")
        return "\n".join(out)

    def failures(self) -> str:
        out = []
        for sid in self.ids:
            for i, scenarios in enumerate(self.by):
                s = scenarios.get(sid)
                if not s or s["outcome"] not in _SHOWN:
                    continue
                missed = [c for c in cause_first(s["checks"]) if c["outcome"] in MISSES and not c.get("baseline")]
                items = "".join(
                    f"<li>{check_link(c['id'])} {badge(c['outcome'])} [{e(c['level'])}] {e(c['message'])}"
                    f"{check_detail(c, i, sid)}</li>"
                    for c in missed
                )
                error = f"<p><b>{e(s['error'])}</b></p>" if s.get("error") else ""
                out.append(
                    f'<div class="fail"><h4><a href="#{anchor(i, sid)}">{e(sid)}</a> {badge(s["outcome"])} '
                    f"<small>{e(self.short(i))}</small></h4>{error}<ul>{items}</ul>{more_line(s)}</div>"
                )
        head = f'<h2 id="failures">Failures ({len(out)})</h2>'
        return head + ("\n".join(out) if out else f"<p>No {self.what} failed.</p>")

    def changes(self) -> str:
        out = ['<h2 id="changes">Changes</h2>']
        for i, report in enumerate(self.reports):
            who = f" <small>{e(self.short(i))}</small>" if len(self.reports) > 1 else ""
            previous = compare.pick(report, self.previous) if self.previous is not None else None
            if previous is not None:
                diff = compare.diff(report, previous, "the previous report")
                out.append(f"<h4>Against {e(diff.previous)}{who}</h4>")
                for label, changes in (("worse", diff.worse), ("better", diff.better)):
                    rows = "".join(
                        f'<tr><td><a href="#{anchor(i, c.scenario)}">{e(c.scenario)}</a></td>'
                        f"<td>{check_link(c.check) if c.check else f'({self.what})'}</td>"
                        f"<td>{badge(c.before) if c.before else 'absent'} → {badge(c.after) if c.after else 'absent'}"
                        "</td></tr>"
                        for c in changes
                    )
                    out.append(
                        f"<p><b>{len(changes)} {label}</b></p>"
                        + (f"<table><tr><th>{self.what}</th><th>check</th><th>before → now</th></tr>{rows}</table>")
                        * bool(changes)
                    )
            expected, stale = compare.baseline_entries(report)
            if expected or stale:
                rows = "".join(
                    f'<tr><td><a href="#{anchor(i, sid)}">{e(sid)}</a></td><td>{check_link(cid)}</td>'
                    f"<td>{e(reason)}</td></tr>"
                    for sid, cid, reason in expected
                )
                out.append(
                    f"<h4>Against the baseline{who}</h4><p>{len(expected)} expected failure(s) still fail"
                    f"{'; ' + str(len(stale)) + ' entr(ies) now pass: remove them' if stale else ''}.</p>"
                    + (f"<table><tr><th>{self.what}</th><th>check</th><th>reason</th></tr>{rows}</table>" * bool(rows))
                    + "".join(f"<p>{e(note)}</p>" for note in stale)
                )
        if len(out) == 1:
            out.append("<p>Nothing to compare with: give <code>--compare PREVIOUS.json</code> or a baseline.</p>")
        return "\n".join(out)

    def checks(self) -> str:
        catalogue = {c["id"]: c for r in self.reports for c in r.get("checks", [])}
        for r in self.reports:
            for s in r["scenarios"]:
                for c in s["checks"]:
                    catalogue.setdefault(c["id"], c)
        doc = PROBE_DOC if self.probe else CHECKS_DOC
        out = [
            f'<h2 id="checks">Checks</h2><p>Every check, what a correct {self.who} '
            f"does, the {self.what}s where it missed, and its outcomes; the requirement texts are in "
            f'<a href="{doc}">the check catalogue</a>.</p>',
            "<table><tr><th>check</th><th>level</th><th>rule</th><th>spec</th><th>outcomes</th><th>missed in</th></tr>",
        ]
        for cid, check in catalogue.items():
            outcomes, missed = [], []
            for i, scenarios in enumerate(self.by):
                for sid in self.ids:
                    found = (
                        next((c for c in scenarios[sid]["checks"] if c["id"] == cid), None)
                        if sid in scenarios
                        else None
                    )
                    if found is None:
                        continue
                    outcomes.append(found["outcome"])
                    if found["outcome"] in MISSES:
                        who = f" ({e(self.short(i))})" if len(self.reports) > 1 else ""
                        missed.append(f'<a href="#{anchor(i, sid)}">{e(sid)}</a>{who}')
            title = f"<br><small>{e(check['title'])}</small>" if check.get("title") else ""
            out.append(
                f'<tr id="{check_anchor(cid)}"><td><a href="{doc}"><code>{e(cid)}</code></a>{title}</td>'
                f"<td>{e(check.get('level', ''))}</td><td>{prose(check.get('rule', ''))}</td>"
                f"<td>{section_links(check.get('section', ''))}</td>"
                f"<td>{_counts(outcomes)}</td><td>{', '.join(missed) or '—'}</td></tr>"
            )
        out.append("</table>")
        return "\n".join(out)

    def matrix(self) -> str:
        out = [
            f'<h2 id="matrix">Matrix</h2><table><tr><th>{self.what}</th>'
            + "".join(
                f'<th title="{e(r.get("client", ""))}">{e(self.short(i))}</th>' for i, r in enumerate(self.reports)
            )
            + "</tr>"
        ]
        for sid in sorted(self.ids):
            cells = "".join(
                f'<td><a href="#{anchor(i, sid)}">{badge(s["outcome"])}</a></td>'
                if (s := scenarios.get(sid))
                else "<td>—</td>"
                for i, scenarios in enumerate(self.by)
            )
            out.append(f"<tr><td>{e(sid)}</td>{cells}</tr>")
        out.append("</table>")
        return "\n".join(out)

    def scenarios(self) -> str:
        lifelines = ("a2a-lab probe", "server under test") if self.probe else ("client", "a2a-lab server")
        if self.proxied:
            lifelines = ("client under test", "server under test (through a2a-lab proxy)")
        return "\n".join(
            [f'<h2 id="scenarios">{self.what.title()}s</h2>']
            + [
                scenario_section(i, self.short(i), self.by[i][sid], lifelines)
                for sid in self.ids
                for i in range(len(self.reports))
                if sid in self.by[i]
            ]
        )


def build(reports: list[dict[str, Any]], previous: list[dict[str, Any]] | None = None) -> str:
    """One page from one or more JSON reports (one per client, shards already merged); `previous`: the reports of
    an earlier run to show what changed."""
    return Page(reports, previous).build()


def write(folder: Path, reports: list[dict[str, Any]], previous: list[dict[str, Any]] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "index.html"
    path.write_text(build(reports, previous), encoding="utf-8")
    return path


def _subjects(summary: dict[str, Any]) -> str:
    """Under the outcome counts: how many scenarios were judged on their subject, apart from the correct refusals of
    a card for another generation or binding (their subjects not judged, listed on hover)."""
    subjects = summary.get("subjects") or {}
    if not subjects.get("refused_card"):
        return ""
    listed = ", ".join(subjects.get("not_judged", []))
    return (
        f'<br><small title="{e(listed)}">judged on their subject: {subjects["judged"]}; correct refusals of a card '
        f"for another generation or binding: {subjects['refused_card']} (their subjects not judged)</small>"
    )
