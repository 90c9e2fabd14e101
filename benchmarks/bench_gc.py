"""The cyclic garbage collector's pauses in an a2a-lab server, with CPython's default settings and with the settings
a2a-lab's serving process uses (hosting.settle_collector): each in a fresh process, driving the benchmark scenario
in-process over ASGI (no sockets, so only the server's own work is timed).

    python benchmarks/bench_gc.py [--requests 30000]

The workload is the one that keeps the most: SendMessage answered with a completed task (a journal entry and a
task per request; both stores fill to their caps of 10 000). Prints, per generation, how many collections ran
and their CPU time (thread time: other work on the machine does not count).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "task-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}},
    }
).encode()
HEADERS = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"a2a-version", b"1.0")]


async def answer(app: Any) -> None:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "root_path": "",
        "headers": list(HEADERS),
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        pass

    await app(scope, receive, send)


def child(settings: str, requests: int) -> None:
    sys.path.insert(0, str(HERE))
    from servers import lab_app

    from a2a_lab.server.hosting import settle_collector

    app = lab_app()
    if settings == "settled":
        settle_collector()
    pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
    started = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.thread_time()
        else:
            pauses[info["generation"]].append((time.thread_time() - started[0]) * 1000)

    async def run() -> float:
        gc.callbacks.append(timed)
        begin = time.thread_time()
        for _ in range(requests):
            await answer(app)
        gc.callbacks.remove(timed)
        return time.thread_time() - begin

    total = asyncio.run(run())
    print(json.dumps({"pauses": pauses, "cpu_us": total / requests * 1e6, "tracked": len(gc.get_objects())}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=30_000)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.requests)
        return
    print(f"{args.requests:,} SendMessage -> completed task, in-process; collector pauses in CPU ms\n")
    print(f"{'collector':<10}{'generation':>12}{'collections':>13}{'total ms':>10}{'max ms':>8}{'CPU µs/request':>16}")
    for settings in ("default", "settled"):
        out = subprocess.run(
            [sys.executable, __file__, "--child", settings, "--requests", str(args.requests)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        result = json.loads(out)
        for gen, pauses in sorted(result["pauses"].items()):
            print(
                f"{settings:<10}{gen:>12}{len(pauses):>13}{sum(pauses):>10.1f}{max(pauses, default=0):>8.1f}"
                + (f"{result['cpu_us']:>16.1f}" if gen == "2" else "")
            )


if __name__ == "__main__":
    main()
