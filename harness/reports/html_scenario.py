"""The HTML report's parts for one scenario of one client: its checks (with evidence linked to the transcript
entries they cite), the transcript with pretty-printed JSON, and the sequence diagram as inline SVG."""

from __future__ import annotations

import json
import re
from typing import Any

from a2a_lab.contract.journal_record import EntryKind, Response, SentKind, entries_from_json
from a2a_lab.harness.client_judging.causes import rank
from a2a_lab.harness.common import escape
from a2a_lab.harness.common.model import MISSES
from a2a_lab.harness.reports.failure import more_command
from a2a_lab.harness.reports.spec_links import section_url
from a2a_lab.protocol.revisions import SPEC_DOCUMENTS, spec_document

COLOURS = {
    "PASS": "#1a7f37",
    "NON_STRICT": "#9a6700",
    "FAIL": "#cf222e",
    "TIMEOUT": "#8250df",
    "NO_CONTACT": "#6e7781",
    "ERROR": "#000000",
    "SKIPPED": "#8c959f",
    "UNIMPLEMENTED": "#57606a",
    "INFORMATIONAL": "#0969da",
}
#: Where the check catalogue is documented (a check id in the report links there too).
CHECKS_DOC = "https://github.com/a2a-lab/a2a-lab/blob/main/docs/reference/checks.md"


def e(text: Any) -> str:
    """Text for the page: entities, and control characters made visible (escape.html)."""
    return escape.html(text)


def badge(outcome: str, count: int | None = None) -> str:
    label = e(outcome) + (f" {count}" if count is not None else "")
    return f'<span class="o" style="background:{COLOURS.get(outcome, "#6e7781")}">{label}</span>'


def anchor(client_index: int, scenario_id: str) -> str:
    return f"c{client_index}-" + "".join(ch if ch.isalnum() else "-" for ch in scenario_id)


def check_anchor(check_id: str) -> str:
    """A check's element id: its letters and digits, anything else as `-` (a report file could say anything)."""
    return "check-" + "".join(ch if ch.isalnum() else "-" for ch in check_id)


def pretty(text: str) -> str:
    """A JSON text indented for reading; anything else (or a JSON scalar) as it is."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    return json.dumps(data, indent=2, ensure_ascii=False) if isinstance(data, dict | list) else text


def pretty_lines(text: str) -> str:
    """A quoted request (start line, headers, body): each line that is a JSON document, indented."""
    return "\n".join(pretty(line) if line[:1] in "{[" else line for line in text.split("\n"))


#: A section number in a spec reference (`§8.3.2`).
_SECTION = re.compile(r"§\d+(?:\.\d+)*")
#: A 0.3 section cited inside a 1.0 reference (`A2A 1.0 §8.2, §5.6.3 (0.3)`).
_OF_0_3 = " (0.3)"


def section_links(section: str) -> str:
    """A check's spec references, linked: each A2A 1.0 section to its place in the specification on the A2A site
    (spec_links.section_url), any other A2A or JSON-RPC reference to its document. A part that is only a section
    (`§5.3 method map`) reads in the document of the part before it."""
    out, document = [], None
    for part in section.split("; "):
        found = spec_document(part)
        document = found if found is not None or not part.startswith("§") else document
        if document == SPEC_DOCUMENTS["A2A 1.0"]:
            out.append(_sections_linked(part))
        elif document is not None:
            out.append(f'<a href="{e(document)}">{e(part)}</a>')
        else:
            out.append(e(part))
    return "; ".join(out)


def _sections_linked(part: str) -> str:
    """An A2A 1.0 reference with each of its sections linked (a 0.3 one it cites to the 0.3 document)."""
    out, at = [], 0
    for match in _SECTION.finditer(part):
        of_0_3 = part.startswith(_OF_0_3, match.end())
        url = SPEC_DOCUMENTS["A2A 0.3"] if of_0_3 else section_url(match.group())
        out += [e(part[at : match.start()]), f'<a href="{e(url)}">{e(match.group())}</a>']
        at = match.end()
    return "".join([*out, e(part[at:])])


def prose(text: str) -> str:
    """A rule or a fix for the page: escaped, with `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", e(text))


def more_line(scenario: dict[str, Any]) -> str:
    """Where the scenario's whole story is told (`a2a-lab scenarios show ID`), for a catalogue scenario."""
    more = more_command(str(scenario.get("id", "")), str(scenario.get("group", "")))
    return f'<div class="more">the whole story: <code>{e(more)}</code></div>' if more else ""


def cause_first(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A report's checks in the order the exchange meets them (causes.STAGES): a cause before its symptoms."""
    return sorted(checks, key=lambda c: rank(str(c.get("id", ""))))


def check_detail(check: dict[str, Any], client_index: int, scenario_id: str, full: bool = True) -> str:
    """The cause a miss follows from, the rule, the spec sections, expected / actual, the quoted request and links to
    the transcript entries it cites, the fix, and the full requirement folded (only the links unless `full`)."""
    parts = []
    if full and check.get("follows_from"):
        parts.append(
            f'<div class="follows">follows from {check_link(str(check["follows_from"]))}: fix that first</div>'
        )
    if full and check.get("rule"):
        parts.append(f'<div class="rule"><b>rule:</b> {prose(check["rule"])}</div>')
    if full and check.get("section"):
        parts.append(f"<div><b>spec:</b> {section_links(check['section'])}</div>")
    if full and (check.get("expected") or check.get("actual")):
        parts.append(
            f"<div><b>expected:</b> <code>{e(check.get('expected'))}</code></div>"
            f"<div><b>actual:</b> <code>{e(check.get('actual'))}</code></div>"
        )
    if check.get("evidence"):
        links = ", ".join(
            f'<a href="#{anchor(client_index, scenario_id)}-e{int(seq)}">#{int(seq)}</a>' for seq in check["evidence"]
        )
        parts.append(f"<div><b>evidence:</b> request {links}</div>")
    if check.get("quote") and full:
        parts.append(f"<pre>{e(pretty_lines(check['quote']))}</pre>")
    if full and check.get("fix") and check.get("outcome") != "ERROR":  # a harness error is nothing to fix in the client
        parts.append(f'<div class="fix"><b>fix:</b> {prose(check["fix"])}</div>')
    if full and check.get("requirement"):
        parts.append(
            f'<details class="req"><summary>the requirement in full</summary>{e(check["requirement"])}</details>'
        )
    if check.get("baseline"):
        parts.append(f"<div><i>expected failure (baseline): {e(check['baseline'])}</i></div>")
    return "".join(parts)


def check_link(check_id: str) -> str:
    return f'<a href="#{check_anchor(check_id)}"><code>{e(check_id)}</code></a>'


def sequence_svg(journal: list[dict[str, Any]], marker: str, left_name: str, right_name: str, limit: int = 40) -> str:
    """Two lifelines, one arrow pair per request (push deliveries go the other way). Each label has a row band
    of its own, so labels never overlap; `marker` names this diagram's arrowhead (ids are unique in a page)."""
    entries = entries_from_json(journal[:limit])
    row, top = 48, 44
    height = top + row * len(entries) + 16
    left, right, width = 90, 610, 700
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        'aria-label="sequence diagram">',
        f'<defs><marker id="{marker}" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#57606a"/></marker></defs>',
        f'<text x="{left}" y="20" text-anchor="middle" font-size="13" font-weight="600">{e(left_name)}</text>',
        f'<text x="{right}" y="20" text-anchor="middle" font-size="13" font-weight="600">{e(right_name)}</text>',
        f'<line x1="{left}" y1="28" x2="{left}" y2="{height - 10}" stroke="#d0d7de" stroke-width="2"/>',
        f'<line x1="{right}" y1="28" x2="{right}" y2="{height - 10}" stroke="#d0d7de" stroke-width="2"/>',
    ]
    mid = (left + right) / 2
    for i, entry in enumerate(entries):
        y = top + i * row  # request label y-4 .. arrow y .. answer arrow y+16 .. answer label y+29; next label y+44
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
        parts += [
            f'<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="{colour}" stroke-width="1.5" '
            f'marker-end="url(#{marker})"/>',
            f'<text x="{mid}" y="{y - 5}" text-anchor="middle" font-size="11"><title>{e(label)}</title>'
            f"#{e(entry.seq)} {e(label[:64])}</text>",
            f'<line x1="{x2}" y1="{y + 16}" x2="{x1}" y2="{y + 16}" stroke="{colour}" stroke-width="1" '
            f'stroke-dasharray="4,3" marker-end="url(#{marker})"/>',
            f'<text x="{mid}" y="{y + 29}" text-anchor="middle" font-size="10" fill="#57606a">'
            f"{e(str(back)[:64])}</text>",
        ]
    if len(journal) > limit:
        parts.append(
            f'<text x="{width / 2}" y="{height - 2}" text-anchor="middle" font-size="11">'
            f"... {len(journal) - limit} more requests (see the transcript)</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def transcript(journal: list[dict[str, Any]], prefix: str) -> str:
    """One block per request, each with the id evidence links point at (`<prefix>-e<seq>`)."""
    blocks = []
    for entry in entries_from_json(journal):
        response = entry.response or Response()
        answer = (response.body.text or "") if response.body is not None else ""
        events = "\n".join(
            json.dumps(ev.data if ev.kind is SentKind.DATA else ev.to_json(), separators=(",", ":"))
            for ev in entry.events or []
        )
        query = "?" + entry.query if entry.query else ""
        said = next((x for x in (response.status, response.fault, response.refused) if x is not None), "")
        text = (
            f"#{entry.seq} t={entry.t}s {entry.method} {entry.path}{query}\n"
            + "".join(f"{k}: {v}\n" for k, v in entry.headers.items())
            + (f"\n{pretty(entry.body_text[:4000])}\n" if entry.body_text else "")
            + f"-> {said}\n"
            + (f"{pretty(answer[:4000])}\n" if answer else "")
            + (f"{events[:8000]}\n" if events else "")
        )
        blocks.append(f'<pre id="{prefix}-e{entry.seq}">{e(text)}</pre>')
    return "".join(blocks) or "<p>no requests</p>"


def scenario_section(client_index: int, client_name: str, scenario: dict[str, Any], lifelines: tuple[str, str]) -> str:
    sid = scenario["id"]
    here = anchor(client_index, sid)
    out = [
        f'<h3 id="{here}">{e(sid)} {badge(scenario["outcome"])} <small>{e(client_name)}</small></h3>',
        f"<p>{e(scenario.get('title', ''))}</p>",
    ]
    if scenario.get("error"):
        out.append(f"<p><b>{e(scenario['error'])}</b></p>")
    if scenario["outcome"] not in ("PASS", "SKIPPED"):
        out.append(more_line(scenario))
    out.append("<table><tr><th>check</th><th>level</th><th>outcome</th><th>message</th><th>details</th></tr>")
    for check in cause_first(scenario["checks"]):
        full = check["outcome"] in MISSES or bool(check.get("baseline"))
        out.append(
            f"<tr><td>{check_link(check['id'])}</td><td>{e(check['level'])}</td><td>{badge(check['outcome'])}</td>"
            f"<td>{e(check['message'])}</td><td>{check_detail(check, client_index, sid, full)}</td></tr>"
        )
    out.append("</table>")
    journal = scenario.get("journal") or []
    opened = " open" if scenario["outcome"] not in ("PASS", "SKIPPED") else ""
    out.append(
        f"<details{opened}><summary>sequence ({len(journal)} requests)</summary>"
        f"{sequence_svg(journal, f'ah-{here}', *lifelines)}</details>"
    )
    out.append(f"<details><summary>transcript</summary>{transcript(journal, here)}</details>")
    client_info = scenario.get("client") or {}
    if client_info:
        out.append(
            f"<details><summary>client process (exit {e(client_info.get('exit_code'))})</summary>"
            f"<pre>{e(' '.join(client_info.get('command') or []))}"
            f"\n--- stdout (tail) ---\n{e(client_info.get('stdout_tail', ''))}"
            f"\n--- stderr (tail) ---\n{e(client_info.get('stderr_tail', ''))}</pre></details>"
        )
    return "\n".join(out)
