"""Opens 2000 connections to the server: a third say nothing, a third send half a request head, a third send a whole
head and half a body. With all of them open, fetches the card once more, writes what it saw to A2A_LAB_RESULT (with
how long the flood took), then exits without closing a connection: the kernel drops all 2000 at once, as when a
client is killed. It ends by itself, so its scenario's timeout is only a bound: a busy machine gets all of it."""

from __future__ import annotations

import json
import os
import resource
import socket
import time
import urllib.request
from urllib.parse import urlsplit

from _common import card_url, report_pids

COUNT = 2000
STARTED = time.monotonic()

report_pids("connections", [os.getpid()])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
wanted = COUNT + 100
if soft != resource.RLIM_INFINITY and soft < wanted:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard) if hard != resource.RLIM_INFINITY else wanted, hard))
url = card_url()
parts = urlsplit(url)
card = json.loads(urllib.request.urlopen(url, timeout=10).read())
rpc = urlsplit(card["supportedInterfaces"][0]["url"]).path
held: list[socket.socket] = []
failed = 0
for i in range(COUNT):
    try:
        sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    except OSError:
        failed += 1
        continue
    held.append(sock)
    if i % 3 == 1:
        sock.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: flood\r\nX-Slow: ")
    elif i % 3 == 2:
        sock.sendall(
            (
                f"POST {rpc} HTTP/1.1\r\nHost: flood\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
            ).encode()
        )
began = time.monotonic()
try:
    status = urllib.request.urlopen(url, timeout=10).status
except OSError as exc:
    status = f"{type(exc).__name__}: {exc}"
result = {
    "kind": "none",
    "opened": len(held),
    "failed": failed,
    "card_during_flood": status,
    "card_seconds": round(time.monotonic() - began, 3),
    "seconds": round(time.monotonic() - STARTED, 3),
}
with open(os.environ["A2A_LAB_RESULT"], "w", encoding="utf-8") as fh:
    json.dump(result, fh)
print(json.dumps(result), flush=True)
os._exit(0)  # every connection still open
