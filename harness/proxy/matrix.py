"""The interop matrix: several real clients through the proxy to several real servers, one table client x server,
each cell's findings attributed to a side (`C:` the client's, `S:` the server's).

    python -m a2a_lab.harness.proxy.matrix --client ref='a2a-lab client' --server lab=http://127.0.0.1:8000

Each client command gets the proxy's card URL as its last argument and a2a-lab's handshake variables
(A2A_LAB_CARD_URL, A2A_LAB_MESSAGE), as `a2a-lab run` gives them; each cell is a fresh proxy session."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from a2a_lab.contract import handshake
from a2a_lab.harness.client_judging import environment, process
from a2a_lab.harness.common.model import GATING, Outcome, ScenarioResult
from a2a_lab.harness.proxy import session
from a2a_lab.harness.proxy.routes import CARD_PATHS
from a2a_lab.harness.proxy.verdict import CLIENT_ID, SERVER_ID, verdict

#: What a cell's client is asked to say.
MESSAGE = "Hello from the a2a-lab interop matrix"
#: How long one client may take in a cell.
TIMEOUT = 60.0


@dataclass
class Cell:
    client: str
    server: str
    client_outcome: Outcome
    server_outcome: Outcome
    #: The findings (FAIL, NON_STRICT), each as `C:ID` (the client's) or `S:ID` (the server's).
    findings: list[str] = field(default_factory=list)
    exit_code: int | None = None

    @property
    def label(self) -> str:
        worst = "PASS" if not self.findings else " ".join(self.findings)
        return f"{worst} (client exit {self.exit_code})"


def _findings(result: ScenarioResult, side: str) -> list[str]:
    missed = (Outcome.FAIL, Outcome.NON_STRICT, Outcome.ERROR)
    return [f"{side}:{c.id}" + ("" if c.outcome is Outcome.FAIL else "?") for c in result.checks if c.outcome in missed]


def cell(client: str, argv: Sequence[str], server: str, upstream: str) -> Cell:
    """One client through a fresh proxy to one server; the verdict of both sides."""
    with session.hosted(upstream) as (state, url, _):
        card_url = f"{url}{CARD_PATHS[0]}"
        env = environment.inherited(os.environ)
        env.update({handshake.ENV_CARD_URL: card_url, handshake.ENV_BASE_URL: url, handshake.ENV_MESSAGE: MESSAGE})
        finished = process.run([*argv, card_url], env, TIMEOUT)
    results = {r.id: r for r in verdict(state, 0.0).results}
    client_side, server_side = results[CLIENT_ID], results[SERVER_ID]
    found = _findings(client_side, "C") + _findings(server_side, "S")
    return Cell(client, server, client_side.outcome, server_side.outcome, found, finished.exit_code)


def table(cells: list[Cell]) -> str:
    """A Markdown table: a row per client, a column per server."""
    clients = list(dict.fromkeys(c.client for c in cells))
    servers = list(dict.fromkeys(c.server for c in cells))
    by = {(c.client, c.server): c for c in cells}
    lines = ["| client \\ server | " + " | ".join(servers) + " |", "|---" * (len(servers) + 1) + "|"]
    for name in clients:
        row = [by[(name, s)].label if (name, s) in by else "-" for s in servers]
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines.append("")
    lines.append("C: the client's finding, S: the server's; `?` marks a SHOULD (NON_STRICT), else a MUST (FAIL).")
    return "\n".join(lines)


def gating(cells: list[Cell]) -> bool:
    return any(o in GATING for c in cells for o in (c.client_outcome, c.server_outcome))


def _pair(text: str, what: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise SystemExit(f"--{what} wants NAME=VALUE, got {text!r}")
    return name, value


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--client", action="append", required=True, metavar="NAME=COMMAND", help="a client command")
    p.add_argument("--server", action="append", required=True, metavar="NAME=URL", help="a server's base URL")
    args = p.parse_args(argv)
    clients = [_pair(c, "client") for c in args.client]
    servers = [_pair(s, "server") for s in args.server]
    cells = [cell(c, shlex.split(cmd), s, url) for c, cmd in clients for s, url in servers]
    print(table(cells))
    return 1 if gating(cells) else 0


if __name__ == "__main__":
    sys.exit(main())
