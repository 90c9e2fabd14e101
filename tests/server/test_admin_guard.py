"""The admin API's guard (server/guard.py), attack by attack: each one issue 13 found is refused with a status that
says why, while the A2A endpoints and the card stay open to the client under test."""

from __future__ import annotations

import secrets
import socket
from collections.abc import Callable, Iterator

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.lab_api import credentials, json_credentials
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.guard import AdminGuard, host_name
from a2a_lab.server.hosting import BackgroundServer

from .helpers import client, message

ADMIN_NAME = "lab.internal"


class Guarded:
    """spec/conformant with a known admin token and one extra admin host name, and traffic in its journal."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.app = ScenarioApp(catalogue.get("spec/conformant"), AdminGuard.of("the-token", [ADMIN_NAME]))
        self.server = BackgroundServer(self.app).start()
        self.port = int(self.server.url.rpartition(":")[2])
        self.http = client(self.server.url)
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("x")}}
        assert self.http.post("/a2a/jsonrpc", json=rpc, headers={"A2A-Version": "1.0"}).status_code == 200
        self.entries = len(self.app.state.journal.entries)

    def close(self) -> None:
        self.http.close()
        self.server.stop()


@pytest.fixture
def guarded(catalogue: Catalogue) -> Iterator[Guarded]:
    served = Guarded(catalogue)
    yield served
    served.close()


def _refused(r: httpx.Response, status: int, says: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json" and says in r.json()["error"], r.text
    assert not [h for h in r.headers if h.lower().startswith("access-control-")], "no CORS header, ever"


# ==================================================================================== the token


def test_no_token_is_401_and_nothing_is_read_or_reset(guarded: Guarded) -> None:
    _refused(guarded.http.get("/_lab/journal"), 401, "admin token is required")
    _refused(guarded.http.get("/_lab/journal.jsonl"), 401, "Authorization: Bearer")
    _refused(guarded.http.post("/_lab/reset", json={}), 401, "admin token is required")
    assert guarded.http.get("/_lab/journal").headers["www-authenticate"].startswith("Bearer")
    assert len(guarded.app.state.journal.entries) == guarded.entries


def test_a_foreign_token_is_403_and_nothing_is_reset(guarded: Guarded) -> None:
    for headers in ({"Authorization": "Bearer r1"}, {"X-A2A-Lab-Token": "the-toke"}, {"Authorization": "Basic x"}):
        r = guarded.http.post("/_lab/reset", json={}, headers=headers)
        assert r.status_code in (401, 403), r.text
    _refused(guarded.http.post("/_lab/reset", json={}, headers={"Authorization": "Bearer r1"}), 403, "not the admin")
    assert len(guarded.app.state.journal.entries) == guarded.entries
    r = guarded.http.post("/_lab/reset", headers=json_credentials("the-token"))
    assert r.status_code == 200 and len(guarded.app.state.journal.entries) == 0


# ==================================================================================== Host (DNS rebinding)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "localhost.evil.example", "127.0.0.1.nip.io"])
def test_a_foreign_host_is_421_even_with_the_token(guarded: Guarded, host: str) -> None:
    headers = {**credentials("the-token"), "Host": host.format(port=guarded.port)}
    _refused(guarded.http.get("/_lab/journal", headers=headers), 421, "--allowed-host")
    _refused(guarded.http.post("/_lab/reset", json={}, headers=headers), 421, "DNS rebinding")
    assert len(guarded.app.state.journal.entries) == guarded.entries


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "[::1]:{port}", "app.localhost", ADMIN_NAME]
)
def test_the_names_the_server_serves_are_answered(guarded: Guarded, host: str) -> None:
    headers = {**credentials("the-token"), "Host": host.format(port=guarded.port)}
    assert guarded.http.get("/_lab/scenario", headers=headers).json()["id"] == "spec/conformant"


def test_a_request_without_host_is_400(guarded: Guarded) -> None:
    with socket.create_connection(("127.0.0.1", guarded.port), timeout=5) as sock:
        sock.sendall(b"GET /_lab/journal HTTP/1.0\r\nAuthorization: Bearer the-token\r\n\r\n")
        head = sock.makefile("rb").readline()
    assert head.split()[1] == b"400", head


def test_host_names_are_read_like_a_browser_sends_them() -> None:
    assert [host_name(h) for h in ("Lab:8000", "[::1]:80", "[::1]", "127.0.0.1", "x.localhost:1")] == [
        "lab",
        "::1",
        "::1",
        "127.0.0.1",
        "x.localhost",
    ]


# ==================================================================================== cross-site requests


def test_a_web_pages_text_plain_reset_with_a_foreign_origin_is_403(guarded: Guarded) -> None:
    """What a page can send blind (a simple request): text/plain, a foreign Origin, no token."""
    page = {"Content-Type": "text/plain", "Origin": "http://evil.example"}
    _refused(guarded.http.post("/_lab/reset", content=b"{}", headers=page), 403, "cross-site")
    # Even a page that somehow held the token: the Origin alone refuses it.
    _refused(guarded.http.post("/_lab/reset", content=b"{}", headers={**page, **credentials("the-token")}), 403, "CORS")
    fetch_metadata = {**json_credentials("the-token"), "Sec-Fetch-Site": "cross-site"}
    _refused(guarded.http.post("/_lab/reset", headers=fetch_metadata), 403, "cross-site")
    assert len(guarded.app.state.journal.entries) == guarded.entries


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_an_admin_post_that_is_not_json_is_415(guarded: Guarded, content_type: str | None) -> None:
    """The content types a page can send without a preflight, and none at all."""
    headers = {**credentials("the-token"), **({"Content-Type": content_type} if content_type else {})}
    _refused(guarded.http.post("/_lab/reset", content=b"", headers=headers), 415, "application/json")
    assert len(guarded.app.state.journal.entries) == guarded.entries


def test_a_same_origin_request_is_answered(guarded: Guarded) -> None:
    headers = {**json_credentials("the-token"), "Origin": guarded.server.url, "Sec-Fetch-Site": "same-origin"}
    assert guarded.http.post("/_lab/reset", headers=headers).json() == {"reset": True}


def test_a_cors_preflight_is_never_granted(guarded: Guarded) -> None:
    preflight = {
        "Origin": "http://evil.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type",
    }
    _refused(guarded.http.options("/_lab/reset", headers=preflight), 403, "cross-site")
    answered = guarded.http.get("/_lab/journal", headers=credentials("the-token"))
    assert answered.status_code == 200
    assert not [h for h in answered.headers if h.lower().startswith("access-control-")]


# ==================================================================================== the client under test


def test_the_card_and_a2a_endpoints_need_no_token_and_take_any_host(guarded: Guarded) -> None:
    foreign = {"Host": "agent.example:9999", "Origin": "http://elsewhere.example"}
    card = guarded.http.get("/.well-known/agent-card.json", headers=foreign)
    assert card.status_code == 200 and card.json()["supportedInterfaces"][0]["url"].startswith("http://agent.example")
    rpc = {"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": message("y")}}
    r = guarded.http.post("/a2a/jsonrpc", json=rpc, headers={**foreign, "A2A-Version": "1.0"})
    assert r.status_code == 200 and "result" in r.json()


def test_every_refusal_is_a_4xx_never_a_5xx(guarded: Guarded) -> None:
    attempts: list[Callable[[], httpx.Response]] = [
        lambda: guarded.http.get("/_lab/nope"),
        lambda: guarded.http.delete("/_lab/journal", headers=credentials("the-token")),
        lambda: guarded.http.get("/_lab/journal", headers={b"Authorization": "Bearer \xe9\xe9".encode("latin-1")}),
        lambda: guarded.http.get("/_lab/journal", headers={"Host": "[::1"}),
        lambda: guarded.http.get("/_lab/journal", headers={"Origin": "null", **credentials("the-token")}),
    ]
    assert [a().status_code for a in attempts] == [401, 404, 403, 421, 403]


def test_tokens_and_run_ids_never_begin_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """Users pass them on command lines (`--run-token T`, `--run ID`), where a leading `-` reads as an option: a
    draw that begins with one is drawn again (token_urlsafe gives one in 64 times)."""
    from a2a_lab.server import guard

    draws = iter(["-first", "_second", "-third", "fourth"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda nbytes: next(draws))
    assert guard.new_token() == "_second"
    assert guard.cli_safe_token(16) == "fourth"
