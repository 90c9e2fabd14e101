"""Page 1, check a card: a pasted card (at most 64 KiB, never fetched) or a card URL (fetched once, when asked, as
`a2a-lab card check URL` fetches it) goes through the card check itself (cardcheck/command.py's `check`: the lint,
the request each interface derives, signatures, the URL policy and why); then, when asked, the probe of the live
server against its own card (probe/runner.py's `probe`). A plain form POST: it works without JavaScript."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from a2a_lab.harness.reports.html_scenario import e
from a2a_lab.harness.server_judging.cardcheck import check as cardcheck
from a2a_lab.harness.server_judging.cardcheck import urlpolicy
from a2a_lab.harness.server_judging.probe import NothingToProbe, ProbeOptions, probe
from a2a_lab.harness.ui import bodies, render
from a2a_lab.harness.ui.layout import error_box, page
from a2a_lab.protocol.cards import DEFAULT_CARD_SIZE_LIMIT

PATH = "/card"
TITLE = "Check a card"
#: How a pasted card is named in the report (no file, no URL: lenient by default, as a local draft).
PASTED = "(pasted card)"
POLICY_CHOICES = (("", "the default for where the card came from"), *((p, p) for p in urlpolicy.POLICIES))


def _url_ok(url: str) -> bool:
    return url.startswith(("http://", "https://"))


def form(card: str = "", url: str = "", policy: str = "") -> str:
    options = "".join(
        f'<option value="{e(v)}"{" selected" if v == policy else ""}>{e(label)}</option>' for v, label in POLICY_CHOICES
    )
    return (
        f'<form method=post action="{PATH}" class=box>'
        "<label for=card>Paste an agent card (JSON, at most 64 KiB; nothing in it is fetched)</label>"
        f"<textarea id=card name=card rows=14 spellcheck=false>{e(card)}</textarea>"
        "<label for=url>or give the card's URL (its origin is enough: fetched once, when you press the button)</label>"
        f'<input id=url name=url type=url size=70 value="{e(url)}" placeholder="http://127.0.0.1:8000">'
        f"<label for=policy>URL policy</label><select id=policy name=policy>{options}</select>"
        "<p class=note>strict: https on port 443, no IP literal or local name (what a public client accepts); "
        "lenient: any http(s) URL (a local test).</p>"
        "<button type=submit name=do value=paste>Check the pasted card</button>"
        "<button type=submit name=do value=url class=secondary>Fetch the URL and check it</button></form>"
    )


async def show(request: Request) -> HTMLResponse:
    return page(TITLE, PATH, _intro() + form())


def _intro() -> str:
    return (
        "<p>The card check of <code>a2a-lab card check</code>: every finding with its field and fix, the request a "
        "narrow client derives from each interface, signatures. Then, if you ask, the probe judges the live server "
        "against its own card.</p>"
    )


async def submit(request: Request) -> HTMLResponse:
    try:
        fields = await bodies.form(request)
    except bodies.TooLarge as exc:
        return page(
            TITLE, PATH, error_box(f"{exc}: a pasted card is at most {DEFAULT_CARD_SIZE_LIMIT} bytes") + form(), 413
        )
    card, url, policy = fields.get("card", ""), fields.get("url", "").strip(), fields.get("policy", "")
    policy_or_none = policy if policy in urlpolicy.POLICIES else None
    try:
        loaded = await _loaded(fields.get("do", "paste"), card, url)
        report = cardcheck.check(loaded, policy_or_none, None)
    except cardcheck.UnusableInput as exc:
        return page(TITLE, PATH, error_box(str(exc)) + form(card, url, policy), 400)
    if loaded.source != PASTED:
        card = loaded.raw.decode("utf-8", "replace")
    probe_url = url or _origin_of(report)
    return page(TITLE, PATH, form(card, url, policy) + findings(report) + probe_form(probe_url, policy))


async def _loaded(do: str, card: str, url: str) -> cardcheck.Loaded:
    """The card to check: fetched from `url` when asked (bounded as the card check bounds it), else the pasted text."""
    if do == "url":
        if not _url_ok(url):
            raise cardcheck.UnusableInput("give an http:// or https:// URL to fetch the card from")
        return await asyncio.to_thread(cardcheck.load, url, DEFAULT_CARD_SIZE_LIMIT)
    raw = card.encode("utf-8")
    if not raw.strip():
        raise cardcheck.UnusableInput("paste a card (JSON) first, or give its URL and press Fetch")
    if len(raw) > DEFAULT_CARD_SIZE_LIMIT:
        raise cardcheck.UnusableInput(
            f"the pasted card is {len(raw)} bytes, larger than {DEFAULT_CARD_SIZE_LIMIT} (a careful client stops "
            "reading there); `a2a-lab card check FILE --max-bytes N` checks a larger one"
        )
    return cardcheck.Loaded(PASTED, raw)


def _origin_of(report: dict[str, Any]) -> str:
    """Where a pasted card says its agent is: the first interface URL a probe could start from (or nothing)."""
    for r in report.get("requests", []):
        url = str(r.get("interface", {}).get("url") or "")
        if _url_ok(url):
            return url
    return ""


def findings(report: dict[str, Any]) -> str:
    """The card check's report as the page shows it (the same dict `card check --json` prints)."""
    verdict = (
        f"<span class=level-error>{report['errors']} error(s)</span>, "
        f"<span class=level-warning>{report['warnings']} warning(s)</span>"
    )
    out = [
        f"<section class=box id=findings aria-labelledby=findings-h><h2 id=findings-h>Findings: {verdict}</h2>",
        f"<p class=note>{e(report['source'])}: {report['size']} bytes, sha256 <code>{e(report['sha256'])}</code>, "
        f"shape {e(report['shape'])}. URL policy <b>{e(report['policy'])}</b> ({e(report['policy_why'])}).</p>",
    ]
    if report["findings"]:
        out.append(
            "<table><tr><th scope=col>level</th><th scope=col>field</th><th scope=col>finding</th>"
            "<th scope=col>fix</th></tr>"
        )
        for f in report["findings"]:
            out.append(
                f"<tr class=finding><td class=level-{e(f['level'])}>{e(f['level'].upper())}</td>"
                f"<td><code>{e(f['path'] or '(card)')}</code></td><td>{e(f['message'])}</td>"
                f"<td>{e(f['hint'])}</td></tr>"
            )
        out.append("</table>")
    else:
        out.append("<p>No findings.</p>")
    out.append(_requests(report["requests"]))
    if "signatures" in report:
        out.append(_signatures(report["signatures"]))
    out.append("</section>")
    return "".join(out)


def _requests(requests: list[dict[str, Any]]) -> str:
    out = ["<h3>What a narrow client derives from each interface (SendMessage)</h3>"]
    if not requests:
        out.append("<p>No interface a client of either generation can read.</p>")
    for r in requests:
        i = r["interface"]
        head = (
            f"#{e(i['index'])} {e(i['binding'])} {e(i['protocolVersion'] or '(no version: read as 0.3)')} "
            f"<code class=url>{e(i['url'])}</code>"
        )
        if not r["usable"]:
            out.append(f"<div class=box>{head}<br>skipped: {e(r['reason'])}</div>")
        elif "grpcurl" in r:
            out.append(
                f"<div class=box>{head}<br>gRPC <code>{e(r['grpc_method'])}</code> at <code>{e(r['address'])}</code>"
                f"<pre>{e(r['grpcurl'])}</pre><p class=note>{e(r['note'])}</p></div>"
            )
        else:
            method = f" (JSON-RPC method <code>{e(r['jsonrpc_method'])}</code>)" if r.get("jsonrpc_method") else ""
            out.append(
                f"<div class=box>{head}<br><b>{e(r['http_method'])}</b> <code class=url>{e(r['url'])}</code>{method}"
                f"<pre>{e(r['curl'])}</pre></div>"
            )
    return "".join(out)


def _signatures(sig: dict[str, Any]) -> str:
    rows = "".join(
        f"<li>#{e(v['index'])} kid={e(v['kid'])} alg={e(v['alg'])}: {'valid' if v['valid'] else 'INVALID'} "
        f"({e(v['reason'])})</li>"
        for v in sig.get("verdicts", [])
    )
    return (
        f"<h3>Signatures</h3><p>{e(sig['count'])} signature(s); canonical form (RFC 8785) sha256 "
        f"<code>{e(sig['canonical_sha256'])}</code>. <span class=note>Verify them with <code>a2a-lab card check FILE "
        f"--jwks KEYS</code>.</span></p><ul>{rows}</ul>"
    )


def probe_form(url: str, policy: str) -> str:
    return (
        f'<form method=post action="{PATH}/probe" class=box id=probe-form><h2>Probe the live server</h2>'
        "<p class=note>The reference client calls the agent (one message, a follow-up, a stream where the card offers "
        "one, GetTask and CancelTask on an unknown id, a version it does not speak) and judges every answer against "
        "the card. Nothing is sent until you press the button.</p>"
        "<label for=target>The agent (its origin or card URL)</label>"
        f'<input id=target name=target type=url size=70 value="{e(url)}" required>'
        f'<input type=hidden name=policy value="{e(policy)}">'
        "<button type=submit>Probe it</button></form>"
    )


async def run_probe(request: Request) -> HTMLResponse:
    try:
        fields = await bodies.form(request, 16 * 1024)
    except bodies.TooLarge as exc:
        return page(TITLE, PATH, error_box(str(exc)) + form(), 413)
    target, policy = fields.get("target", "").strip(), fields.get("policy", "")
    if not _url_ok(target):
        return page(
            TITLE, PATH, error_box("give the agent's http:// or https:// URL") + probe_form(target, policy), 400
        )
    options = ProbeOptions(policy=policy if policy in urlpolicy.POLICIES else None)
    try:
        run = await asyncio.to_thread(probe, target, options)
    except NothingToProbe as exc:
        return page(TITLE, PATH, error_box(f"nothing to probe: {exc}") + probe_form(target, policy), 400)
    results = [r.to_json() for r in run.results]
    blocks = "".join(render.result_block(r, ("a2a-lab probe", "server"), i) for i, r in enumerate(results))
    body = (
        probe_form(target, policy)
        + f"<section id=probe aria-labelledby=probe-h><h2 id=probe-h>Probe of {e(run.card_url)}: "
        f"{render.counts(results)}</h2><p class=note>URL policy {e(run.policy)}; one result for the card, then one per "
        f"interface a2a-lab speaks.</p>{blocks}</section>"
    )
    return page(TITLE, PATH, body)
