"""Server throughput and latency on loopback, side by side in one run: a2a-lab vs the official a2a-sdk 1.3.0
server vs a bare Starlette endpoint (the ceiling), all under the same uvicorn, loaded by Debian's wrk.

    python benchmarks/bench_server.py [--duration 5] [--connections 16] [--repeat 3] [--only lab,bare]
    python benchmarks/bench_server.py --before main --only lab,before,bare     # a2a-lab here vs at a commit

The servers run at once (each idle while another is measured) and are measured in rounds: every round
loads each server in turn with each workload, the order rotating from round to round, so a burst of other
work on the machine falls on all of them alike. The table gives per-server medians over the rounds, and the
ratios as the median of each round's own ratio. Beside each req/s ratio, the ratio of the server processes' CPU time
per answered request (medians over the rounds), the steadier figure on a shared machine. With `--before REF`, a
fourth server, "before", is a2a-lab as it was at commit REF (exported by trees.py), serving the same scenario.

Installs wrk with apt-get when it is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import trees
from servers import SSE_EVENTS

HERE = Path(__file__).resolve().parent
KINDS = ("lab", "before", "sdk", "bare")
NAMES = {"lab": "a2a-lab", "before": "a2a-lab before", "sdk": "a2a-sdk 1.3.0", "bare": "bare Starlette"}
#: The ratios the table gives: (a, b) is a's req/s over b's, and a's CPU per request over b's.
PAIRS = (("lab", "sdk"), ("lab", "bare"), ("before", "bare"))


def found(pattern: str, text: str) -> str:
    """The first group of `pattern` in a tool's output; a clear error when the tool printed something else."""
    m = re.search(pattern, text)
    if m is None:
        raise SystemExit(f"bench: expected {pattern!r} in this output:\n{text}")
    return m.group(1)


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


def start(kind: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """Start `python servers.py KIND` (the "before" server is the lab one, on the exported tree's PYTHONPATH)."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "servers.py"), "lab" if kind == "before" else kind],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.stdout is not None  # stdout=PIPE
    url = proc.stdout.readline().strip()
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


def post(url: str, body: str) -> tuple[str, bytes]:
    """POST a JSON-RPC body: the answer's content type and bytes."""
    req = urllib.request.Request(
        url + "/", data=body.encode(), headers={"Content-Type": "application/json", "A2A-Version": "1.0"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers.get("content-type", ""), r.read()


WORKLOADS = ("SendMessage -> message", "SendMessage -> completed task", "GetTask", "SSE stream, 20 events")


def body_for(url: str, name: str) -> str:
    """The request a workload sends to the server at `url`. GetTask's task is created here, just before its
    workload runs: one created at start-up would be gone by then from a2a-lab's task store (10,000 tasks, the oldest
    dropped first), and every GetTask would measure the "task not found" error instead of a task."""
    if name == WORKLOADS[2]:
        created = json.loads(post(url, rpc("SendMessage", message("task-setup")))[1])
        return rpc("GetTask", {"id": created["result"]["task"]["id"]})
    prefix = {WORKLOADS[0]: "direct-1", WORKLOADS[1]: "task-1", WORKLOADS[3]: "stream-1"}[name]
    return rpc("SendStreamingMessage" if name == WORKLOADS[3] else "SendMessage", message(prefix))


def answer_problem(name: str, content_type: str, raw: bytes) -> str | None:
    """Why an answer is not what the workload measures (a JSON-RPC error answers 200 too), or None."""
    if name == WORKLOADS[3]:
        events = [line for line in raw.decode().splitlines() if line.startswith("data:")]
        results = [e for e in events if '"result"' in e and '"error"' not in e]
        if not content_type.startswith("text/event-stream") or len(results) != len(events) or len(events) < SSE_EVENTS:
            return f"not a stream of {SSE_EVENTS} results ({content_type}, {len(events)} events)"
        return None
    answer = json.loads(raw)
    result = answer.get("result")
    wanted = {WORKLOADS[0]: "message", WORKLOADS[1]: "task"}.get(name)
    if not isinstance(result, dict) or "error" in answer:
        return f"no result: {raw[:300]!r}"
    if wanted is not None and wanted not in result:
        return f"a result without {wanted!r}: {raw[:300]!r}"
    if name == WORKLOADS[2] and result.get("status", {}).get("state") != "TASK_STATE_COMPLETED":
        return f"not the completed task: {raw[:300]!r}"
    return None


def check_answer(kind: str, url: str, name: str, body: str, when: str) -> None:
    """Stop the benchmark when a server's answer to a workload is not what the workload is meant to measure."""
    problem = answer_problem(name, *post(url, body))
    if problem is not None:
        raise SystemExit(f"bench: {NAMES[kind]} answered {name} {when} with {problem}; its figures would be wrong")


def wrk(binary: str, url: str, body: str, duration: int, connections: int) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(
            'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
            'wrk.headers["A2A-Version"] = "1.0"\n'
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

    rps = float(found(r"Requests/sec:\s+([\d.]+)", out))
    done = float(found(r"(\d+) requests in", out))
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return {
        "rps": rps,
        "requests": done,
        "p50": latency("50%"),
        "p99": latency("99%"),
        "non2xx": float(errors.group(1)) if errors else 0.0,
    }


def measure(
    binary: str,
    urls: dict[str, str],
    pids: dict[str, int],
    duration: int,
    connections: int,
    repeat: int,
) -> dict[str, dict[str, list[dict[str, float]]]]:
    """{workload: {kind: [one measurement per round]}}; each round loads every server in turn, in rotating order.
    Besides wrk's figures, each measurement has `cpu_us`: the server process's CPU time per answered request. Every
    server's answer to a workload is checked before and after it is measured."""
    kinds = list(urls)
    runs: dict[str, dict[str, list[dict[str, float]]]] = {}
    for name in WORKLOADS:
        bodies = {kind: body_for(urls[kind], name) for kind in kinds}
        for kind in kinds:
            check_answer(kind, urls[kind], name, bodies[kind], "before its rounds")
            wrk(binary, urls[kind], bodies[kind], 1, connections)  # warm-up
        for round_no in range(repeat):
            order = kinds[round_no % len(kinds) :] + kinds[: round_no % len(kinds)]
            for kind in order:
                cpu = cpu_seconds(pids[kind])
                result = wrk(binary, urls[kind], bodies[kind], duration, connections)
                result["cpu_us"] = (cpu_seconds(pids[kind]) - cpu) / max(result["requests"], 1) * 1e6
                runs.setdefault(name, {}).setdefault(kind, []).append(result)
        for kind in kinds:
            check_answer(kind, urls[kind], name, bodies[kind], "after its rounds")
    return runs


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median(results: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in results)


def ratio(by: dict[str, list[dict[str, float]]], a: str, b: str) -> float:
    """The median over rounds of a's req/s over b's in the same round."""
    return statistics.median(x["rps"] / y["rps"] for x, y in zip(by[a], by[b], strict=True))


def cpu_ratio(by: dict[str, list[dict[str, float]]], a: str, b: str) -> float:
    """a's CPU time per request over b's, medians over the rounds (each is steady enough alone: unlike req/s, it
    hardly moves when other work takes the cores)."""
    return median(by[a], "cpu_us") / median(by[b], "cpu_us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=5, help="seconds per measurement (default 5)")
    parser.add_argument("--connections", type=int, default=16, help="concurrent connections (default 16)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the table shows medians (default 3)")
    parser.add_argument("--only", help="servers to measure (default lab,sdk,bare, and before with --before)")
    parser.add_argument("--before", metavar="REF", help="also serve a2a-lab as it was at this git commit")
    args = parser.parse_args()
    wanted = (args.only or "lab,sdk,bare" + (",before" if args.before else "")).split(",")
    unknown = [k for k in wanted if k not in KINDS]
    if unknown:
        raise SystemExit(f"bench: --only {args.only!r}: no server {', '.join(unknown)}; choose from {', '.join(KINDS)}")
    kinds = [k for k in KINDS if k in wanted]
    if "before" in kinds and not args.before:
        raise SystemExit("bench: --only names the server 'before': give its commit with --before REF (e.g. main)")
    binary = ensure_wrk()
    procs: list[subprocess.Popen[str]] = []
    scratch = tempfile.TemporaryDirectory(prefix="a2a-lab-bench-")
    try:
        urls: dict[str, str] = {}
        for kind in kinds:
            env = trees.tree("before", args.before, Path(scratch.name)).env if kind == "before" else None
            proc, urls[kind] = start(kind, env)
            procs.append(proc)
        pids = {kind: proc.pid for kind, proc in zip(kinds, procs, strict=True)}
        runs = measure(binary, urls, pids, args.duration, args.connections, args.repeat)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        scratch.cleanup()
    print(
        f"machine: {platform.machine()}, {platform.system()} {platform.release()}, python {platform.python_version()}, "
        f"cores {os.cpu_count()}; wrk -t1 -c{args.connections} -d{args.duration}s on 127.0.0.1, "
        f"{args.repeat} rounds, medians\n"
    )
    if args.before:
        print(f"before: a2a-lab at {args.before} = {trees.commit_of(args.before)}\n")
    print_table(runs, kinds, args.repeat)


def print_table(runs: dict[str, dict[str, list[dict[str, float]]]], kinds: list[str], repeat: int) -> None:
    pairs = [(a, b) for a, b in PAIRS if a in kinds and b in kinds]
    header = (
        f"{'workload':<32}"
        + "".join(f"{NAMES[k] + ' req/s':>22}{'p50 ms':>9}{'p99 ms':>9}" for k in kinds)
        + "".join(f"{a + '/' + b + ' req/s':>18}{'CPU':>7}" for a, b in pairs)
    )
    print(header)
    print("-" * len(header))
    for name, by in runs.items():
        row = f"{name:<32}"
        for k in kinds:
            row += f"{median(by[k], 'rps'):>22,.0f}{median(by[k], 'p50'):>9.2f}{median(by[k], 'p99'):>9.2f}"
        for a, b in pairs:
            row += f"{ratio(by, a, b):>17.2f}x" if b == "sdk" else f"{ratio(by, a, b):>18.0%}"
            row += f"{cpu_ratio(by, a, b):>6.2f}x"
        print(row)
        bad = [k for k in kinds if any(r["non2xx"] for r in by[k])]
        if bad:
            print(f"  (non-2xx answers from {', '.join(NAMES[k] for k in bad)})")
    print(
        "\nserver CPU time per request, µs (req/s ratios above; CPU: the same servers' CPU time per request, a measure"
        " that other work on the machine disturbs less):"
    )
    for name, by in runs.items():
        print(f"  {name:<30}" + "".join(f"{NAMES[k]} {median(by[k], 'cpu_us'):>7,.0f}   " for k in kinds))
    for a, b in pairs:
        if repeat > 1 and b != "sdk":
            print(
                f"\nper round, {a}/{b} req/s and CPU per request: "
                + "; ".join(
                    f"{name}: "
                    + " ".join(
                        f"{x['rps'] / y['rps']:.0%}/{x['cpu_us'] / y['cpu_us']:.2f}x"
                        for x, y in zip(by[a], by[b], strict=True)
                    )
                    for name, by in runs.items()
                )
            )


if __name__ == "__main__":
    main()
