"""A live pair's regions on a page (talk and watch): what the reference client was asked and understood, both sides'
checks as the proxy's verdict gives them, and the exchanges as a sequence diagram and raw bytes."""

from __future__ import annotations

from typing import Any

from a2a_lab.harness.reports.html_scenario import e
from a2a_lab.harness.ui import render
from a2a_lab.harness.ui.proxied import Pair

#: The transcript every check's evidence links point into (one journal, both sides).
AT = "live"


def regions(pair: Pair, lifelines: tuple[str, str], talk: bool) -> dict[str, str]:
    results, journal = pair.judged()
    client, server = results
    out = {
        "verdict": _side("the agent (server side)", server, "what it answered, judged by the probe's checks")
        + _side("the client side", client, "what the client sent, judged by the client checks a live pair can judge"),
        "exchanges": render.exchanges(journal, AT, lifelines),
    }
    if talk:
        out["sent"] = sent(pair)
    return out


def _side(name: str, result: dict[str, Any], what: str) -> str:
    return f"<h3>{e(name)}: {render.badge_of(result)}</h3><p class=note>{e(what)}</p>{render.checks_table(result, AT)}"


def sent(pair: Pair) -> str:
    if not pair.sent:
        return "<p class=note>Nothing sent yet.</p>"
    items = []
    for i, s in enumerate(pair.sent, 1):
        if s.result is None:
            answer = "<p class=note>waiting for the agent...</p>"
        else:
            answer = f"<pre>{e(s.said or s.result)}</pre>"
        items.append(f"<li><b>#{i}</b> {e(s.text)} <span class=note>({e(s.asked)})</span>{answer}</li>")
    return f"<ol>{''.join(items)}</ol>"


def placeholders(names: tuple[str, ...]) -> str:
    """Empty live regions, filled by the first event (or by the page's own rendering without script)."""
    return "".join(f'<div id="{e(n)}"></div>' for n in names)
