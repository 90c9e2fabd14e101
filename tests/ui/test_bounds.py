"""Every input the pages take is bounded by the reader that bounds it on the command line, and nothing is fetched
that the page did not ask for: over real HTTP, against real servers of the tests' own."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest

from a2a_lab.contract import userfile
from a2a_lab.protocol.cards import DEFAULT_CARD_SIZE_LIMIT

from .conftest import Ui


def _card_of(served) -> str:
    return httpx.get(served.card_url, timeout=10, trust_env=False).text


def test_a_pasted_card_over_64_kib_is_refused_and_not_checked(ui: Ui, http: httpx.Client) -> None:
    card = json.dumps({"name": "x", "description": "y" * DEFAULT_CARD_SIZE_LIMIT})
    refused = ui.post(http, "/card", data={"card": card, "do": "paste"})
    assert refused.status_code == 400
    assert f"larger than {DEFAULT_CARD_SIZE_LIMIT}" in refused.text
    assert "id=findings" not in refused.text
    small = ui.post(http, "/card", data={"card": json.dumps({"name": "x"}), "do": "paste"})
    assert small.status_code == 200 and "id=findings" in small.text


def test_a_form_past_its_bound_is_refused_before_it_is_kept(ui: Ui, http: httpx.Client) -> None:
    refused = ui.post(
        http,
        "/card",
        content=b"card=" + b"x" * (4 * DEFAULT_CARD_SIZE_LIMIT),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert refused.status_code == 413
    assert "larger than" in refused.text


def test_a_pasted_card_is_never_fetched_and_a_url_only_when_asked(ui: Ui, http: httpx.Client, serve) -> None:
    served = serve("spec/conformant")
    card = _card_of(served)
    before = len(served.journal)
    checked = ui.post(http, "/card", data={"card": card, "url": served.url, "do": "paste"})
    assert checked.status_code == 200 and "id=findings" in checked.text
    assert len(served.journal) == before, "a pasted card (and the URL beside it) was fetched"
    fetched = ui.post(http, "/card", data={"card": "", "url": served.url, "do": "url"})
    assert fetched.status_code == 200 and "id=findings" in fetched.text
    calls = served.journal[before:]
    assert [(c["method"], c["path"]) for c in calls] == [("GET", "/.well-known/agent-card.json")]


def test_a_card_url_is_read_as_the_card_check_reads_it(ui: Ui, http: httpx.Client, serve) -> None:
    oversize = serve("discovery/oversize-card")
    refused = ui.post(http, "/card", data={"url": oversize.url, "do": "url"})
    assert refused.status_code == 400
    assert f"larger than {DEFAULT_CARD_SIZE_LIMIT} bytes" in refused.text


@pytest.mark.parametrize("given", ["/etc/hostname", "file:///etc/hostname", "ftp://127.0.0.1/card.json"])
def test_a_card_url_that_is_not_http_is_refused_not_read(ui: Ui, http: httpx.Client, given: str) -> None:
    refused = ui.post(http, "/card", data={"url": given, "do": "url"})
    assert refused.status_code == 400
    assert "http:// or https://" in refused.text


def _upload(ui: Ui, http: httpx.Client, name: str, data: bytes) -> httpx.Response:
    return ui.post(http, "/report", files={"report": (name, data, "application/json")})


def test_a_report_is_read_by_the_reader_of_reports(ui: Ui, http: httpx.Client) -> None:
    not_report = _upload(ui, http, "notes.json", b'{"x": 1}')
    assert not_report.status_code == 400 and "notes.json: not an a2a-lab JSON report" in not_report.text
    broken = _upload(ui, http, "../../broken.json", b'{"scenarios": [')
    assert broken.status_code == 400 and "broken.json: line 1, column 16: not valid JSON" in broken.text
    deep = _upload(ui, http, "deep.json", b"[" * 200 + b"]" * 200)
    assert deep.status_code == 400 and "nested more than 100 levels" in deep.text


def test_a_report_past_the_readers_size_is_refused(ui: Ui, http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(userfile, "REPORT", replace(userfile.REPORT, max_bytes=4096))
    refused = _upload(ui, http, "big.json", b'{"scenarios": []' + b" " * 200_000 + b"}")
    assert refused.status_code == 413
    assert "larger than 69632 bytes" in refused.text  # the bound and a multipart envelope's room


def test_a_message_to_an_agent_is_bounded(ui: Ui, http: httpx.Client, serve) -> None:
    served = serve("spec/conformant")
    opened = ui.post(http, "/talk", data={"url": served.url})
    assert opened.status_code == 303
    where = opened.headers["location"]
    refused = ui.post(http, f"{where}/send", data={"text": "x" * 4001})
    assert refused.status_code == 400 and "1 to 4000 characters" in refused.text
    assert ui.post(http, f"{where}/send", data={"text": "  "}).status_code == 400
