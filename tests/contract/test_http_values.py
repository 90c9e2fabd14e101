"""contract/http_values.py: what a scenario may make the server send. Every value it accepts is sent by the real
server stack (uvicorn over h11, as `a2a-lab serve` runs it) without failing the answer; the values that made a
replay crash (issue 45: status 10^30, 101, 204 with a body, a content type with CRLF) are refused, saying why."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import yaml

from a2a_lab.contract import http_values
from a2a_lab.contract.catalogue import builtin_root
from a2a_lab.contract.http_values import header_name_problem, header_problem, header_value_problem, status_problem
from a2a_lab.server.hosting import BackgroundServer


class Answering:
    """An ASGI app that answers each request with the status, header and body its test case names, and remembers
    whether the server stack refused to send it (h11 raises inside `send`: the answer is lost, the client blamed)."""

    def __init__(self) -> None:
        self.cases: list[tuple[int, list[tuple[str, str]], bytes]] = []
        self.failed: dict[int, str] = {}
        self.handled = 0
        #: Set once every case has been handled (a client may have its answer before the server fails on the body).
        self.all_handled = threading.Event()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        index = int(scope["path"].rsplit("/", 1)[1])
        status, headers, body = self.cases[index]
        raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        try:
            await send({"type": "http.response.start", "status": status, "headers": raw})
            await send({"type": "http.response.body", "body": body})
        except Exception as exc:  # what the server stack says of a value it cannot send
            self.failed[index] = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self.handled += 1
            if self.handled == len(self.cases):
                self.all_handled.set()


@pytest.fixture(scope="module")
def answering() -> Iterator[tuple[Answering, str]]:
    app = Answering()
    with BackgroundServer(app) as served:
        yield app, served.url


def _sent(answering: tuple[Answering, str], cases: list[tuple[int, list[tuple[str, str]], bytes]]) -> dict[int, str]:
    """Each case answered by the real server: which the stack failed to send (index: why)."""
    app, url = answering
    app.cases, app.failed, app.handled = cases, {}, 0
    app.all_handled.clear()

    async def ask() -> None:
        # A connection per case: one the server broke (a body after a 204) must not take the next case down with it.
        async with httpx.AsyncClient(timeout=10, limits=httpx.Limits(max_keepalive_connections=0)) as client:
            for i in range(len(cases)):
                try:
                    await client.get(f"{url}/{i}")
                except httpx.HTTPError:
                    pass  # the server failed it: recorded in app.failed

    asyncio.run(ask())
    assert app.all_handled.wait(30), "the server did not handle every case"
    return dict(app.failed)


def test_every_status_it_accepts_is_sent_and_the_crashing_ones_are_refused(answering: tuple[Answering, str]) -> None:
    statuses = [*range(0, 1001), 10**30]
    accepted = {s for s in statuses if status_problem(s) is None}
    assert accepted == set(range(200, 600))
    assert {s for s in statuses if status_problem(s, has_body=True) is None} == accepted - {204, 304}
    cases = [(s, [("content-type", "text/plain")], b"" if s in (204, 304) else b"a body") for s in sorted(accepted)]
    failed = _sent(answering, cases)
    assert not failed, {cases[i][0]: why for i, why in failed.items()}
    crashing: list[tuple[int, list[tuple[str, str]], bytes]] = [
        (600, [], b""),
        (101, [], b""),
        (150, [], b""),
        (204, [], b"body"),
        (304, [], b"x"),
    ]
    assert len(_sent(answering, crashing)) == 5  # what the server stack fails on...
    assert all(status_problem(s, has_body=bool(body)) is not None for s, _, body in crashing)  # ...each refused


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (10**30, "not an HTTP status"),
        (10**5000, "about 5001 digits"),  # str() of it would raise
        (101, "informational status"),
        (100, "informational status"),
        (600, "not an HTTP status"),
        (-1, "not an HTTP status"),
        (True, "got True"),
        ("200", "got '200'"),
        (None, "got None"),
    ],
    ids=lambda v: f"{type(v).__name__}-{v.bit_length()}-bits" if type(v) is int else ascii(v)[:20],
)
def test_a_status_that_cannot_be_sent_is_refused_saying_why(value: object, says: str) -> None:
    problem = status_problem(value)
    assert problem is not None and says in problem.what and problem.hint


def test_a_status_without_content_refuses_a_body() -> None:
    for status in http_values.NO_BODY_STATUSES:
        problem = status_problem(status, has_body=True)
        assert problem is not None and "has no body" in problem.what
        assert status_problem(status, has_body=False) is None
    assert status_problem(205, has_body=True) is None  # h11 sends it; RFC 9110 frowns, the server does not fail


def _value_cases() -> list[str]:
    chars = [chr(c) for c in range(256)] + ["\u0100", "\u20ac", "\ud800", "\U0001f600"]
    return [f"a{c}b" for c in chars] + chars + [" a", "a ", "\ta", "", "text/html\r\nX-Evil: 1", "a\tb c"]


def test_every_header_value_it_accepts_is_sent(answering: tuple[Answering, str]) -> None:
    values = [v for v in _value_cases() if header_value_problem(v) is None]
    assert "a\tb c" in values and "" in values and "a\xe9b" in values  # tab inside, empty, Latin-1
    failed = _sent(answering, [(200, [("x-value", v)], b"") for v in values])
    assert not failed, {ascii(values[i]): why for i, why in failed.items()}


def test_a_header_value_with_a_line_break_or_a_control_character_is_refused() -> None:
    for value in ("text/html\r\nX-Evil: 1", "1\nX: y", "a\rb", "a\x00b", "a\x01b", "a\x7fb", "a\x85b"):
        problem = header_value_problem(value)
        assert problem is not None and "control character" in problem.what, ascii(value)
        assert "\r" not in str(problem) and "\n" not in str(problem) and "\x00" not in str(problem)
    crlf = header_value_problem("text/html\r\nX-Evil: 1")
    assert crlf is not None and "U+000D at position 9" in crlf.what and "one line" in crlf.hint
    euro = header_value_problem("text/html; x=\u20ac")
    assert euro is not None and "outside Latin-1" in euro.what
    assert header_value_problem(" 1") is not None and header_value_problem("1\t") is not None
    assert header_value_problem(5) is not None


def test_every_header_name_it_accepts_is_sent(answering: tuple[Answering, str]) -> None:
    names = [f"x{chr(c)}y" for c in range(256)] + ["", "Retry After", "X:Y", "\u20ac", "Content-Length"]
    accepted = [n for n in names if header_name_problem(n) is None]
    assert "x-y" in accepted and "x!y" in accepted and "X:Y" not in accepted and "" not in accepted
    failed = _sent(answering, [(200, [(n, "1")], b"") for n in accepted])
    assert not failed, {ascii(accepted[i]): why for i, why in failed.items()}


def test_framing_headers_are_refused_since_the_server_frames_the_body() -> None:
    for name in ("Content-Length", "transfer-encoding"):
        problem = header_name_problem(name)
        assert problem is not None and "frames the body" in problem.what
    empty = header_name_problem("")
    assert empty is not None and "it is empty" in empty.what
    spaced = header_name_problem("Retry After")
    assert spaced is not None and "a space" in spaced.what
    assert header_problem("Retry-After", "1") is None
    assert header_problem("Retry-After", "1\r\n") is not None and header_problem("X:Y", "1") is not None


def test_a_card_scheme_name_no_header_can_hold_still_gets_its_challenge() -> None:
    """The server's one header built from a card's words: an apiKey scheme named with CR LF (or in Cyrillic) made
    every refusal of a missing key crash the answer (h11: Illegal header value; UnicodeEncodeError)."""
    from a2a_lab.contract.loader import parse
    from a2a_lab.server.app import ScenarioApp

    data = _scenario("auth/api-key-cookie")
    send = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": _message()}}
    for name in ("a2a_session\r\nX-Evil: 1", "\u043a\u043b\u044e\u0447"):
        data["card"]["object"]["securitySchemes"]["key"]["apiKeySecurityScheme"] = {"location": "header", "name": name}
        with BackgroundServer(ScenarioApp(parse(data, "auth-x", "auth-x.yaml"))) as served:
            card = httpx.get(f"{served.url}/.well-known/agent-card.json").json()
            refused = httpx.post(card["supportedInterfaces"][0]["url"], json=send, headers={"A2A-Version": "1.0"})
        challenge = refused.headers.get("www-authenticate", "")
        assert refused.status_code == 401 and challenge.startswith("ApiKey") and "X-Evil" not in refused.headers
        assert header_value_problem(challenge) is None and ("%0D%0A" in challenge or "%D0%BA" in challenge)


def _scenario(scenario_id: str) -> dict[str, Any]:
    """A catalogue scenario's data, to be changed and parsed."""
    data: dict[str, Any] = yaml.safe_load((builtin_root() / f"{scenario_id}.yaml").read_text(encoding="utf-8"))
    return data


def _message() -> dict[str, Any]:
    return {"role": "ROLE_USER", "parts": [{"text": "hello"}], "messageId": "m-1"}


def _rule(data: dict[str, Any]) -> dict[str, Any]:
    rule: dict[str, Any] = data["behaviour"]["SendMessage"][0]["reply"]
    return rule


#: Where a scenario names a status or a header, and a value there that the server cannot send.
_LOADER_CASES: dict[str, tuple[Any, str]] = {
    "raw status 10^30": (lambda d: _rule(d)["raw"].update(status=10**30), "reply.raw.status"),
    "raw status 101": (lambda d: _rule(d)["raw"].update(status=101), "reply.raw.status"),
    "raw 204 with a body": (lambda d: _rule(d)["raw"].update(status=204), "reply.raw.status"),
    "raw content type CRLF": (lambda d: _rule(d)["raw"].update(content_type="text/html\r\nX: 1"), "content_type"),
    "reply header name": (lambda d: _rule(d).update(headers={"Retry After": "1"}), "reply.headers"),
    "reply header value": (lambda d: _rule(d).update(headers={"Retry-After": "1\r\nX: y"}), "reply.headers"),
    "reply http_status 600": (lambda d: _rule(d).update(http_status=600), "http_status"),
    "card cache_control": (lambda d: d["card"].update(cache_control="a\r\nb"), "card.cache_control"),
    "card content_type": (lambda d: d["card"].update(content_type="a\u20ac"), "card.content_type"),
    "card path 204 body": (lambda d: d["card"].update(well_known={"status": 204, "body": "x"}), "well_known.status"),
    "style header": (lambda d: d.update(style={"headers": {"X-A": "\x00"}}), "style.headers"),
}


@pytest.mark.parametrize("case", list(_LOADER_CASES))
def test_the_loader_refuses_what_the_server_cannot_send(case: str) -> None:
    from a2a_lab.contract.loader import ScenarioError, parse

    data = _scenario("faults/first-calls-503")
    change, where = _LOADER_CASES[case]
    change(data)
    with pytest.raises(ScenarioError) as refused:
        parse(data, "bad-values", "bad-values.yaml")
    assert where in str(refused.value) and "\r" not in str(refused.value)
