"""Where a2a-lab's server time goes on a request, measured where it is spent: each section of the request path timed
in place (in-process, through uvicorn's own h11 protocol, no sockets), beside what the same piece of work costs when
it runs alone in a tight loop.

    python benchmarks/bench_sections.py [--requests 20000] [--prefill 12000]

For each unary workload of bench_server.py: the request's CPU time (thread time, timers included: what one timer
adds is measured and printed first), and the time inside each section (a section's time includes the sections it
calls). The stores are filled
first (`--prefill` completed tasks), as on a server that has been busy. The last table times Engine.create and
Engine.new_id alone, on a full store: set beside the same functions in place, it shows what a request's other work
(its code and data evicting this code's from the processor's caches) adds to each piece.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import time
from collections.abc import Callable
from typing import Any

import bench_server
from bench_instructions import WORKLOADS, connection, request

from a2a_lab.contract.scenario import ArtifactSpec, Step, TaskScript
from a2a_lab.protocol import params
from a2a_lab.protocol.states import TaskState
from a2a_lab.server import answer, dispatch, http, intake, jsonrpc_endpoint
from a2a_lab.server.engine import Engine

#: Nanoseconds spent in each section so far.
SPENT: collections.Counter[str] = collections.Counter()


def timed(owner: Any, name: str, label: str) -> None:
    """Replace `owner.name` (a module's function, a class's method, sync or async) by a timer around it."""
    inner = owner.__dict__[name]
    is_static = isinstance(inner, staticmethod)
    func = inner.__func__ if is_static else inner
    clock = time.perf_counter_ns

    if asyncio.iscoroutinefunction(func):

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = clock()
            try:
                return await func(*args, **kwargs)
            finally:
                SPENT[label] += clock() - began

    else:

        def wrapper(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            began = clock()
            try:
                return func(*args, **kwargs)
            finally:
                SPENT[label] += clock() - began

    setattr(owner, name, staticmethod(wrapper) if is_static else wrapper)


SECTIONS: list[tuple[Any, str, str]] = [
    (jsonrpc_endpoint, "handle", "the JSON-RPC endpoint (all below)"),
    (intake, "take", "  intake: read the body, journal the request"),
    (http, "decode_json", "  decode the JSON"),
    (params, "read", "  read the params"),
    (dispatch, "execute", "  dispatch: decide the answer"),
    (Engine, "create", "    Engine.create"),
    (Engine, "agent_message", "    Engine.agent_message"),
    (Engine, "snapshot", "    Engine.snapshot"),
    (jsonrpc_endpoint, "render", "  render and send the answer"),
    (answer, "send_body", "    send_body (journal it, uvicorn's send)"),
]


class _Probe:
    @staticmethod
    def noop() -> None:
        pass


def timer_cost(calls: int) -> float:
    """Microseconds one timer adds to a call: a function timed by `timed`, against the same function untimed."""
    untimed = _Probe.noop
    began = time.thread_time()
    for _ in range(calls):
        untimed()
    bare = time.thread_time() - began
    timed(_Probe, "noop", "probe")
    wrapped = _Probe.noop
    began = time.thread_time()
    for _ in range(calls):
        wrapped()
    cost = (time.thread_time() - began - bare) / calls * 1e6
    SPENT.clear()
    return cost


def in_place(requests: int, prefill: int) -> None:
    for owner, name, label in SECTIONS:
        timed(owner, name, label)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    answer_request, settle = connection("lab", loop)
    settle()
    fill = request(bench_server.rpc("SendMessage", bench_server.message("task-fill")))
    for _ in range(prefill):
        answer_request(fill)

    def get_task() -> str:
        """GetTask of a task made now (the other workloads would have pushed an older one out of the store)."""
        created = answer_request(request(bench_server.rpc("SendMessage", bench_server.message("task-get"))))
        task_id = json.loads(created.split(b"\r\n\r\n", 1)[1])["result"]["task"]["id"]
        return bench_server.rpc("GetTask", {"id": task_id})

    bodies: dict[str, Callable[[], str]] = {
        WORKLOADS[0]: lambda: bench_server.rpc("SendMessage", bench_server.message("direct-1")),
        WORKLOADS[1]: lambda: bench_server.rpc("SendMessage", bench_server.message("task-1")),
        WORKLOADS[2]: get_task,
    }
    for workload, body in bodies.items():
        data = request(body())
        for _ in range(500):
            answered = answer_request(data)
        if b'"result"' not in answered:  # timing an error path would say nothing about the workload
            raise SystemExit(f"bench: {workload} was not answered with a result: {answered[:300]!r}")
        SPENT.clear()
        began = time.thread_time()
        for _ in range(requests):
            answer_request(data)
        total = (time.thread_time() - began) / requests * 1e6
        print(f"\n{workload}: {total:.1f} µs CPU a request (timers included), of which")
        for _, _, label in SECTIONS:
            if SPENT[label]:
                print(f"  {label:<48} {SPENT[label] / requests / 1000:7.1f} µs")
    loop.close()


def alone(calls: int, prefill: int) -> None:
    """Engine.create and new_id in a tight loop, on a store as full as the server's."""
    script = TaskScript(
        (Step(TaskState.COMPLETED),),
        (ArtifactSpec({"artifactId": "result", "name": "result", "parts": [{"text": "echo: {text}"}]}),),
    )
    message = {"messageId": "task-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}
    engine = Engine(1)
    for _ in range(prefill):
        engine.create(message, script, 150)
    rows: list[tuple[str, Callable[[], Any]]] = [
        ("Engine.create", lambda: engine.create(message, script, 150)),
        ("Engine.new_id", engine.new_id),
    ]
    print("\nalone, in a tight loop (store full):")
    for label, call in rows:
        began = time.thread_time()
        for _ in range(calls):
            call()
        print(f"  {label:<48} {(time.thread_time() - began) / calls * 1e6:7.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=20_000, help="requests timed per workload (default 20000)")
    parser.add_argument("--prefill", type=int, default=12_000, help="completed tasks made first (default 12000)")
    args = parser.parse_args()
    print(f"one timer adds {timer_cost(200_000):.2f} µs to a call")
    in_place(args.requests, args.prefill)
    alone(args.requests, args.prefill)


if __name__ == "__main__":
    main()
