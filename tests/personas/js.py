"""Running the real @a2a-js/sdk 1.3.0 server (js_server.mjs, express) from the peers cache, where
tests/peers/install.sh installed it with its packages and linked the script in (run on first need, by
tests/peers/cache.py)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.peers import cache

from .fidelity import JSONRPC, REST, V03, V10, Peer

#: Where the server serves each binding: JSON-RPC (both versions) at `/`, REST 1.0 at `/rest`, the 0.3 REST routes of
#: the SDK's legacy router at `/rest/v1/...`.
BINDINGS = {(JSONRPC, V10): "/", (REST, V10): "/rest", (JSONRPC, V03): "/", (REST, V03): "/rest/v1"}
#: Seconds the server has to stop once its stdin is closed.
STOP_SECONDS = 10


def _missing(script: Path, express: Path) -> str | None:
    missing = [str(p) for p in (script, express) if not p.exists()]
    return f"the @a2a-js/sdk server is not installed: {', '.join(missing)} missing" if missing else None


@contextmanager
def js_server() -> Iterator[Peer]:
    """The server running on a port of its choosing, installed first if it is not (tests/peers/cache.py). Skips the
    test, saying why, when node is not on PATH or the install failed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH (the @a2a-js/sdk server needs Node.js >= 20)")
    script = cache.peers_dir() / "js" / "js_server.mjs"
    express = cache.peers_dir() / "js" / "node_modules" / "express" / "package.json"
    why = cache.ensure(lambda: _missing(script, express))
    if why is not None:
        pytest.skip(why)
    with subprocess.Popen(
        [node, "--preserve-symlinks-main", str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None and process.stderr is not None and process.stdin is not None
            line = process.stdout.readline()  # `port N` once every route is mounted; '' if node died
            if not line.startswith("port "):
                process.kill()
                raise RuntimeError(f"js_server.mjs did not start: {line!r} {process.stderr.read()[-2000:]}")
            yield Peer("@a2a-js/sdk 1.3.0", f"http://127.0.0.1:{int(line.split()[1])}", BINDINGS)
        finally:
            if process.stdin is not None:
                process.stdin.close()  # the server closes and exits when its stdin ends
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
