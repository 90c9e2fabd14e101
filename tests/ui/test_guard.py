"""The UI's guard, over real HTTP: the launch token (URL, then cookie), Host and Origin, the security headers."""

from __future__ import annotations

import httpx

from .conftest import Ui


def _bare(ui: Ui) -> httpx.Client:
    return httpx.Client(base_url=ui.origin, timeout=30, trust_env=False, follow_redirects=False)


def test_every_page_wants_the_launch_token(ui: Ui) -> None:
    with _bare(ui) as http:
        for path in ("/", "/card", "/talk", "/live", "/report", "/ui.js", "/ui.css", "/report/x/html"):
            refused = http.get(path)
            assert refused.status_code == 403, path
            assert "?token=" in refused.text  # says where the token is
        assert http.post("/card", data={"card": "{}"}).status_code == 403


def test_a_wrong_token_is_refused_in_the_url_and_in_the_cookie(ui: Ui) -> None:
    with _bare(ui) as http:
        assert http.get("/card", params={"token": ui.guard.token + "x"}).status_code == 403
        http.cookies.set(ui.guard.cookie, "not-the-token")
        assert http.get("/card").status_code == 403


def test_the_printed_url_sets_the_cookie_and_leaves_the_token_out_of_the_address(ui: Ui) -> None:
    with _bare(ui) as http:
        entered = http.get(ui.url.replace("/?", "/card?") + "&x=1")
        assert entered.status_code == 303
        assert entered.headers["location"] == "/card?x=1"
        cookie = entered.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and ui.guard.token in cookie
        page = http.get("/card")
        assert page.status_code == 200 and "Check a card" in page.text


def test_a_foreign_host_is_refused_even_with_the_token(ui: Ui, http: httpx.Client) -> None:
    """DNS rebinding: a page of evil.example resolving to 127.0.0.1 sends its own name as Host."""
    refused = http.get("/card", headers={"Host": "evil.example"})
    assert refused.status_code == 421
    assert http.get("/card", headers={"Host": "localhost"}).status_code == 200


def test_a_cross_site_request_is_refused_even_with_the_cookie(ui: Ui, http: httpx.Client) -> None:
    card = {"card": '{"name": "x"}', "do": "paste"}
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": ui.origin, "Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ):
        refused = http.post("/card", data=card, headers=headers)
        assert refused.status_code == 403, headers
    assert http.post("/card", data=card, headers={"Origin": ui.origin}).status_code in (200, 400)


def test_answers_carry_the_security_headers(ui: Ui, http: httpx.Client) -> None:
    for path in ("/card", "/ui.js"):
        answer = http.get(path)
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "access-control-allow-origin" not in answer.headers
    with _bare(ui) as bare:
        assert "frame-ancestors 'none'" in bare.get("/card").headers["content-security-policy"]
