"""The `a2a-lab ui` web app: Starlette routes for the four pages (each page's module holds its handlers), the style
and the script, all behind the guard (guard.py: Host, Origin, the launch token)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from a2a_lab.harness.ui import card_page, live_page, report_page, talk_page, watch_page
from a2a_lab.harness.ui.guard import Guarded
from a2a_lab.harness.ui.layout import CSS
from a2a_lab.harness.ui.script import SCRIPT
from a2a_lab.harness.ui.state import UiState


async def _home(request: Request) -> Response:
    return RedirectResponse(card_page.PATH, status_code=303)


async def _css(request: Request) -> Response:
    return Response(CSS, media_type="text/css; charset=utf-8")


async def _js(request: Request) -> Response:
    return Response(SCRIPT, media_type="text/javascript; charset=utf-8")


ROUTES = [
    Route("/", _home),
    Route("/ui.css", _css),
    Route("/ui.js", _js),
    Route("/card", card_page.show, methods=["GET"]),
    Route("/card", card_page.submit, methods=["POST"]),
    Route("/card/probe", card_page.run_probe, methods=["POST"]),
    Route("/talk", talk_page.show, methods=["GET"]),
    Route("/talk", talk_page.connect, methods=["POST"]),
    Route("/talk/{pair}", talk_page.conversation, methods=["GET"]),
    Route("/talk/{pair}/events", talk_page.live, methods=["GET"]),
    Route("/talk/{pair}/send", talk_page.send, methods=["POST"]),
    Route("/talk/{pair}/close", talk_page.close, methods=["POST"]),
    Route("/live", live_page.show, methods=["GET"]),
    Route("/live/start", live_page.start, methods=["POST"]),
    Route("/live/run/{run}", live_page.run_page, methods=["GET"]),
    Route("/live/run/{run}/events", live_page.run_events, methods=["GET"]),
    Route("/live/run/{run}/finish", live_page.finish, methods=["POST"]),
    Route("/live/watch", watch_page.start, methods=["POST"]),
    Route("/live/watch/{pair}", watch_page.watching, methods=["GET"]),
    Route("/live/watch/{pair}/events", watch_page.live, methods=["GET"]),
    Route("/live/watch/{pair}/close", watch_page.close, methods=["POST"]),
    Route("/report", report_page.show, methods=["GET"]),
    Route("/report", report_page.upload, methods=["POST"]),
    Route("/report/{report}", report_page.view, methods=["GET"]),
    Route("/report/{report}/html", report_page.as_html, methods=["GET"]),
]


def build(ui: UiState) -> Guarded:
    """The app for one launch: the pages, behind its guard."""
    app = Starlette(routes=ROUTES)
    app.state.ui = ui
    return Guarded(app, ui.guard)
