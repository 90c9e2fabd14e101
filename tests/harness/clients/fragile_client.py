"""The reference client, except that it crashes on one unusual answer, legal or not (argv[1] names which): what
`a2a-lab fuzz` must find though no catalogue scenario serves it.

    python fragile_client.py non-bmp-artifact-name|empty-status-parts|data-only-status|many-chunks CARD_URL
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from a2a_lab.harness.clients.refclient import ClientOptions, action_options, read_action, report_to_env, run
from a2a_lab.harness.clients.refclient.http import make_client
from a2a_lab.harness.clients.refclient.recording import Recorder


def answers(body: bytes) -> Iterator[Any]:
    """Every JSON value of an answer: the body, or each SSE event's data."""
    text = body.decode("utf-8", "replace")
    try:
        yield json.loads(text)
        return
    except ValueError:
        pass
    for line in text.splitlines():
        if line.startswith("data:"):
            try:
                yield json.loads(line[5:])
            except ValueError:
                pass


def walk(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def status_parts(objects: list[dict[str, Any]]) -> Iterator[list[Any]]:
    for obj in objects:
        message = obj.get("status", {}).get("message") if isinstance(obj.get("status"), dict) else None
        if isinstance(message, dict):
            yield message.get("parts", [])


def check(defect: str, events: list[Any]) -> None:
    objects = [o for e in events for o in walk(e)]
    if defect == "non-bmp-artifact-name":
        for obj in objects:
            name = obj.get("name") if "artifactId" in obj else None
            if isinstance(name, str) and any(ord(c) > 0xFFFF for c in name):
                raise UnicodeError(f"artifact name {name!r} needs a surrogate pair")
    elif defect == "empty-status-parts":
        for parts in status_parts(objects):
            if parts == []:
                raise IndexError("the status message has no first part")
    elif defect == "data-only-status":
        for parts in status_parts(objects):
            if parts and all(isinstance(p, dict) and "data" in p for p in parts):
                raise KeyError("text")
    elif defect == "many-chunks":
        chunks = sum(1 for o in objects if "artifactUpdate" in o)
        if chunks > 50:
            raise OverflowError(f"{chunks} artifact chunks: more than the 50 this client buffers")
    else:
        raise SystemExit(f"unknown defect {defect!r}")


def main() -> int:
    defect, card_url = sys.argv[1], sys.argv[2]
    options = ClientOptions(**action_options(read_action(os.environ))[0])
    recorder = Recorder()
    result = run(card_url, os.environ.get("A2A_LAB_MESSAGE", "hello"), options, make_client(options, recorder))
    check(defect, [value for ex in recorder.exchanges for value in answers(bytes(ex.response_body))])
    report_to_env(result)
    return result.exit_code


#: The script's entry point (tests/harness/client_launch.py forks it from a zygote).
console = main

if __name__ == "__main__":
    sys.exit(main())
