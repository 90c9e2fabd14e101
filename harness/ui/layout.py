"""The page around every page of `a2a-lab ui`: the head, the navigation between the four pages, the styles (the
HTML report's, plus forms), and the one script (script.py). Everything a client, a server or a file said is escaped
by the one escaper (reports/escape.py, through html_scenario.e)."""

from __future__ import annotations

from starlette.responses import HTMLResponse

from a2a_lab.harness.reports.html import CSS as REPORT_CSS
from a2a_lab.harness.reports.html_scenario import e

#: (path, label) of each page, in the navigation's order.
PAGES = (
    ("/card", "Check a card"),
    ("/talk", "Talk to an agent"),
    ("/live", "Test a client, live"),
    ("/report", "Open a report"),
)

CSS = (
    REPORT_CSS
    + """
header{display:flex;gap:24px;align-items:baseline;border-bottom:1px solid #d0d7de;margin:-8px 0 16px;padding-bottom:8px}
header b{font-size:18px}nav a{padding:4px 8px;border-radius:6px}
nav a[aria-current=page]{background:#ddf4ff;font-weight:600}
label{display:block;font-weight:600;margin:12px 0 4px}
label.inline{display:inline;font-weight:normal;margin:0 12px 0 4px}
textarea{width:100%;max-width:100ch;font-family:ui-monospace,monospace;font-size:12px}
input[type=text],input[type=url],select{min-width:40ch;padding:4px;font-size:14px}
button{margin:12px 8px 0 0;padding:6px 14px;font-size:14px;border-radius:6px;border:1px solid #1f883d;
background:#1f883d;color:#fff;cursor:pointer}button.secondary{background:#f6f8fa;color:#1f2328;border-color:#d0d7de}
:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.error{border-left:4px solid #cf222e;background:#fff8f8;padding:8px 12px;margin:12px 0}
.note{color:#57606a}.box{border:1px solid #d0d7de;border-radius:6px;padding:8px 16px;margin:16px 0}
.level-error{color:#cf222e;font-weight:600}.level-warning{color:#9a6700;font-weight:600}.level-info{color:#0969da}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px}
code.url{word-break:break-all}.box h2{margin-top:8px}#filters select,#filters input{min-width:10ch;margin-right:12px}
input+button{margin-left:8px}
"""
)


def page(title: str, active: str, body: str, status: int = 200, events: str | None = None) -> HTMLResponse:
    """A whole page: `body` is HTML already escaped; `active` is the path of the page in the navigation; `events`
    the path of the page's live updates (events.py), which its script follows."""
    links = "".join(
        f'<a href="{path}"{" aria-current=page" if path == active else ""}>{e(label)}</a>' for path, label in PAGES
    )
    source = f' data-events="{e(events)}"' if events else ""
    html = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{e(title)} · a2a-lab ui</title>"
        '<link rel=stylesheet href="/ui.css"><script src="/ui.js" defer></script></head><body>'
        '<a class=skip href="#main">Skip to the page</a>'
        f'<header><b>a2a-lab</b><nav aria-label="pages">{links}</nav></header>'
        f'<main id=main tabindex="-1"{source}><h1>{e(title)}</h1>{body}</main></body></html>'
    )
    return HTMLResponse(html, status_code=status)


def error_box(message: str) -> str:
    """A refusal or failure, as the page shows it (role=alert: a screen reader says it at once)."""
    return f"<div class=error role=alert id=error><b>Cannot do that:</b> {e(message)}</div>"
