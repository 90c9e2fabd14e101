"""The loop handshake for the peer drivers (docs/reference/handshake.md): the standard library only, since each
driver runs in its own client's environment.

`a2a-lab run --client-mode loop` starts a driver once per worker and writes one JSON line per scenario on its stdin
(the variables a process would find in its environment); the driver runs that scenario exactly as its process would
(its own event loop, its own HTTP client) and answers `a2a-lab: done N`, N being the exit code the process would have.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping


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
