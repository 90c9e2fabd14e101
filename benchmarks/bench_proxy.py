"""What `a2a-lab proxy` costs per request, side by side with a direct connection, in one run.

    python benchmarks/bench_proxy.py --rounds 5 --requests 200

The upstream is `a2a-lab serve benchmarks/bench-scenario.yaml` and the proxy `a2a-lab proxy --upstream ...`, each in
a process of its own as a user runs them; one keep-alive client sends the same requests directly and through the
proxy, alternating in blocks, round after round, so a burst of other work on the machine falls on both alike. Each
workload prints the median latency direct and proxied and the median of the per-round differences (the proxy's
added cost), with the load average before and after. The gRPC workload does the same with the catalogue's
grpc/conformant as the upstream: unary SendMessage calls on one channel to the upstream's gRPC port and one to the
proxy's (grpc_pass.py).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import httpx

HERE = Path(__file__).parent
CLI = [sys.executable, "-m", "a2a_lab.harness.cli"]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def process(argv: list[str], pattern: str) -> Iterator[tuple[str, int]]:
    """A CLI process until the block ends; the first group of `pattern` in what it says on stderr."""
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert proc.stderr is not None
    found = None
    for line in proc.stderr:
        match = re.search(pattern, line)
        if match:
            found = match.group(1)
            break
    try:
        if found is None:
            raise SystemExit(f"{argv[3]} did not start")
        yield found, proc.pid
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()


def send(kind: str, n: int) -> dict[str, object]:
    method = "SendStreamingMessage" if kind == "stream" else "SendMessage"
    prefix = "direct-" if kind == "message" else "task-"
    message = {"role": "ROLE_USER", "parts": [{"text": "bench"}], "messageId": f"{prefix}{n}"}
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": {"message": message}}


def timed(http: httpx.Client, url: str, kind: str, count: int) -> list[float]:
    out = []
    for n in range(count):
        began = time.perf_counter()
        if kind == "stream":
            with http.stream("POST", url, json=send(kind, n), headers={"A2A-Version": "1.0"}) as r:
                for _ in r.iter_bytes():
                    pass
        else:
            http.post(url, json=send(kind, n), headers={"A2A-Version": "1.0"}).raise_for_status()
        out.append((time.perf_counter() - began) * 1000)
    return out


def grpc_timed(channel: grpc.Channel, count: int) -> list[float]:
    from a2a_lab.protocol import grpcwire, protobuf
    from a2a_lab.protocol.operations import Operation

    call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(grpcwire.method_path(Operation.SEND_MESSAGE))
    out = []
    for n in range(count):
        message = {"role": "ROLE_USER", "parts": [{"text": "bench"}], "messageId": f"grpc-{n}"}
        request = protobuf.encode_request(Operation.SEND_MESSAGE, {"message": message})
        began = time.perf_counter()
        call(request, metadata=(("a2a-version", "1.0"),), timeout=30)
        out.append((time.perf_counter() - began) * 1000)
    return out


def measure_grpc(direct: str, proxied: str, rounds: int, count: int, proxy_pid: int) -> None:
    """The gRPC row: unary SendMessage (a completed task), direct and through the proxy's gRPC port."""
    with grpc.insecure_channel(direct) as d_channel, grpc.insecure_channel(proxied) as p_channel:
        grpc_timed(d_channel, 5)
        grpc_timed(p_channel, 5)  # warm both channels
        d_all: list[float] = []
        p_all: list[float] = []
        added: list[float] = []
        cpu = cpu_seconds(proxy_pid)
        for r in range(rounds):
            order = [("d", d_channel), ("p", p_channel)]
            got = {name: grpc_timed(channel, count) for name, channel in (order if r % 2 == 0 else order[::-1])}
            d_all += got["d"]
            p_all += got["p"]
            added.append(statistics.median(got["p"]) - statistics.median(got["d"]))
        per_request = (cpu_seconds(proxy_pid) - cpu) * 1e6 / len(p_all)
    row = ("grpc", statistics.median(d_all), statistics.median(p_all), statistics.median(added), per_request)
    print("| {} | {:.2f} | {:.2f} | {:.2f} | {:.0f} |".format(*row))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def measure(direct: str, proxied: str, rounds: int, count: int, proxy_pid: int) -> None:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| workload | direct p50 ms | proxied p50 ms | added p50 ms (median of rounds) | proxy CPU µs/request |")
    print("|---|---|---|---|---|")
    with httpx.Client(timeout=30, trust_env=False) as http:
        for kind, per in (("message", count), ("task", count), ("stream", max(count // 10, 5))):
            timed(http, direct, kind, 5)
            timed(http, proxied, kind, 5)  # warm both connections
            d_all: list[float] = []
            p_all: list[float] = []
            added: list[float] = []
            cpu = cpu_seconds(proxy_pid)
            for r in range(rounds):
                order = [("d", direct), ("p", proxied)]
                got = {name: timed(http, url, kind, per) for name, url in (order if r % 2 == 0 else order[::-1])}
                d_all += got["d"]
                p_all += got["p"]
                added.append(statistics.median(got["p"]) - statistics.median(got["d"]))
            per_request = (cpu_seconds(proxy_pid) - cpu) * 1e6 / len(p_all)
            row = (kind, statistics.median(d_all), statistics.median(p_all), statistics.median(added), per_request)
            print("| {} | {:.2f} | {:.2f} | {:.2f} | {:.0f} |".format(*row))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=5, help="rounds, alternating direct and proxied (default 5)")
    p.add_argument("--requests", type=int, default=200, help="requests per round and workload (default 200)")
    p.add_argument("--only", choices=("http", "grpc"), help="run only the HTTP workloads, or only the gRPC one")
    args = p.parse_args()
    if args.only != "grpc":
        serve = [*CLI, "serve", str(HERE / "bench-scenario.yaml"), "--port", "0", "--log-level", "warning"]
        with process(serve, r" on (http://\S+) \(Ctrl-C") as (upstream, _):
            proxy = [*CLI, "proxy", "--upstream", upstream, "--journal-entries", "1000", "-q"]
            with process(proxy, r"proxy (http://\S+) ->") as (proxied, pid):
                measure(f"{upstream}/", f"{proxied}/", args.rounds, args.requests, pid)
    if args.only != "http":
        scenario = HERE.parent / "scenarios" / "grpc" / "conformant.yaml"
        serve = [*CLI, "serve", str(scenario), "--port", "0", "--log-level", "warning"]
        with process(serve, r" on (http://\S+) \(Ctrl-C") as (upstream, _):
            proxy = [*CLI, "proxy", "--upstream", upstream, "--journal-entries", "1000", "-q"]
            with process(proxy, r"gRPC (\S+ -> \S+)") as (pair, pid):
                proxied, direct = pair.split(" -> ")
                measure_grpc(direct, proxied, args.rounds, args.requests, pid)


if __name__ == "__main__":
    main()
