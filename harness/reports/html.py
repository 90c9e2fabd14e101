"""A self-contained HTML report: client x scenario matrix, per-scenario checks, transcript and a sequence
diagram drawn as inline SVG. No scripts, fonts or anything fetched at view time."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from a2a_lab.server.journal_record import EntryKind, Response, SentKind, entries_from_json

COLOURS = {
    "PASS": "#1a7f37",
    "NON_STRICT": "#bf8700",
    "FAIL": "#cf222e",
    "TIMEOUT": "#8250df",
    "NO_CONTACT": "#6e7781",
    "ERROR": "#000000",
    "SKIPPED": "#afb8c1",
    "UNIMPLEMENTED": "#57606a",
    "INFORMATIONAL": "#0969da",
}
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #d0d7de}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}\
td,th{border:1px solid #d0d7de;padding:4px 8px;font-size:13px;text-align:left;vertical-align:top}
th{background:#f6f8fa}.o{color:#fff;font-weight:600;border-radius:4px;padding:1px 6px;font-size:12px;white-space:nowrap}
a{color:#0969da;text-decoration:none}pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:12px;max-height:400px}
td pre{white-space:pre-wrap;word-break:break-all;max-width:70ch}td{max-width:80ch}
.summary{font-size:14px}details{margin:4px 0}svg{background:#fbfcfd;border:1px solid #d0d7de}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def badge(outcome: str) -> str:
    return f'<span class="o" style="background:{COLOURS.get(outcome, "#6e7781")}">{_e(outcome)}</span>'


def _anchor(client_index: int, scenario_id: str) -> str:
    return f"c{client_index}-" + "".join(ch if ch.isalnum() else "-" for ch in scenario_id)


def sequence_svg(journal: list[dict[str, Any]], limit: int = 40) -> str:
    """Client and server lifelines, one arrow pair per request (push deliveries go the other way)."""
    entries = entries_from_json(journal[:limit])
    row, top = 34, 40
    height = top + row * len(entries) + 20
    left, right, width = 90, 610, 700
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        'aria-label="sequence diagram">',
        '<defs><marker id="ah" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#57606a"/></marker></defs>',
        f'<text x="{left}" y="20" text-anchor="middle" font-size="13" font-weight="600">client</text>',
        f'<text x="{right}" y="20" text-anchor="middle" font-size="13" font-weight="600">a2a-lab server</text>',
        f'<line x1="{left}" y1="28" x2="{left}" y2="{height - 10}" stroke="#d0d7de" stroke-width="2"/>',
        f'<line x1="{right}" y1="28" x2="{right}" y2="{height - 10}" stroke="#d0d7de" stroke-width="2"/>',
    ]
    for i, entry in enumerate(entries):
        y = top + i * row
        push = entry.kind is EntryKind.PUSH
        x1, x2 = (right, left) if push else (left, right)
        label = (entry.rpc.method if entry.rpc else None) or f"{entry.method} {entry.path}"
        response, answer = entry.response or Response(), entry.answer
        back: Any = (answer.kind.value if answer else None) or response.fault or response.refused
        if not back:
            back = response.status if response.status is not None else ""
        if entry.tls is not None and entry.kind is EntryKind.TLS:  # a connection, not a request
            label = f"TLS ClientHello ({entry.tls.certificate} certificate)"
            back = "handshake completed" if entry.tls.completed else "handshake aborted"
        if answer is not None and answer.code is not None:
            back = f"error {answer.code}"
        elif answer is not None and answer.state is not None:
            back = f"task {answer.state.short}"
        colour = "#cf222e" if entry.unmatched or "error" in str(back) else "#57606a"
        parts.append(
            f'<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="{colour}" stroke-width="1.5" marker-end="url(#ah)"/>'
        )
        parts.append(
            f'<text x="{(left + right) / 2}" y="{y - 4}" text-anchor="middle" font-size="11">'
            f"#{_e(entry.seq)} {_e(label[:70])}</text>"
        )
        parts.append(
            f'<line x1="{x2}" y1="{y + 14}" x2="{x1}" y2="{y + 14}" stroke="{colour}" stroke-width="1" '
            'stroke-dasharray="4,3" marker-end="url(#ah)"/>'
        )
        parts.append(
            f'<text x="{(left + right) / 2}" y="{y + 26}" text-anchor="middle" font-size="10" fill="#57606a">'
            f"{_e(str(back)[:70])}</text>"
        )
    if len(journal) > limit:
        parts.append(
            f'<text x="{width / 2}" y="{height - 2}" text-anchor="middle" font-size="11">'
            f"... {len(journal) - limit} more requests</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _transcript(journal: list[dict[str, Any]]) -> str:
    rows = []
    for entry in entries_from_json(journal):
        body = entry.body_text
        response = entry.response or Response()
        answer = (response.body.text or "") if response.body is not None else ""
        events = "\n".join(
            json.dumps(ev.data if ev.kind is SentKind.DATA else ev.to_json(), separators=(",", ":"))
            for ev in entry.events or []
        )
        query = "?" + entry.query if entry.query else ""
        said = next((x for x in (response.status, response.fault, response.refused) if x is not None), "")
        rows.append(
            f"#{entry.seq} t={entry.t}s {entry.method} {entry.path}{query}\n"
            + "".join(f"{k}: {v}\n" for k, v in entry.headers.items())
            + (f"\n{body[:4000]}\n" if body else "")
            + f"-> {said}\n"
            + (f"{answer[:4000]}\n" if answer else "")
            + (f"{events[:8000]}\n" if events else "")
        )
    return "<pre>" + _e("\n".join(rows)) + "</pre>"


def _scenario_section(client_index: int, client: str, scenario: dict[str, Any]) -> str:
    out = [
        f'<h3 id="{_anchor(client_index, scenario["id"])}">{_e(scenario["id"])} {badge(scenario["outcome"])} '
        f"<small>client {client_index + 1}</small></h3>",
        f"<p>{_e(scenario.get('title', ''))}</p>",
    ]
    if scenario.get("error"):
        out.append(f"<p><b>{_e(scenario['error'])}</b></p>")
    out.append(
        "<table><tr><th>check</th><th>level</th><th>outcome</th><th>message</th>"
        "<th>requirement / expected / actual</th></tr>"
    )
    for check in scenario["checks"]:
        detail = f"{_e(check.get('requirement', ''))}"
        if check.get("expected") or check.get("actual"):
            detail += f"<br><b>expected:</b> {_e(check.get('expected'))}<br><b>actual:</b> {_e(check.get('actual'))}"
        if check.get("quote"):
            detail += f"<pre>{_e(check['quote'])}</pre>"
        if check.get("baseline"):
            detail += f"<br><i>expected failure: {_e(check['baseline'])}</i>"
        out.append(
            f"<tr><td>{_e(check['id'])}</td><td>{_e(check['level'])}</td><td>{badge(check['outcome'])}</td><td>{_e(check['message'])}</td><td>{detail}</td></tr>"
        )
    out.append("</table>")
    journal = scenario.get("journal") or []
    client_info = scenario.get("client") or {}
    opened = " open" if scenario["outcome"] not in ("PASS", "SKIPPED") else ""
    out.append(
        f"<details{opened}><summary>sequence ({len(journal)} requests)</summary>{sequence_svg(journal)}</details>"
    )
    out.append(f"<details><summary>transcript</summary>{_transcript(journal)}</details>")
    if client_info:
        out.append(
            f"<details><summary>client process (exit {_e(client_info.get('exit_code'))})</summary>"
            f"<pre>{_e(' '.join(client_info.get('command') or []))}"
            f"\n--- stdout (tail) ---\n{_e(client_info.get('stdout_tail', ''))}"
            f"\n--- stderr (tail) ---\n{_e(client_info.get('stderr_tail', ''))}</pre></details>"
        )
    return "\n".join(out)


def build(reports: list[dict[str, Any]]) -> str:
    """One page from one or more JSON reports (one per client, or per shard of a client, already merged)."""
    clients = [r.get("client", f"client {i + 1}") for i, r in enumerate(reports)]
    ids = sorted({s["id"] for r in reports for s in r["scenarios"]})
    by = [{s["id"]: s for s in r["scenarios"]} for r in reports]
    head = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>a2a-lab report</title>'
        f"<style>{CSS}</style></head><body>",
        "<h1>a2a-lab conformance report</h1>",
    ]
    for i, (client, report) in enumerate(zip(clients, reports, strict=True)):
        summary = report.get("summary", {})
        levels = summary.get("levels", {})
        counts = ", ".join(f"{k} {v['passed']}/{v['judged']}" for k, v in levels.items() if v.get("judged"))
        head.append(
            f'<p class="summary"><b>client {i + 1}</b>: <code>{_e(client)}</code> — {_e(summary.get("verdict", ""))} '
            f"({_e(counts)}; seed {_e(report.get('seed'))})</p>"
        )
    matrix = [
        "<h2>Matrix</h2><table><tr><th>scenario</th>"
        + "".join(f"<th>client {i + 1}</th>" for i in range(len(reports)))
        + "</tr>"
    ]
    for sid in ids:
        cells = []
        for i, scenarios in enumerate(by):
            s = scenarios.get(sid)
            cells.append(f'<td><a href="#{_anchor(i, sid)}">{badge(s["outcome"])}</a></td>' if s else "<td>—</td>")
        matrix.append(f"<tr><td>{_e(sid)}</td>{''.join(cells)}</tr>")
    matrix.append("</table>")
    details = ["<h2>Scenarios</h2>"] + [
        _scenario_section(i, clients[i], by[i][sid]) for sid in ids for i in range(len(reports)) if sid in by[i]
    ]
    return "\n".join(head + matrix + details + ["</body></html>"])


def write(folder: Path, reports: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "index.html"
    path.write_text(build(reports), encoding="utf-8")
    return path
