"""Memory: the a2a-lab server's RSS while it answers 100 000 requests to one scenario (journal and task caps at work).

python benchmarks/bench_memory.py [--requests 100000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_server import ensure_wrk, found, message, rpc, start


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(found(r"VmRSS:\s+(\d+)", status)) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=100_000)
    args = parser.parse_args()
    binary = ensure_wrk()
    proc, url = start("lab")
    body = rpc("SendMessage", message("task-1"))  # a completed task per request: journal entries and tasks both grow
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(
            'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
            'wrk.headers["A2A-Version"] = "1.0"\n'
            f"wrk.body = [[{body}]]\n"
        )
    try:
        print(f"{'requests':>10}  {'RSS MiB':>8}")
        print(f"{0:>10}  {rss_mib(proc.pid):>8.1f}")
        done = 0
        while done < args.requests:
            # wrk runs for a duration; size each round from the measured rate so the total lands near the target
            out = subprocess.run(
                [binary, "-t1", "-c16", "-d3s", "-s", script.name, url + "/"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            done += int(found(r"(\d+) requests in", out))
            print(f"{done:>10}  {rss_mib(proc.pid):>8.1f}", flush=True)
    finally:
        Path(script.name).unlink()
        proc.terminate()
        proc.wait(10)
    print(
        "\njournal cap 10 000 entries (bodies kept up to 64 KiB each), task cap 10 000: "
        "RSS must level off once both are full"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
