"""Instructions per request, counted by valgrind (callgrind): a2a-lab vs bare Starlette, the same workloads as
bench_server.py, through uvicorn's own h11 protocol in-process (no sockets, no other process), so the count is the
server's work alone and the same from run to run whatever else the machine is doing.

    python benchmarks/bench_instructions.py [--requests 300] [--before main]      # needs valgrind (apt-get)

Each server and workload runs in a process of its own under `valgrind --tool=callgrind`, instrumented only once it
has answered --warm requests, and counted only inside the measured requests (they run inside functools.reduce,
which nothing else on the path calls). Instruction counts leave out what CPU time adds (cache misses, branch
mispredictions, the kernel's socket work): the ratios are a floor under the CPU ratios bench_server.py measures.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_server
import servers
import trees

WORKLOADS = bench_server.WORKLOADS


class Transport(asyncio.Transport):
    """A connection that keeps what the server writes (and nothing else)."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[bytes] = []

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.out.append(bytes(data))

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def request(body: str) -> bytes:
    data = body.encode()
    head = (
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    )
    return head.encode() + data


def connection(kind: str, loop: asyncio.AbstractEventLoop) -> tuple[Callable[[bytes], bytes], Callable[[], None]]:
    """One kept-alive connection to the server `kind`: a function that answers a request, and one that settles the
    process as serving it does."""
    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.server import ServerState

    settle: Callable[[], None] = lambda: None  # noqa: E731
    if kind == "bare":
        config, protocol = uvicorn.Config(servers.bare_app(), log_level="error", lifespan="off"), H11Protocol
    else:
        from a2a_lab.server import hosting

        config, protocol, settle = (
            hosting.config(servers.lab_app(), "error"),
            hosting.protocol(),
            hosting.settle_collector,
        )
    config.load()
    done: list[asyncio.Future[None]] = []  # the answer being waited for

    class Counted(protocol):  # type: ignore[misc,valid-type]
        def on_response_complete(self) -> None:
            super().on_response_complete()
            done[0].set_result(None)

    async def made() -> Counted:
        return Counted(config=config, server_state=ServerState(), app_state={}, _loop=loop)

    server = loop.run_until_complete(made())
    transport = Transport()
    server.connection_made(transport)

    async def answered(data: bytes) -> None:
        done[:] = [loop.create_future()]
        server.data_received(data)
        await done[0]

    def answer(data: bytes) -> bytes:
        loop.run_until_complete(answered(data))
        out = b"".join(transport.out)
        transport.out.clear()
        return out

    return answer, settle


def child(kind: str, workload: str, requests: int, warm: int) -> None:
    """Under valgrind: answer `warm` requests, switch instrumentation on, answer `requests` inside reduce."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    answer, settle = connection(kind, loop)
    created = json.loads(
        answer(request(bench_server.rpc("SendMessage", bench_server.message("task-setup")))).split(b"\r\n\r\n", 1)[1]
    )
    bodies = {
        WORKLOADS[0]: bench_server.rpc("SendMessage", bench_server.message("direct-1")),
        WORKLOADS[1]: bench_server.rpc("SendMessage", bench_server.message("task-1")),
        WORKLOADS[2]: bench_server.rpc("GetTask", {"id": created["result"]["task"]["id"]}),
        WORKLOADS[3]: bench_server.rpc("SendStreamingMessage", bench_server.message("stream-1")),
    }
    data = request(bodies[workload])
    settle()
    for _ in range(warm):
        answer(data)
    subprocess.run(["callgrind_control", "--instr=on", str(os.getpid())], capture_output=True, check=False)
    functools.reduce(lambda n, _: n + len(answer(data)), range(requests), 0)
    loop.close()


def count(kind: str, workload: str, requests: int, warm: int, env: dict[str, str]) -> float:
    """Instructions per request of one server and workload."""
    with tempfile.TemporaryDirectory(prefix="a2a-lab-callgrind-") as scratch:
        out = Path(scratch) / "callgrind.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                "--collect-atstart=no",
                "--toggle-collect=functools_reduce",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--child",
                "lab" if kind == "before" else kind,
                workload,
                str(requests),
                str(warm),
            ],
            env={**os.environ, "PYTHONHASHSEED": "0", **env},
            capture_output=True,
            check=True,
        )
        total = bench_server.found(r"(?m)^summary: (\d+)$", out.read_text())
    return int(total) / requests


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300, help="requests counted per workload (default 300)")
    parser.add_argument("--warm", type=int, default=200, help="requests answered first, not counted (default 200)")
    parser.add_argument("--before", metavar="REF", help="also count a2a-lab as it was at this git commit")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("bench: needs valgrind and callgrind_control: apt-get install valgrind")
    kinds = ["lab", *(["before"] if args.before else []), "bare"]
    with tempfile.TemporaryDirectory(prefix="a2a-lab-bench-") as scratch:
        envs = {k: trees.tree(k, args.before, Path(scratch)).env if k == "before" else {} for k in kinds}
        counts = {(k, w): count(k, w, args.requests, args.warm, envs[k]) for w in WORKLOADS for k in kinds}
    if args.before:
        print(f"before: a2a-lab at {args.before} = {trees.commit_of(args.before)}")
    print(f"instructions per request (callgrind), {args.requests} requests after {args.warm}\n")
    names = {"lab": "a2a-lab", "before": "a2a-lab before", "bare": "bare Starlette"}
    ratios = [k for k in kinds if k != "bare"]
    header = (
        f"{'workload':<32}" + "".join(f"{names[k]:>17}" for k in kinds) + "".join(f"{k + '/bare':>13}" for k in ratios)
    )
    print(header)
    print("-" * len(header))
    for w in WORKLOADS:
        row = f"{w:<32}" + "".join(f"{counts[k, w]:>17,.0f}" for k in kinds)
        print(row + "".join(f"{counts[k, w] / counts['bare', w]:>12.2f}x" for k in ratios))


if __name__ == "__main__":
    main()
