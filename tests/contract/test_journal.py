"""The journal: bounded, redacted, and counting what it dropped."""

from __future__ import annotations

import json
import threading
import time

from a2a_lab.contract.journal import BODY_KEEP_BYTES, Journal
from a2a_lab.contract.journal_record import EntryKind
from a2a_lab.contract.redaction import DEFAULT


def test_cap_drops_oldest_and_counts() -> None:
    journal = Journal(cap=3)
    for i in range(5):
        journal.open("POST", f"/{i}", "", [], b"{}", EntryKind.JSONRPC)
    snap = journal.snapshot()
    assert [e["path"] for e in snap["entries"]] == ["/2", "/3", "/4"]
    assert snap["dropped"] == 2


def test_headers_and_body_credentials_are_redacted() -> None:
    journal = Journal()
    body = json.dumps(
        {
            "params": {
                "url": "http://127.0.0.1:9/hook",
                "token": "tok-secret",
                "authentication": {"scheme": "Bearer", "credentials": "cred-secret"},
            }
        }
    ).encode()
    journal.open(
        "POST",
        "/a2a",
        "",
        [(b"authorization", b"Bearer top-secret"), (b"x-a2a-notification-token", b"tok-secret")],
        body,
        EntryKind.JSONRPC,
    )
    exported = json.dumps(journal.snapshot())
    for secret in ("top-secret", "tok-secret", "cred-secret"):
        assert secret not in exported
    entry = journal.snapshot()["entries"][0]
    assert entry["headers"]["authorization"] == "Bearer <redacted>"
    assert json.loads(entry["body"]["text"])["params"]["authentication"] == {
        "scheme": "Bearer",
        "credentials": "<redacted>",
    }


def test_redaction_leaves_other_text_alone() -> None:
    spaced = b'{ "text" : "no secrets here",\n  "n": 1.0 }'
    assert DEFAULT.body(spaced, 100) == (spaced.decode(), False, False), "nothing to hide: kept byte for byte"
    assert DEFAULT.body(b'not json "token"', 100) == ('not json "token"', False, False)


def test_large_bodies_are_kept_only_in_part() -> None:
    journal = Journal()
    journal.open("POST", "/a2a", "", [], b"x" * (BODY_KEEP_BYTES * 3), EntryKind.JSONRPC)
    body = journal.snapshot()["entries"][0]["body"]
    assert body["size"] == BODY_KEEP_BYTES * 3 and body["truncated"] is True
    assert len(body["text"]) == BODY_KEEP_BYTES


def test_a_waiter_is_woken_by_an_entry_opened_while_it_waits() -> None:
    journal = Journal()
    waiting = threading.Event()
    got: list[bool] = []

    def seen(entries: list[dict[str, object]]) -> bool:
        waiting.set()  # called under the journal's lock, once the waiter has counted itself
        return any(e["path"] == "/late" for e in entries)

    waiter = threading.Thread(target=lambda: got.append(journal.wait_for(seen, timeout=30)))
    began = time.monotonic()
    waiter.start()
    assert waiting.wait(30)
    journal.open("POST", "/late", "", [], b"{}", EntryKind.JSONRPC)
    waiter.join(30)
    assert got == [True] and time.monotonic() - began < 15, "woken by the entry, not by its timeout"
    assert journal._waiting == 0
