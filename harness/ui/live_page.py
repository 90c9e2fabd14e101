"""Page 3, test a client live: browse the catalogue (filter by group, binding and generation), choose scenarios, and
start a run of the shared server (liverun.py); the page shows each scenario's card URL to point the client at, and
each scenario's verdict as the client's traffic arrives; at the end, the scorecard and the report files. The page
starts no client: the user does. (Watching a proxy between a real client and a real server: watch_page.py.)"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from a2a_lab.harness.client_judging.remote import RemoteError
from a2a_lab.harness.reports.html_scenario import badge, e
from a2a_lab.harness.ui import bodies, events, render, watch_page
from a2a_lab.harness.ui.lab import Listed
from a2a_lab.harness.ui.layout import error_box, page
from a2a_lab.harness.ui.liverun import LiveRun
from a2a_lab.harness.ui.state import UiState, new_id

PATH = "/live"
TITLE = "Test a client, live"
LIFELINES = ("your client", "a2a-lab")


def _ui(request: Request) -> UiState:
    state: UiState = request.app.state.ui
    return state


def _select(name: str, label: str, values: list[str], chosen: str) -> str:
    options = "".join(f"<option{' selected' if v == chosen else ''}>{e(v)}</option>" for v in values)
    return (
        f'<span><label class=inline for="f-{name}">{e(label)}</label>'
        f'<select id="f-{name}" name={name}><option value="">any</option>{options}</select></span>'
    )


def _matches(listed: Listed, query: dict[str, str]) -> bool:
    s = listed.scenario
    text = query.get("text", "").lower()
    return (
        (not query.get("group") or s.group == query["group"])
        and (not query.get("binding") or query["binding"] in listed.bindings)
        and (not query.get("generation") or query["generation"] in listed.generations)
        and (not text or text in f"{s.id} {s.title} {s.description}".lower())
    )


def browser(all_listed: list[Listed], query: dict[str, str]) -> str:
    groups = sorted({x.scenario.group for x in all_listed})
    bindings = sorted({b for x in all_listed for b in x.bindings})
    generations = sorted({g for x in all_listed for g in x.generations}, reverse=True)
    filters = (
        f'<form method=get action="{PATH}" class=box id=filters><b>Filter</b> '
        + _select("group", "group", groups, query.get("group", ""))
        + _select("binding", "binding", bindings, query.get("binding", ""))
        + _select("generation", "generation", generations, query.get("generation", ""))
        + "<label class=inline for=f-text>contains</label>"
        f'<input id=f-text name=text type=text value="{e(query.get("text", ""))}">'
        "<button type=submit class=secondary id=filter-apply>Apply</button> <span id=shown-count class=note></span>"
        "</form>"
    )
    rows = []
    for n, listed in enumerate(all_listed):
        s = listed.scenario
        hidden = "" if _matches(listed, query) else " hidden"
        text = f"{s.id} {s.title} {s.description}".lower()
        rows.append(
            f'<tr data-group="{e(s.group)}" data-bindings="{e(",".join(listed.bindings))}" '
            f'data-generations="{e(",".join(listed.generations))}" data-text="{e(text)}"{hidden}>'
            f'<td><input type=checkbox name=scenario value="{e(s.id)}" id="s-{n}"></td>'
            f'<td><label class=inline for="s-{n}"><code>{e(s.id)}</code></label></td>'
            f"<td>{e(s.title)}<details><summary>more</summary>{e(s.description)}</details></td>"
            f"<td>{e(listed.offer.text())}</td></tr>"
        )
    return (
        filters + f'<form method=post action="{PATH}/start" id=start-form>'
        "<table><caption class=note>choose the scenarios to serve</caption><tr><th scope=col>use</th>"
        "<th scope=col>scenario</th><th scope=col>what it does</th><th scope=col>its card offers</th></tr>"
        + "".join(rows)
        + "</table><button type=button class=secondary id=choose-shown>Choose every scenario shown</button>"
        "<label for=seed>Seed (ids and timings of the served agents)</label>"
        '<input id=seed name=seed type=text value="0" size=8 inputmode=numeric>'
        "<div><button type=submit>Start serving them</button></div></form>"
    )


async def show(request: Request) -> HTMLResponse:
    ui = _ui(request)
    listed = await asyncio.to_thread(ui.lab.listed)
    query = {k: request.query_params.get(k, "") for k in ("group", "binding", "generation", "text")}
    body = (
        "<p>a2a-lab serves the scenarios you choose; you point your own client at each card URL the page then shows. "
        "As your client talks, each scenario's verdict appears here; at the end, the scorecard and the report files."
        "</p>" + browser(listed, query) + watch_page.start_form()
    )
    return page(TITLE, PATH, body)


async def start(request: Request) -> Response:
    ui = _ui(request)
    try:
        fields = await bodies.form_lists(request, 256 * 1024)
    except bodies.TooLarge as exc:
        return page(TITLE, PATH, error_box(str(exc)), 413)
    chosen = fields.get("scenario", [])
    seed_text = (fields.get("seed") or ["0"])[-1].strip() or "0"
    problem = _refusal(ui, chosen, seed_text)
    if problem:
        listed = await asyncio.to_thread(ui.lab.listed)
        return page(TITLE, PATH, error_box(problem) + browser(listed, {}), 400)
    scenarios = [s for sid in dict.fromkeys(chosen) if (s := ui.lab.scenario(sid)) is not None]
    origin = ui.lab.origin_for(request.url.hostname or "127.0.0.1")
    try:
        shared = await asyncio.to_thread(lambda: _start(ui, int(seed_text)))
    except RemoteError as exc:
        return page(TITLE, PATH, error_box(str(exc)), 503)
    run = LiveRun(new_id(), scenarios, shared, int(seed_text), origin, ui.run_folder())
    ui.add_run(run)
    return RedirectResponse(f"{PATH}/run/{run.id}", status_code=303)


def _start(ui: UiState, seed: int) -> Any:
    from a2a_lab.harness.client_judging.runner import SharedRun

    return SharedRun.start(ui.lab.remote(), seed)


def _refusal(ui: UiState, chosen: list[str], seed: str) -> str | None:
    if not chosen:
        return "choose at least one scenario (tick its box), then start"
    unknown = [sid for sid in chosen if ui.lab.scenario(sid) is None]
    if unknown:
        return f"no scenario {unknown[0]!r} in the catalogue"
    try:
        value = int(seed)
    except ValueError:
        return f"the seed is a whole number, not {seed[:40]!r}"
    if not -(2**63) <= value < 2**63:
        return "the seed is a whole number from -2**63 to 2**63-1"
    return None


def _run(request: Request) -> LiveRun | None:
    return _ui(request).runs.get(request.path_params["run"])


def regions(run: LiveRun) -> dict[str, str]:
    run.refresh()
    rows = []
    for s in run.scenarios:
        result = run.results.get(s.id)
        outcome = badge(str(result["outcome"])) if result else "<span class=note>no request yet</span>"
        rows.append(f"<tr><td><code>{e(s.id)}</code></td><td>{outcome}</td></tr>")
    blocks = "".join(
        render.result_block(run.results[s.id], LIFELINES, i) for i, s in enumerate(run.scenarios) if s.id in run.results
    )
    heading = "verdict" if run.report is not None else "verdict so far"
    table = f"<table><tr><th scope=col>scenario</th><th scope=col>{heading}</th></tr>" + "".join(rows) + "</table>"
    return {"results": table + blocks, "end": _end(run)}


def _end(run: LiveRun) -> str:
    if run.report is None:
        return ""
    summary = run.report["summary"]
    listed = "".join(
        f"<li><code>{e(run.folder / name)}</code></li>"
        for name in ("report.json", "junit.xml", "index.html", "journals/")
    )
    return (
        f"<section class=box id=scorecard><h2>Scorecard: {e(summary['verdict'])}</h2>"
        f"<p>{render.counts(run.report['scenarios'])} (gate {e(summary['gate'])})</p>"
        f"<p>The report files:</p><ul>{listed}</ul></section>"
    )


def _instructions(run: LiveRun) -> str:
    rows = "".join(
        f"<tr><td><code>{e(s.id)}</code></td><td><code class=url>{e(run.card_url(s))}</code></td>"
        f"<td>{e(s.client.message)}</td><td>{e(s.client.action or '')}</td></tr>"
        for s in run.scenarios
    )
    return (
        "<p>Point your client at each card URL (as <code>a2a-lab run</code> would hand it over: "
        "<code>A2A_LAB_CARD_URL</code>, and the message and action as <code>A2A_LAB_MESSAGE</code>, "
        "<code>A2A_LAB_ACTION</code>). The page starts nothing itself.</p>"
        "<table><tr><th scope=col>scenario</th><th scope=col>card URL</th><th scope=col>message</th>"
        f"<th scope=col>action</th></tr>{rows}</table>"
        f"<details><summary>the same verdict from the command line</summary><pre>{e(run.score_command())}</pre>"
        "</details>"
    )


async def run_page(request: Request) -> Response:
    run = _run(request)
    if run is None:
        return page(TITLE, PATH, error_box("no such run (it ended, or this UI was restarted)"), 404)
    shown = await asyncio.to_thread(regions, run)
    finish = (
        f'<form method=post action="{PATH}/run/{e(run.id)}/finish"><button type=submit>Finish: score the run and '
        "write the reports</button></form>"
        if run.report is None
        else f'<p><a href="/report/{e(run.report_id or "")}">Open the report</a></p>'
    )
    body = (
        _instructions(run)
        + "<p id=live-status role=status class=note></p>"
        + finish
        + f"<div id=end>{shown['end']}</div><h2>Verdicts</h2><div id=results>{shown['results']}</div>"
    )
    return page(TITLE, PATH, body, events=None if run.done else f"{PATH}/run/{run.id}/events")


async def run_events(request: Request) -> Response:
    run = _run(request)
    if run is None:
        return Response(status_code=404)
    return events.stream(run, lambda: regions(run))


async def finish(request: Request) -> Response:
    ui = _ui(request)
    run = _run(request)
    if run is None:
        return page(TITLE, PATH, error_box("no such run"), 404)
    report = await asyncio.to_thread(run.finish)
    if run.report_id is None:
        run.report_id = ui.add_report(f"live run {run.run_id}", [report])
    return RedirectResponse(f"{PATH}/run/{run.id}", status_code=303)
