"""A hostile local process: finds the servers of a concurrent run the way any local process can (listening loopback
sockets in /proc/net/tcp; only those of the process HOSTILE_TARGET_PID, so that nobody else's servers on the
machine are touched), then tries to read and reset each one's journal: without a token, from a web page (a
text/plain POST with a foreign Origin), under a rebound DNS name. Writes {port: {attack: status}} and the victim's
port to A2A_LAB_RESULT."""

from __future__ import annotations

import http.client
import json
import os
from pathlib import Path

SYNC = Path(os.environ["HOSTILE_SYNC_DIR"])
TARGET = int(os.environ["HOSTILE_TARGET_PID"])
LISTEN = "0A"

#: name -> (method, path, headers): what a hostile process or a web page can send without the admin token.
ATTACKS: dict[str, tuple[str, str, dict[str, str]]] = {
    "read-journal": ("GET", "/_lab/journal", {}),
    "reset": ("POST", "/_lab/reset", {"Content-Type": "application/json"}),
    "reset-guessed-token": ("POST", "/_lab/reset", {"Content-Type": "application/json", "X-A2A-Lab-Token": "r1"}),
    "reset-from-a-web-page": ("POST", "/_lab/reset", {"Content-Type": "text/plain", "Origin": "http://evil.example"}),
    "reset-rebound-dns": ("POST", "/_lab/reset", {"Content-Type": "application/json", "Host": "evil.example"}),
}


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[len("socket:[") : -1])
    return inodes


def listening_loopback_ports(pid: int) -> list[int]:
    mine = socket_inodes(pid)
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        lines = Path(table).read_text(encoding="ascii").splitlines()[1:]
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == LISTEN and inode in mine:
                ports.append(int(local.rpartition(":")[2], 16))
    return sorted(set(ports))


def attack(port: int) -> dict[str, int | str]:
    statuses: dict[str, int | str] = {}
    for name, (method, path, headers) in ATTACKS.items():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request(method, path, body=b"{}" if method == "POST" else None, headers=headers)
            statuses[name] = conn.getresponse().status
        except (OSError, http.client.HTTPException) as exc:  # a gRPC port answers HTTP/2 frames, not HTTP/1.1
            statuses[name] = f"{type(exc).__name__}: {exc}"
        finally:
            conn.close()
    return statuses


with (SYNC / "ready").open("r", encoding="ascii") as ready:
    victim = int(ready.read().strip())
found = {port: attack(port) for port in listening_loopback_ports(TARGET)}
Path(os.environ["A2A_LAB_RESULT"]).write_text(json.dumps({"victim": victim, "attacked": found}), encoding="utf-8")
with (SYNC / "done").open("w", encoding="ascii") as done:
    done.write(f"{len(found)} servers attacked\n")
