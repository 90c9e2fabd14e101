"""What `a2a-lab record --from-har` costs on a capture of many small SSE events, before and after, side by side.

    python benchmarks/bench_har.py                       # before: HEAD; sizes 0.07, 1.25 and 5 MB of tiny events
    python benchmarks/bench_har.py --before main --sizes 0.4,5,20 --event small --timeout 300

Each HAR is generated here: an agent card and one SendStreamingMessage whose SSE answer is as many small events as
fill the size (`tiny`: `data: {"n":1}`; `small`: a JSON-RPC status update). Issue 45 measured a 1.26 MB HAR at 7.7 s
and 290 MB, a 5 MB one at 63 s and 986 MB. Each import runs as a user runs it, `python -m a2a_lab.harness.cli record
--from-har ...` in a process of its own, against a2a-lab as it is here ("after") and as it was at a commit ("before",
exported by trees.py); the table gives wall seconds, CPU seconds, peak memory (the process's max RSS), the exit code
and the first words of what it said. A run past --timeout is killed and shown as such.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import trees

ORIGIN = "http://agent.example"
#: The events a stream is made of, as the capture holds them (CRLF line ends, as a2a-lab's own server sends them):
#: a JSON-RPC status update, or the smallest JSON (the most events per byte).
EVENTS = {
    "small": (
        'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t-1","contextId":"c-1",'
        '"status":{"state":"TASK_STATE_WORKING"}}}}\r\n\r\n'
    ),
    "tiny": 'data: {"n":1}\r\n\r\n',
}


def har(size: int, event: str) -> tuple[str, int]:
    """A HAR of about `size` bytes: the card, then one stream of `event`s; and how many events."""
    card = {
        "name": "bench agent",
        "description": "streams many small events",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": f"{ORIGIN}/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    message = {"role": "ROLE_USER", "parts": [{"text": "stream"}], "messageId": "m-1"}
    send = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message}}
    escaped = len(json.dumps(event)) - 2  # as the HAR's JSON writes it
    events = max(1, size // escaped)
    entries = [
        {
            "startedDateTime": "2026-12-01T00:00:00.000Z",
            "request": {"method": "GET", "url": f"{ORIGIN}/.well-known/agent-card.json", "headers": []},
            "response": {
                "status": 200,
                "headers": [{"name": "content-type", "value": "application/json"}],
                "content": {"mimeType": "application/json", "text": json.dumps(card)},
            },
        },
        {
            "startedDateTime": "2026-12-01T00:00:01.000Z",
            "request": {
                "method": "POST",
                "url": f"{ORIGIN}/a2a/jsonrpc",
                "headers": [{"name": "A2A-Version", "value": "1.0"}],
                "postData": {"mimeType": "application/json", "text": json.dumps(send)},
            },
            "response": {
                "status": 200,
                "headers": [{"name": "content-type", "value": "text/event-stream"}],
                "content": {"mimeType": "text/event-stream", "text": event * events},
            },
        },
    ]
    return json.dumps({"log": {"version": "1.2", "entries": entries}}), events


def working_tree(scratch: Path) -> dict[str, str]:
    """PYTHONPATH that imports a2a_lab from this working tree (whatever the editable install points at)."""
    package = scratch / "here" / "a2a_lab"
    package.mkdir(parents=True, exist_ok=True)
    for part in trees.PARTS:
        link = package / part
        if not link.exists():
            link.symlink_to(trees.REPO / part, target_is_directory=True)
    trees.compile_tree(trees.REPO)
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(package.parent), os.environ.get("PYTHONPATH", "")]))}


def run(env: dict[str, str], har_file: Path, out: Path, timeout: float) -> dict[str, object]:
    """One import in a process of its own: wall and CPU seconds, peak RSS, exit code, what it said."""
    argv = [sys.executable, "-m", "a2a_lab.harness.cli", "record", "--from-har", str(har_file), "--out", str(out)]
    argv.append("--force")
    began = time.monotonic()
    proc = subprocess.Popen(argv, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    said: list[bytes] = []
    reader = threading.Thread(target=lambda: said.append(proc.stderr.read() if proc.stderr else b""))
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - began
    timer.cancel()
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stdout is not None:
        proc.stdout.close()
    text = b"".join(said).decode("utf-8", "replace").strip().splitlines()
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
        "exit": "killed" if killed.is_set() else proc.returncode,
        "said": (text[-1] if text else "").removeprefix("a2a-lab: ").replace(str(har_file), "FILE")[:90],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="HEAD", metavar="REF", help="the commit to compare with (default HEAD)")
    parser.add_argument("--sizes", default="0.07,1.25,5", help="HAR sizes in MB, comma-separated")
    parser.add_argument("--event", choices=sorted(EVENTS), default="tiny", help="the events a stream is made of")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before an import is killed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-har-") as tmp:
        scratch = Path(tmp)
        sides = {"before": trees.tree("before", args.before, scratch).env, "after": working_tree(scratch)}
        print(f"before: a2a-lab at {args.before} = {trees.commit_of(args.before)}; after: the working tree")
        print(f"events: {args.event} ({EVENTS[args.event]!r})")
        print(f"load average at start: {os.getloadavg()[0]:.1f}\n")
        print("| HAR | events | side | wall s | CPU s | peak MB | exit | said |")
        print("|---|---|---|---|---|---|---|---|")
        for mb in (float(s) for s in args.sizes.split(",")):
            text, events = har(int(mb * 1_000_000), EVENTS[args.event])
            har_file = scratch / f"{mb}.har"
            har_file.write_text(text, encoding="utf-8")
            for side, env in sides.items():
                r = run(env, har_file, scratch / f"{mb}-{side}.yaml", args.timeout)
                print(
                    f"| {len(text) / 1e6:.2f} MB | {events} | {side} | {r['wall']:.1f} | {r['cpu']:.1f} | "
                    f"{r['rss_mb']:.0f} | {r['exit']} | {r['said']} |",
                    flush=True,
                )
        print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
