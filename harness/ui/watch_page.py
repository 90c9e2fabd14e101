"""Page 3's other half: watch a real client and a real server through a2a-lab's proxy (proxied.py, as `a2a-lab proxy
--upstream URL` stands between them), both sides judged live; the client is pointed at the proxy's card URL by the
user."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from a2a_lab.harness.reports.html_scenario import e
from a2a_lab.harness.ui import bodies, events, pairview
from a2a_lab.harness.ui.layout import error_box, page
from a2a_lab.harness.ui.proxied import Pair
from a2a_lab.harness.ui.state import UiState, new_id

PATH = "/live/watch"
TITLE = "Test a client, live"
ACTIVE = "/live"
LIFELINES = ("client", "server")


def _ui(request: Request) -> UiState:
    state: UiState = request.app.state.ui
    return state


def start_form(upstream: str = "") -> str:
    return (
        f'<form method=post action="{PATH}" class=box id=watch-form><h2>Or watch a real client and a real server</h2>'
        "<p class=note>a2a-lab's proxy stands between them: you point your client at the card URL it shows, and "
        "both sides are judged as they talk.</p>"
        "<label for=upstream>The server (its origin or card URL)</label>"
        f'<input id=upstream name=upstream type=url size=70 value="{e(upstream)}" required '
        'placeholder="http://127.0.0.1:9999"><button type=submit>Start the proxy</button></form>'
    )


async def start(request: Request) -> Response:
    ui = _ui(request)
    try:
        fields = await bodies.form(request, 16 * 1024)
    except bodies.TooLarge as exc:
        return page(TITLE, ACTIVE, error_box(str(exc)) + start_form(), 413)
    upstream = fields.get("upstream", "").strip()
    if not upstream.startswith(("http://", "https://")):
        return page(TITLE, ACTIVE, error_box("give the server's http:// or https:// URL") + start_form(upstream), 400)
    pair = await asyncio.to_thread(Pair.open, new_id(), upstream, ui.lab.host)
    ui.add_pair(pair)
    return RedirectResponse(f"{PATH}/{pair.id}", status_code=303)


def _pair(request: Request) -> Pair | None:
    return _ui(request).pairs.get(request.path_params["pair"])


async def watching(request: Request) -> Response:
    pair = _pair(request)
    if pair is None:
        return page(TITLE, ACTIVE, error_box("no such proxy (it stopped, or this UI was restarted)"), 404)
    regions = await asyncio.to_thread(pairview.regions, pair, LIFELINES, False)
    body = (
        f"<p>The proxy stands in front of <code class=url>{e(pair.upstream)}</code>. {e(pair.said)}.</p>"
        f"<p><b>Point your client at</b> <code class=url id=proxy-card>{e(pair.card_url)}</code></p>"
        "<p id=live-status role=status class=note></p>"
        f'<form method=post action="{PATH}/{e(pair.id)}/close"><button type=submit class=secondary>Stop and keep the '
        "report</button></form>"
        f"<h2>Verdict</h2><div id=verdict>{regions['verdict']}</div>"
        f"<h2>Exchanges</h2><div id=exchanges>{regions['exchanges']}</div>"
    )
    return page(TITLE, ACTIVE, body, events=f"{PATH}/{pair.id}/events")


async def live(request: Request) -> Response:
    pair = _pair(request)
    if pair is None:
        return Response(status_code=404)
    return events.stream(pair, lambda: pairview.regions(pair, LIFELINES, False))


async def close(request: Request) -> Response:
    ui = _ui(request)
    pair = _pair(request)
    if pair is None:
        return page(TITLE, ACTIVE, error_box("no such proxy"), 404)
    report = await asyncio.to_thread(pair.report)
    pair.close()
    report_id = ui.add_report(f"client and server through the proxy to {pair.upstream}", [report])
    return RedirectResponse(f"/report/{report_id}", status_code=303)
