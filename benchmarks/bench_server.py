"""Server throughput and latency on loopback, side by side in one run: a2a-lab vs the official a2a-sdk 1.3.0
server vs a bare Starlette endpoint (the ceiling), all under the same uvicorn, loaded by Debian's wrk.

    python benchmarks/bench_server.py [--duration 5] [--connections 16]

Installs wrk with apt-get when it is missing. Prints a table of requests/s, p50 and p99 latency and the ratios.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = ("lab", "sdk", "bare")
NAMES = {"lab": "a2a-lab", "sdk": "a2a-sdk 1.3.0", "bare": "bare Starlette"}


def rpc(method: str, params: dict, req_id: int = 1) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": req_id, "method": method, "params": params})


def message(message_id: str) -> dict:
    return {"message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "hello"}]}}


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("installing Debian's wrk ...", file=sys.stderr)
    subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], check=False, capture_output=True)
    if not shutil.which("wrk"):
        subprocess.run(["apt-get", "update", "-q"], check=False, capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], check=True, capture_output=True)
    return shutil.which("wrk") or "wrk"


def start(kind: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "servers.py"), kind], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    url = proc.stdout.readline().strip()  # type: ignore[union-attr]
    for _ in range(100):  # wait until it answers
        try:
            urllib.request.urlopen(
                urllib.request.Request(
                    url + "/",
                    data=rpc("GetTask", {"id": "warmup"}).encode(),
                    headers={"Content-Type": "application/json", "A2A-Version": "1.0"},
                ),
                timeout=1,
            )
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            continue
    return proc, url


def post(url: str, body: str) -> dict:
    req = urllib.request.Request(
        url + "/", data=body.encode(), headers={"Content-Type": "application/json", "A2A-Version": "1.0"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def workloads(url: str) -> dict[str, str]:
    created = post(url, rpc("SendMessage", message("task-setup")))
    task_id = created["result"]["task"]["id"]
    return {
        "SendMessage -> message": rpc("SendMessage", message("direct-1")),
        "SendMessage -> completed task": rpc("SendMessage", message("task-1")),
        "GetTask": rpc("GetTask", {"id": task_id}),
        "SSE stream, 20 events": rpc("SendStreamingMessage", message("stream-1")),
    }


def wrk(binary: str, url: str, body: str, duration: int, connections: int) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(
            'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["A2A-Version"] = "1.0"\n'
            f"wrk.body = {json.dumps(body)}\n"
        )
    out = subprocess.run(
        [binary, "-t1", f"-c{connections}", f"-d{duration}s", "--latency", "-s", script.name, url + "/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    Path(script.name).unlink()

    def latency(label: str) -> float:
        m = re.search(rf"^\s*{label}\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        if not m:
            return float("nan")
        return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]

    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return {
        "rps": rps,
        "p50": latency("50%"),
        "p99": latency("99%"),
        "non2xx": float(errors.group(1)) if errors else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=int, default=5, help="seconds per measurement (default 5)")
    parser.add_argument("--connections", type=int, default=16, help="concurrent connections (default 16)")
    args = parser.parse_args()
    binary = ensure_wrk()
    results: dict[str, dict[str, dict[str, float]]] = {}
    for kind in KINDS:
        proc, url = start(kind)
        try:
            for name, body in workloads(url).items():
                wrk(binary, url, body, 1, args.connections)  # warm-up
                results.setdefault(name, {})[kind] = wrk(binary, url, body, args.duration, args.connections)
        finally:
            proc.terminate()
            proc.wait(10)
    print(
        f"machine: {platform.machine()}, {platform.system()} {platform.release()}, python {platform.python_version()}, "
        f"cores {__import__('os').cpu_count()}; wrk -t1 -c{args.connections} -d{args.duration}s on 127.0.0.1\n"
    )
    header = (
        f"{'workload':<32}"
        + "".join(f"{NAMES[k] + ' req/s':>22}{'p50 ms':>9}{'p99 ms':>9}" for k in KINDS)
        + f"{'lab/sdk':>9}{'lab/bare':>10}"
    )
    print(header)
    print("-" * len(header))
    for name, by in results.items():
        row = f"{name:<32}"
        for k in KINDS:
            r = by[k]
            row += f"{r['rps']:>22,.0f}{r['p50']:>9.2f}{r['p99']:>9.2f}"
        row += f"{by['lab']['rps'] / by['sdk']['rps']:>8.1f}x{by['lab']['rps'] / by['bare']['rps']:>9.0%}"
        print(row)
        bad = [k for k in KINDS if by[k]["non2xx"]]
        if bad:
            print(f"  (non-2xx answers from {', '.join(NAMES[k] for k in bad)})")


if __name__ == "__main__":
    main()
