"""The loop handshake for the peer drivers (docs/reference/handshake.md): the standard library only, since each
driver runs in its own client's environment.

`a2a-lab run --client-mode loop` starts a driver once per worker and writes one JSON line per scenario on its stdin
(the variables a process would find in its environment); the driver runs that scenario exactly as its process would
(its own event loop, its own HTTP client) and answers `a2a-lab: done N`, N being the exit code the process would have.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable, Coroutine, Mapping
from typing import Any


def serve(scenario: Callable[[str, Mapping[str, str]], int]) -> int:
    """Run `scenario(card_url, environment)` for each line of stdin, answering each with its exit code. The line's
    variables are the process environment while it runs, as a process would have them (the libraries read some,
    e.g. httpx `SSL_CERT_FILE` for a scenario's CA), and gone after it."""
    started = dict(os.environ)
    for line in sys.stdin:
        variables: dict[str, str] = json.loads(line)
        os.environ.clear()
        os.environ.update({**started, **variables})
        code = scenario(variables["A2A_LAB_CARD_URL"], os.environ)
        sys.stderr.flush()
        print(f"a2a-lab: done {code}", flush=True)
    return 0


#: A driver's conversation: (card URL, message text, the scenario's action) -> what it understood, one JSON each.
Converse = Callable[[str, str, dict[str, Any]], Coroutine[Any, Any, list[Any]]]


def one_scenario(converse: Converse, card_url: str, variables: Mapping[str, str], causes: bool = False) -> int:
    """One scenario, as the process for it does: what it understood on stdout, one JSON line each; its exit code
    (1, with the error on stderr, when the library raised: `causes` adds the exception's cause, for libraries that
    wrap the SDK's error in their own)."""
    text = variables.get("A2A_LAB_MESSAGE", "Hello")
    action = json.loads(variables.get("A2A_LAB_ACTION") or "{}")
    try:
        said: list[Any] = asyncio.run(converse(card_url, text, action))
    except Exception as exc:  # what a script does: report and exit non-zero
        reason = " ".join(str(exc).split())
        cause = exc.__cause__
        if causes and cause is not None:
            reason += f" (caused by {type(cause).__name__}: {' '.join(str(cause).split())})"
        print(f"error: {type(exc).__name__}: {reason[:400]}", file=sys.stderr)
        return 1
    for answer in said:
        print(json.dumps(answer), flush=True)
    return 0


def main(converse: Converse, name: str, causes: bool = False) -> int:
    """`NAME CARD_URL` (one scenario, its variables in the environment) or `NAME --loop` (many, `serve`)."""

    def scenario(card_url: str, variables: Mapping[str, str]) -> int:
        return one_scenario(converse, card_url, variables, causes)

    if sys.argv[1:] == ["--loop"]:  # a2a-lab run --client-mode loop: one process, many scenarios
        return serve(scenario)
    if len(sys.argv) != 2:
        print(f"usage: {name} CARD_URL  |  {name} --loop", file=sys.stderr)
        return 2
    return scenario(sys.argv[1], os.environ)
