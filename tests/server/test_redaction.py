"""Redaction by structure and by scheme: each way a credential used to leak into the journal (issue 13 point 4) is
an attack here, read back through the journal's documented JSON."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a2a_lab.contract.journal import BODY_KEEP_BYTES, Journal
from a2a_lab.contract.journal_record import Entry, EntryKind, Response, RouteRef, SentEvent, SentKind, entries_from_json
from a2a_lab.contract.redaction import DEFAULT, REDACTED, Redaction

S = "s3cret-planted-value"
CARD_1_0 = {
    "securitySchemes": {
        "h": {"apiKeySecurityScheme": {"location": "header", "name": "X-Lab-Ident"}},
        "q": {"apiKeySecurityScheme": {"location": "query", "name": "lab_ident"}},
        "c": {"apiKeySecurityScheme": {"location": "cookie", "name": "lab_c"}},
        "b": {"httpAuthSecurityScheme": {"scheme": "Custom"}},
    }
}
CARD_0_3 = {"securitySchemes": {"h": {"type": "apiKey", "in": "header", "name": "X-Old-Ident"}}}


def export(body: bytes = b"", headers: list[tuple[str, str]] = (), query: str = "", **kw: Any) -> dict[str, Any]:  # type: ignore[assignment]
    """One request through a journal (with the policy of `kw['redaction']`), as `/_lab/journal` shows it; and checks
    that reading that JSON back and writing it again changes nothing."""
    journal = Journal(redaction=kw.pop("redaction", DEFAULT))
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    entry = journal.open(kw.pop("method", "POST"), kw.pop("path", "/a2a"), query, raw, body, EntryKind.JSONRPC)
    for name, value in kw.items():
        setattr(entry, name, value)
    exported: dict[str, Any] = journal.snapshot()["entries"][0]
    assert [e.to_json() for e in entries_from_json([exported])] == [exported], "redaction is idempotent"
    return exported


def shown(exported: dict[str, Any]) -> str:
    return json.dumps(exported, ensure_ascii=False)


# =================================================================================== bodies over 64 KiB


def test_a_json_body_over_64_kib_is_redacted_whole_before_it_is_cut() -> None:
    body = json.dumps(
        {"params": {"token": S + "-head", "message": {"parts": [{"text": "x" * BODY_KEEP_BYTES}]}, "password": S}}
    ).encode()
    exported = export(body)
    assert S not in shown(exported)
    assert exported["body"]["size"] == len(body) and exported["body"]["truncated"] and exported["body"]["redacted"]
    assert exported["body"]["text"].startswith('{"params":{"token":"<redacted>","message"')
    assert len(exported["body"]["text"].encode()) == BODY_KEEP_BYTES


def test_text_over_64_kib_that_is_not_json_is_redacted_by_pattern() -> None:
    body = ('{"cred\\u0065ntials":"' + S + '","note":"token=' + S + '&x=1","pad":"' + "y" * BODY_KEEP_BYTES).encode()
    exported = export(body)
    assert S not in shown(exported) and exported["body"]["truncated"] and exported["body"]["redacted"]
    assert exported["body"]["text"].startswith('{"cred\\u0065ntials":"<redacted>","note":"token=<redacted>&x=1"')


def test_a_cut_never_splits_a_character() -> None:
    body = json.dumps({"text": "é" * BODY_KEEP_BYTES}, ensure_ascii=False).encode()
    text = export(body)["body"]["text"]
    assert text.startswith('{"text": "éé') and len(text.encode()) in (BODY_KEEP_BYTES, BODY_KEEP_BYTES - 1)


def test_an_answer_over_64_kib_is_redacted_before_it_is_cut() -> None:
    answer = json.dumps({"result": {"history": [{"metadata": {"apiKey": S}}], "pad": "z" * BODY_KEEP_BYTES}}).encode()
    exported = export(response=Response.sent(200, "application/json", answer))
    assert S not in shown(exported) and exported["response"]["body"]["truncated"]


# =================================================================================== escaped member names


@pytest.mark.parametrize("name", ["cred\\u0065ntials", "\\u0074oken", "api\\u005fkey", "Pass\\u0077ord", "X-Api-Key"])
def test_a_member_name_is_compared_decoded(name: str) -> None:
    body = ('{"jsonrpc":"2.0","params":{"metadata":{"' + name + '":"' + S + '"},"text":"kept"}}').encode()
    exported = export(body)
    assert S not in shown(exported) and exported["body"]["redacted"]
    assert json.loads(exported["body"]["text"])["params"]["text"] == "kept"


def test_a_credential_member_hides_its_whole_value() -> None:
    body = json.dumps({"credentials": {"user": "u", "secret": [S]}, "token": 12345678, "empty": {"token": ""}})
    assert json.loads(export(body.encode())["body"]["text"]) == {
        "credentials": REDACTED,
        "token": REDACTED,
        "empty": {"token": ""},
    }


def test_escaped_names_in_a_body_that_does_not_parse() -> None:
    text = '{"a":1, "\\u0074oken": "' + S + '", "credentials": {"x": ["' + S + '", "}"]}, "pageToken": "7", "t": "x'
    redacted = DEFAULT.text(text)
    assert redacted == '{"a":1, "\\u0074oken": "<redacted>", "credentials": "<redacted>", "pageToken": "7", "t": "x'


# =================================================================================== bodies that are not UTF-8


@pytest.mark.parametrize(
    "body",
    [b"\xff\xfe" + json.dumps({"token": S}).encode(), json.dumps({"token": S}).encode("utf-16")],
    ids=["latin-1", "utf-16"],
)
def test_a_body_that_is_not_utf8_is_withheld(body: bytes) -> None:
    exported = export(body, response=Response.sent(200, "text/plain", body))
    expected = {"size": len(body), "withheld": "not UTF-8", "sha256": hashlib.sha256(body).hexdigest()}
    assert exported["body"] == expected and exported["response"]["body"] == expected
    assert base64.b64encode(body).decode()[8:24] not in shown(exported)


def test_a_big_body_that_is_not_utf8_is_withheld_with_the_digest_of_all_of_it() -> None:
    body = b"\xff" + b"x" * (2 * BODY_KEEP_BYTES)
    assert export(body)["body"] == {
        "size": len(body),
        "withheld": "not UTF-8",
        "sha256": hashlib.sha256(body).hexdigest(),
    }


# =================================================================================== webhook URLs


HOOK = f"http://hookuser:{S}@127.0.0.1:9/hook?token={S}&x=1&sig={S}#access_token={S}&state=ok"
HOOK_SHOWN = "http://<redacted>@127.0.0.1:9/hook?token=<redacted>&x=1&sig=<redacted>#access_token=<redacted>&state=ok"


def test_a_webhook_url_in_a_push_config_body() -> None:
    body = json.dumps({"params": {"taskId": "t", "url": HOOK, "note": f"see {HOOK} here"}}).encode()
    params = json.loads(export(body)["body"]["text"])["params"]
    assert params == {"taskId": "t", "url": HOOK_SHOWN, "note": f"see {HOOK_SHOWN} here"}


def test_a_push_delivery_entry_shows_its_url_redacted() -> None:
    exported = export(
        path=HOOK,
        kind=EntryKind.PUSH,
        response=Response(failed=f"ConnectError: cannot reach {HOOK}"),
        headers=[("authorization", f"Bearer {S}"), ("x-a2a-notification-token", S)],
    )
    assert exported["path"] == HOOK_SHOWN and S not in shown(exported)
    assert exported["response"]["failed"] == f"ConnectError: cannot reach {HOOK_SHOWN}"


def test_a_webhook_url_with_an_at_sign_in_its_password() -> None:
    assert DEFAULT.url(f"http://u:p@{S}@h/x") == "http://<redacted>@h/x"
    assert DEFAULT.text(f"go to http://u:p@{S}@h/x now") == "go to http://<redacted>@h/x now"


# =================================================================================== headers


def test_credential_headers_and_the_card_scheme_names() -> None:
    headers = [
        ("Authorization", f"Bearer {S}"),
        ("Authorization", f"{S} Bearer"),  # the first word is no scheme: nothing is kept
        ("Proxy-Authorization", f"Custom {S}"),  # the card's own HTTP scheme is kept
        ("X-Api-Key", S),
        ("X-Auth-Token", S),
        ("X-Goog-Api-Key", S),
        ("Cookie", f"lab_c={S}; theme=dark"),
        ("X-Lab-Ident", S),
        ("X-Old-Ident", S),
        ("Referer", f"http://u:{S}@h/?access_token={S}"),
        ("A2A-Version", "1.0"),
        ("Content-Type", "application/json; charset=utf-8"),
    ]
    exported = export(headers=headers, redaction=Redaction.for_cards(CARD_1_0, CARD_0_3))
    assert S not in shown(exported)
    assert exported["headers"] == {
        "authorization": "Bearer <redacted>, <redacted>",
        "proxy-authorization": "Custom <redacted>",
        "x-api-key": REDACTED,
        "x-auth-token": REDACTED,
        "x-goog-api-key": REDACTED,
        "cookie": REDACTED,
        "x-lab-ident": REDACTED,
        "x-old-ident": REDACTED,
        "referer": "http://<redacted>@h/?access_token=<redacted>",
        "a2a-version": "1.0",
        "content-type": "application/json; charset=utf-8",
    }


def test_scheme_names_are_hidden_only_where_a_card_declares_them() -> None:
    headers = [("X-Lab-Ident", S)]
    assert export(headers=headers, query=f"lab_ident={S}")["headers"]["x-lab-ident"] == S, "no generic rule knows it"
    assert export(headers=headers, query=f"lab_ident={S}")["query"] == f"lab_ident={S}"
    exported = export(headers=headers, query=f"lab_ident={S}", redaction=Redaction.for_cards(CARD_1_0))
    assert exported["headers"]["x-lab-ident"] == REDACTED and exported["query"] == "lab_ident=<redacted>"


# =================================================================================== query strings


def test_query_string_secrets() -> None:
    query = (
        f"A2A-Version=1.0&token={S}&api_key={S}&cred%65ntials={S}&access+token={S}&lab_ident={S}&pageToken=20&key={S}"
    )
    exported = export(query=query, redaction=Redaction.for_cards(CARD_1_0))
    assert exported["query"] == (
        "A2A-Version=1.0&token=<redacted>&api_key=<redacted>&cred%65ntials=<redacted>&access+token=<redacted>"
        "&lab_ident=<redacted>&pageToken=20&key=<redacted>"
    )


def test_route_params_and_probe_urls() -> None:
    exported = export(
        route=RouteRef("GET", "/tasks/t-1", {"id": "t-1", "apiKey": S}), url=f"http://agent/a2a?api_key={S}&x=1"
    )
    assert exported["route"]["params"] == {"id": "t-1", "apiKey": REDACTED}
    assert exported["url"] == "http://agent/a2a?api_key=<redacted>&x=1"


def test_form_bodies_and_free_text() -> None:
    assert DEFAULT.text(f"grant_type=password&password={S}&code={S}&x=1") == (
        "grant_type=password&password=<redacted>&code=<redacted>&x=1"
    )
    assert DEFAULT.text(f"Authorization: Bearer {S}\ncode: 200\nsecret = '{S} {S}'") == (
        "Authorization: <redacted>\ncode: 200\nsecret = '<redacted>'"
    ), "`code` is a credential in a URL or a form only"


# =================================================================================== streams and what is kept


def test_stream_events_are_redacted_by_structure() -> None:
    events = [
        SentEvent(0.1, SentKind.DATA, json.dumps({"task": {"history": [{"metadata": {"secret": S}}]}})),
        SentEvent(0.2, SentKind.ERROR, value={"error": {"message": "x", "data": {"token": S}}}),
    ]
    exported = export(events=events)
    assert S not in shown(exported)


def test_nothing_to_hide_is_kept_byte_for_byte() -> None:
    body = b'{ "jsonrpc" : "2.0",\n "params": {"url": "http://127.0.0.1:9/hook?x=1", "pageToken": "3", "n": 1.0} }'
    assert export(body)["body"] == {"size": len(body), "text": body.decode()}
    assert Entry.opened(1, 0.0, EntryKind.JSONRPC, "POST", "/a2a", "", [], body).raw_body == body


# =================================================================================== any JSON, any credential key


_SPELLINGS = st.sampled_from(["token", "Credentials", "x-api-key", "client_secret", "PASSWORD", "accessToken"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)


def _plant(value: Any, key: str, path: list[int]) -> Any:
    """`value` with {key: S} put in the first dict or list met along `path` (or wrapping it)."""
    if isinstance(value, dict) and path:
        keys = sorted(value)
        if keys:
            k = keys[path[0] % len(keys)]
            return {**value, k: _plant(value[k], key, path[1:])}
    if isinstance(value, list) and value and path:
        i = path[0] % len(value)
        return [*value[:i], _plant(value[i], key, path[1:]), *value[i + 1 :]]
    return {"wrapped": value, key: S}


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_JSON, _SPELLINGS, st.lists(st.integers(0, 5), max_size=4), st.booleans(), st.booleans())
def test_a_credential_planted_anywhere_in_any_json_never_shows(
    doc: Any, key: str, path: list[int], escape: bool, big: bool
) -> None:
    text = json.dumps(_plant(doc, key, path), ensure_ascii=escape)
    if escape:  # spell the key's first letter as an escape
        text = text.replace(f'"{key}"', f'"\\u{ord(key[0]):04x}{key[1:]}"')
    if big:
        text = json.dumps({"pad": "p" * BODY_KEEP_BYTES, "doc": json.loads(text)})
    exported = export(text.encode())
    assert S not in shown(exported)
    if not big:
        assert exported["body"]["redacted"]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_are_journaled_without_error(body: bytes) -> None:
    export(body, headers=[("x-any", body.decode("latin-1"))], query=body.decode("latin-1"))
