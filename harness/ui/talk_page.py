"""Page 2, talk to an agent: a2a-lab's proxy in front of the agent (any URL, or a catalogue scenario served by this
UI), and the reference client sending each message the page asks for through it (streaming where the card offers
it, an answer to an interrupted task, a cancel); every exchange appears as it happens, judged by the proxy's checks."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from a2a_lab.harness.clients.refclient import ClientOptions
from a2a_lab.harness.reports.html_scenario import e
from a2a_lab.harness.ui import bodies, events, pairview
from a2a_lab.harness.ui.layout import error_box, page
from a2a_lab.harness.ui.proxied import Pair
from a2a_lab.harness.ui.state import UiState, new_id

PATH = "/talk"
TITLE = "Talk to an agent"
LIFELINES = ("a2a-lab client", "agent")
#: The longest message the page sends (a chat line, not a document).
TEXT_LIMIT = 4000


def _ui(request: Request) -> UiState:
    state: UiState = request.app.state.ui
    return state


def _choices(ui: UiState, chosen: str = "") -> str:
    groups: dict[str, list[str]] = {}
    for listed in ui.lab.listed():
        groups.setdefault(listed.scenario.group, []).append(listed.scenario.id)
    out = ['<option value="">(none: the URL above)</option>']
    for group, ids in groups.items():
        opts = "".join(f"<option{' selected' if sid == chosen else ''}>{e(sid)}</option>" for sid in ids)
        out.append(f'<optgroup label="{e(group)}">{opts}</optgroup>')
    return "".join(out)


def start_form(ui: UiState, url: str = "", scenario: str = "") -> str:
    return (
        f'<form method=post action="{PATH}" class=box><h2>Whom to talk to</h2>'
        "<label for=url>The agent (its origin or card URL)</label>"
        f'<input id=url name=url type=url size=70 value="{e(url)}" placeholder="http://127.0.0.1:8000">'
        "<label for=scenario>or a scenario of a2a-lab's catalogue, served here (a quirk to see judged)</label>"
        f"<select id=scenario name=scenario>{_choices(ui, scenario)}</select>"
        "<p class=note>a2a-lab puts its proxy in front of the agent: the card is fetched once now; nothing else is "
        "sent until you send a message.</p><button type=submit>Connect</button></form>"
    )


async def show(request: Request) -> HTMLResponse:
    ui = _ui(request)
    listed = await asyncio.to_thread(ui.lab.listed)
    del listed  # loaded for the scenario choice
    return page(
        TITLE,
        PATH,
        "<p>Send messages with a2a-lab's careful reference client; see each exchange as it "
        "happens, judged.</p>" + start_form(ui),
    )


async def connect(request: Request) -> Response:
    ui = _ui(request)
    try:
        fields = await bodies.form(request, 16 * 1024)
    except bodies.TooLarge as exc:
        return page(TITLE, PATH, error_box(str(exc)) + start_form(ui), 413)
    url, sid = fields.get("url", "").strip(), fields.get("scenario", "").strip()
    scenario = ui.lab.scenario(sid) if sid else None
    if sid and (scenario is None or scenario.tls is not None):
        return page(
            TITLE,
            PATH,
            error_box(f"no scenario {sid!r} in the catalogue (TLS ones excepted)") + start_form(ui, url),
            400,
        )
    if scenario is None and not url.startswith(("http://", "https://")):
        return page(
            TITLE,
            PATH,
            error_box("give the agent's http:// or https:// URL, or choose a scenario") + start_form(ui, url, sid),
            400,
        )
    pair = await asyncio.to_thread(Pair.open, new_id(), url, ui.lab.host, scenario)
    ui.add_pair(pair)
    return RedirectResponse(f"{PATH}/{pair.id}", status_code=303)


def _pair(request: Request) -> Pair | None:
    return _ui(request).pairs.get(request.path_params["pair"])


def send_form(pair: Pair) -> str:
    return (
        f'<form method=post action="{PATH}/{e(pair.id)}/send" class=box id=send-form><h2>Send a message</h2>'
        f"<label for=text>Message</label><input id=text name=text type=text size=70 maxlength={TEXT_LIMIT} required "
        'value="Hello from a2a-lab">'
        "<div><input type=checkbox id=stream name=stream value=1><label class=inline for=stream>stream the answer "
        "(where the card offers streaming)</label></div>"
        "<label for=follow_up>Answer the task once more with (when it asks for input)</label>"
        "<input id=follow_up name=follow_up type=text size=70>"
        "<div><input type=checkbox id=cancel name=cancel value=1><label class=inline for=cancel>cancel the task "
        "while it runs</label></div>"
        "<button type=submit>Send</button></form>"
        f'<form method=post action="{PATH}/{e(pair.id)}/close"><button type=submit class=secondary>End and keep '
        "the report</button></form>"
    )


async def conversation(request: Request) -> Response:
    pair = _pair(request)
    if pair is None:
        return page(TITLE, PATH, error_box("no such conversation (it ended, or this UI was restarted)"), 404)
    regions = await asyncio.to_thread(pairview.regions, pair, LIFELINES, True)
    said = pair.said[:1].upper() + pair.said[1:]
    body = (
        f"<p>Talking to <code class=url>{e(pair.upstream)}</code>{e(pair.what)} through a2a-lab's proxy at "
        f"<code>{e(pair.url)}</code>. <span class=note>{e(said)}.</span></p><p id=live-status role=status class=note>"
        f"</p>{send_form(pair)}"
        f"<h2>Messages</h2><div id=sent>{regions['sent']}</div>"
        f"<h2>Verdict</h2><div id=verdict>{regions['verdict']}</div>"
        f"<h2>Exchanges</h2><div id=exchanges>{regions['exchanges']}</div>"
    )
    return page(TITLE, PATH, body, events=f"{PATH}/{pair.id}/events")


async def live(request: Request) -> Response:
    pair = _pair(request)
    if pair is None:
        return Response(status_code=404)
    return events.stream(pair, lambda: pairview.regions(pair, LIFELINES, True))


async def send(request: Request) -> Response:
    pair = _pair(request)
    if pair is None or pair.closed:
        return page(TITLE, PATH, error_box("no such conversation (it ended, or this UI was restarted)"), 404)
    try:
        fields = await bodies.form(request, 64 * 1024)
    except bodies.TooLarge as exc:
        return page(TITLE, PATH, error_box(str(exc)), 413)
    text = fields.get("text", "").strip()
    if not text or len(text) > TEXT_LIMIT:
        return page(TITLE, PATH, error_box(f"write a message of 1 to {TEXT_LIMIT} characters") + send_form(pair), 400)
    options, asked = _options(fields)
    pair.send(text, options, asked)
    return RedirectResponse(f"{PATH}/{pair.id}", status_code=303)


def _options(fields: dict[str, Any]) -> tuple[ClientOptions, str]:
    follow_up = str(fields.get("follow_up", "")).strip()[:TEXT_LIMIT] or None
    stream, cancel = fields.get("stream") == "1", fields.get("cancel") == "1"
    asked = ", ".join(
        x
        for x in ("streamed" if stream else "", f"answer: {follow_up}" if follow_up else "", "cancel" if cancel else "")
        if x
    )
    return ClientOptions(stream=stream, follow_up=follow_up, cancel=cancel), asked or "one message"


async def close(request: Request) -> Response:
    ui = _ui(request)
    pair = _pair(request)
    if pair is None:
        return page(TITLE, PATH, error_box("no such conversation"), 404)
    report = await asyncio.to_thread(pair.report)
    pair.close()
    report_id = ui.add_report(f"conversation with {pair.upstream}", [report])
    return RedirectResponse(f"/report/{report_id}", status_code=303)
