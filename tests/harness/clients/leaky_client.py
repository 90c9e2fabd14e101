"""A client that plants credentials everywhere a journal or a report could show them.

Usage: leaky_client.py CARD_URL, with A2A_LAB_PLANTED (a JSON object: place -> secret) and A2A_LAB_PLANTED_DUMP (a
folder) in its environment. Every request carries secrets in headers (Authorization, X-Api-Key, X-Auth-Token, a
Cookie, the header, query parameter and cookie the card's apiKey schemes name, in 1.0 and 0.3 card shapes) and in its
query string (token, api_key, `cred%65ntials`); the bodies carry them in a JSON body over 64 KiB, behind escaped member
names (`cred\\u0065ntials`), in a cut-off body that is not JSON, in bytes that are not UTF-8, and in a webhook URL
(`?token=`, `#access_token=`; first with `user:pw@` too, which is refused) registered with push credentials, which it
waits to see delivered (the lab's own /hook, so the delivery is journaled twice: as sent and as received). Then it
sends the scenario's message properly (with the scenario's token, if it was given one), writes A2A_LAB_RESULT, saves
the server's journal as `GET /_lab/journal` and `GET /_lab/journal.jsonl` serve it, and lists what it sent
(`<scenario>.sent.json`).

Like fake_client.py it imports nothing from a2a_lab. It prints no secret, not even in an error.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

BIG = 100 * 1024  # past the journal's 64 KiB bound


def declared(card: dict[str, Any]) -> dict[str, list[str]]:
    """The apiKey header, query and cookie names of the card's securitySchemes (1.0 wrapper or 0.3 `type`)."""
    found: dict[str, list[str]] = {"header": [], "query": [], "cookie": []}
    for scheme in (card.get("securitySchemes") or {}).values():
        key = scheme.get("apiKeySecurityScheme")
        where, name = (key.get("location"), key.get("name")) if key else (scheme.get("in"), scheme.get("name"))
        if (key or scheme.get("type") == "apiKey") and where in found and name:
            found[where].append(name)
    return found


def endpoint(card: dict[str, Any]) -> tuple[str, str]:
    """(URL, version) of the card's first JSON-RPC interface, read as its generation says."""
    for iface in card.get("supportedInterfaces") or []:
        if iface.get("protocolBinding") == "JSONRPC":
            return iface["url"], iface.get("protocolVersion") or "0.3"
    if card.get("preferredTransport", "JSONRPC") == "JSONRPC" and card.get("url"):
        return card["url"], "0.3"
    for iface in card.get("additionalInterfaces") or []:
        if iface.get("transport") == "JSONRPC":
            return iface["url"], "0.3"
    raise SystemExit("leaky_client: no JSON-RPC interface")


class Leaky:
    def __init__(self, card_url: str, secrets: dict[str, str]) -> None:
        self.s = secrets
        self.card_url = card_url
        self.http = httpx.Client(timeout=20.0, trust_env=False)
        #: The lab's admin token, which the test hands over so that the client can read /_lab/journal.
        self.admin = {"X-A2A-Lab-Token": os.environ.get("A2A_LAB_PLANTED_ADMIN_TOKEN", "")}
        action = json.loads(os.environ.get("A2A_LAB_ACTION") or "{}")
        self.token: str | None = action.get("token")
        self.sent: dict[str, int] = {}
        self.names: dict[str, list[str]] = {"header": [], "query": [], "cookie": []}
        self.version = "1.0"

    # ------------------------------------------------------------------ what every request carries

    def headers(self) -> dict[str, str]:
        s = self.s
        out = {
            "Authorization": f"Bearer {self.token or s['authorization']}",
            "Proxy-Authorization": f"Basic {s['proxy-authorization']}",
            "X-Api-Key": s["x-api-key"],
            "X-Auth-Token": s["x-auth-token"],
            "Cookie": "; ".join(
                [f"session={s['cookie']}", *(f"{n}={s['scheme-cookie']}" for n in self.names["cookie"])]
            ),
            "Referer": f"http://someone:{s['referer-userinfo']}@127.0.0.1/page?access_token={s['referer-token']}",
            **{name: s["scheme-header"] for name in self.names["header"]},
        }
        if self.version == "1.0":
            out["A2A-Version"] = "1.0"
        return out

    def query(self) -> str:
        s = self.s
        pairs = [f"token={s['query-token']}", f"api_key={s['query-api-key']}", f"cred%65ntials={s['query-escaped']}"]
        pairs += [f"{name}={s['scheme-query']}" for name in self.names["query"]]
        return "&".join(["x=1", *pairs])

    def post(self, place: str, url: str, body: bytes, content_type: str = "application/json") -> httpx.Response:
        r = self.http.post(
            f"{url}?{self.query()}", content=body, headers={**self.headers(), "Content-Type": content_type}
        )
        self.sent[place] = r.status_code
        return r

    # ------------------------------------------------------------------ the run

    def method(self, v1: str, v03: str) -> str:
        return v1 if self.version == "1.0" else v03

    def message(self, text: str, message_id: str, **extra: Any) -> dict[str, Any]:
        if self.version == "1.0":
            return {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}], **extra}
        return {
            "kind": "message",
            "messageId": message_id,
            "role": "user",
            "parts": [{"kind": "text", "text": text}],
            **extra,
        }

    def envelope(self, method: str, params: dict[str, Any], req_id: str) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": req_id, "method": method, "params": params}).encode()

    def run(self) -> dict[str, Any]:
        s = self.s
        r = self.http.get(f"{self.card_url}?{self.query()}", headers=self.headers())
        self.sent["card"] = r.status_code
        card = r.json()
        self.names = declared(card)
        url, self.version = endpoint(card)
        send = self.method("SendMessage", "message/send")
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))

        # A JSON body over 64 KiB, with credentials at its start and past the cut; its answer echoes them.
        big = self.message("x" * BIG, "big", metadata={"credentials": s["big-json-tail"]})
        self.post(
            "big-json", url, self.envelope(send, {"metadata": {"apiKey": s["big-json-head"]}, "message": big}, "b")
        )
        # A body that is not JSON (cut off), over 64 KiB: an escaped member name, a form-like pair.
        broken = (
            '{"jsonrpc":"2.0","params":{"cred\\u0065ntials":"' + s["big-text-escaped"] + '",'
            '"note":"password=' + s["big-text-pair"] + '&x=1","pad":"' + "y" * BIG
        )
        self.post("big-text", url, broken.encode())
        # Escaped member names in a small JSON body the server answers (and echoes in the task's history).
        escaped = self.message(
            "escaped",
            "esc",
            metadata={"ESC1": s["escaped-credentials"], "ESC2": s["escaped-token"], "ESC3": s["escaped-api-key"]},
        )
        text = self.envelope(send, {"message": escaped}, "e").decode()
        text = (
            text.replace('"ESC1"', '"cred\\u0065ntials"')
            .replace('"ESC2"', '"\\u0074oken"')
            .replace('"ESC3"', '"api\\u005fkey"')
        )
        self.post("escaped", url, text.encode())
        # Bytes that are not UTF-8: a Latin-1 prefix, and a UTF-16 body.
        self.post("latin-1", url, b"\xff\xfe" + self.envelope(send, {"token": s["latin-1"]}, "l"))
        self.post("utf-16", url, self.envelope(send, {"token": s["utf-16"]}, "u").decode().encode("utf-16"))
        # A webhook whose URL carries a token parameter and a token fragment, with push credentials; the server
        # delivers to it (the lab itself, which answers 404 and journals the delivery it got). First the same with
        # userinfo too, which the server refuses (invalid params): its refusal and its journal must not show it.
        hook = f"{origin}/hook?token={s['webhook-query']}&x=1#access_token={s['webhook-fragment']}"
        for place, target in (
            ("webhook-userinfo", hook.replace("://", f"://hookuser:{s['webhook-userinfo']}@", 1)),
            ("webhook", hook),
        ):
            self.post(place, url, self.envelope(send, self.push_params(target), "w"))
        if (card.get("capabilities") or {}).get("pushNotifications"):
            self.await_delivery()
        if (card.get("capabilities") or {}).get("streaming"):
            stream = self.message("stream", "stream", metadata={"secret": s["stream-metadata"]})
            method = self.method("SendStreamingMessage", "message/stream")
            self.post("stream", url, self.envelope(method, {"message": stream}, "s"))
        # The scenario's own message, sent properly.
        text_in = os.environ.get("A2A_LAB_MESSAGE", "hi")
        answer = self.post("message", url, self.envelope(send, {"message": self.message(text_in, "main")}, "m")).json()
        result = answer.get("result") or {}
        task = result.get("task", result)
        state = (task.get("status") or {}).get("state") if isinstance(task, dict) else None
        return {"kind": "task" if state else "error", "state": state, "text": ""}

    def push_params(self, hook: str) -> dict[str, Any]:
        """SendMessage params that register `hook` inline, with a token and Bearer credentials."""
        s = self.s
        if self.version == "1.0":
            config = {
                "url": hook,
                "token": s["push-token"],
                "authentication": {"scheme": "Bearer", "credentials": s["push-credentials"]},
            }
            configuration = {"taskPushNotificationConfig": config}
        else:
            config = {
                "url": hook,
                "token": s["push-token"],
                "authentication": {"schemes": ["Bearer"], "credentials": s["push-credentials"]},
            }
            configuration = {"pushNotificationConfig": config}
        return {
            "message": self.message("webhook", "hook", metadata={"token": s["message-metadata"]}),
            "configuration": configuration,
        }

    def await_delivery(self, deadline_s: float = 10.0) -> None:
        """Wait (bounded) until the server's journal shows a push delivery that reached the lab's /hook."""
        journal = f"{os.environ['A2A_LAB_BASE_URL'].rstrip('/')}/_lab/journal"
        give_up = time.monotonic() + deadline_s
        while time.monotonic() < give_up:
            entries = self.http.get(journal, headers=self.admin).json()["entries"]
            if any(e["kind"] == "unmatched" and e["path"] == "/hook" for e in entries):
                return
            time.sleep(0.02)

    def dump(self, folder: Path, scenario: str) -> None:
        base = os.environ["A2A_LAB_BASE_URL"].rstrip("/")
        slug = scenario.replace("/", "__")
        for path, name in (("journal", "journal.json"), ("journal.jsonl", "journal.jsonl")):
            (folder / f"{slug}.{name}").write_bytes(self.http.get(f"{base}/_lab/{path}", headers=self.admin).content)
        (folder / f"{slug}.sent.json").write_text(json.dumps(self.sent), encoding="utf-8")


def main(argv: list[str]) -> int:
    client = Leaky(argv[0], json.loads(os.environ["A2A_LAB_PLANTED"]))
    try:
        outcome = client.run()
    except Exception as exc:  # no message: it could quote a URL with a secret in it
        print(f"leaky_client: {type(exc).__name__}", file=sys.stderr)
        outcome = {"kind": "error", "state": None, "text": ""}
    with open(os.environ["A2A_LAB_RESULT"], "w", encoding="utf-8") as fh:
        json.dump(outcome, fh)
    client.dump(Path(os.environ["A2A_LAB_PLANTED_DUMP"]), os.environ["A2A_LAB_SCENARIO"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
