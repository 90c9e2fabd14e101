"""Page 4, open a report: a JSON report of any earlier run (`run`, `score`, `probe`, `proxy`, `report merge`; one
report or a merged list), uploaded by a plain form, read by the reader `--compare` uses (reports/compare.py's
`load_previous`, on the bounded reader of user files: userfile.REPORT), and shown with the HTML report's own parts
(reports/html.py's `Page`): the summary, the failures, the checks, every scenario with its sequence diagram."""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import re
import tempfile
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from a2a_lab.contract import userfile
from a2a_lab.harness.reports import compare, html
from a2a_lab.harness.reports.html_scenario import e
from a2a_lab.harness.ui import bodies
from a2a_lab.harness.ui.layout import error_box, page
from a2a_lab.harness.ui.state import UiState

PATH = "/report"
TITLE = "Open a report"
#: A multipart upload's own bytes around the file (boundaries, part headers).
ENVELOPE = 64 * 1024


def _ui(request: Request) -> UiState:
    state: UiState = request.app.state.ui
    return state


def upload_form() -> str:
    return (
        f'<form method=post action="{PATH}" enctype="multipart/form-data" class=box id=upload-form>'
        f"<label for=report-file>A JSON report (as <code>--json FILE</code> or <code>--report-dir</code>'s "
        f"<code>report.json</code> wrote it; at most {userfile.REPORT.max_bytes // userfile.MIB} MiB)</label>"
        '<input id=report-file name=report type=file accept=".json,application/json" required>'
        "<div><button type=submit>Open it</button></div></form>"
    )


async def show(request: Request) -> HTMLResponse:
    ui = _ui(request)
    kept = "".join(
        f'<li><a href="{PATH}/{e(rid)}">{e(name)}</a></li>' for rid, (name, _) in reversed(ui.reports.items())
    )
    listing = f"<h2>Reports of this session</h2><ul>{kept}</ul>" if kept else ""
    return page(
        TITLE, PATH, "<p>Browse the report of an earlier run as the live pages show one.</p>" + upload_form() + listing
    )


def _file_part(content_type: str, data: bytes) -> tuple[str, bytes]:
    """The uploaded file's name and bytes from a multipart/form-data body (the standard library's MIME parser)."""
    if not content_type.lower().startswith("multipart/form-data"):
        raise ValueError("send the report as the page's form does (multipart/form-data, one file)")
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1", "replace")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + data)
    for part in message.iter_parts() if message.is_multipart() else []:
        if part.get_param("name", header="content-disposition") == "report":
            payload = part.get_payload(decode=True)
            name = part.get_filename() or "report.json"
            return name, payload if isinstance(payload, bytes) else b""
    raise ValueError("no file in the form: choose a JSON report, then press Open")


def _safe_name(name: str) -> str:
    """The uploaded file's base name, as a file name here (for the reader's messages)."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", Path(name.replace("\\", "/")).name)[:100].lstrip(".")
    return base or "report.json"


def read(name: str, data: bytes) -> list[dict[str, Any]]:
    """The reports in an uploaded file, read by the reader of `--compare` (ValueError: why not, naming the file)."""
    with tempfile.TemporaryDirectory(prefix="a2a-lab-ui-") as tmp:
        path = Path(tmp) / _safe_name(name)
        path.write_bytes(data)
        try:
            return compare.load_previous(path)
        except ValueError as exc:
            raise ValueError(str(exc).replace(str(path), _safe_name(name))) from None


async def upload(request: Request) -> Response:
    ui = _ui(request)
    try:
        data = await bodies.body(request, userfile.REPORT.max_bytes + ENVELOPE)
        name, raw = _file_part(request.headers.get("content-type", ""), data)
        if len(raw) > userfile.REPORT.max_bytes:
            raise ValueError(
                f"the report is larger than {userfile.REPORT.max_bytes} bytes: {userfile.REPORT.too_large}"
            )
        reports = await asyncio.to_thread(read, name, raw)
    except bodies.TooLarge as exc:
        return page(TITLE, PATH, error_box(f"{exc}: {userfile.REPORT.too_large}") + upload_form(), 413)
    except ValueError as exc:
        return page(TITLE, PATH, error_box(str(exc)) + upload_form(), 400)
    report_id = ui.add_report(_safe_name(name), reports)
    return RedirectResponse(f"{PATH}/{report_id}", status_code=303)


def _kept(request: Request) -> tuple[str, list[dict[str, Any]]] | None:
    return _ui(request).reports.get(request.path_params["report"])


async def view(request: Request) -> Response:
    kept = _kept(request)
    if kept is None:
        return page(TITLE, PATH, error_box("no such report (this UI keeps the last 16; open the file again)"), 404)
    name, reports = kept
    try:
        shown = html.Page(reports)
        body = (
            f'<p>{e(name)} · <a href="{PATH}/{e(request.path_params["report"])}/html">the HTML report of it</a></p>'
            + shown.summary()
            + shown.failures()
            + shown.checks()
            + shown.scenarios()
        )
    except (KeyError, TypeError, ValueError) as exc:  # a file with the shape of a report but not its contents
        return page(
            TITLE,
            PATH,
            error_box(f"{name}: not an a2a-lab JSON report as a2a-lab writes it ({type(exc).__name__}: {exc})")
            + upload_form(),
            400,
        )
    return page(TITLE, PATH, body)


async def as_html(request: Request) -> Response:
    kept = _kept(request)
    if kept is None:
        return Response("no such report", status_code=404)
    try:
        return HTMLResponse(html.build(kept[1]))
    except (KeyError, TypeError, ValueError) as exc:
        return Response(f"not an a2a-lab JSON report: {type(exc).__name__}", status_code=400)
