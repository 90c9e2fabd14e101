"""Running the genuine a2a-sdk 0.3.26 server (sdk03_server.py) as a subprocess of the sdk03 peer venv."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.peers import cache

from .fidelity import JSONRPC, V03, Peer

SCRIPT = Path(__file__).with_name("sdk03_server.py")
BINDINGS = {(JSONRPC, V03): "/"}


def venv_python() -> Path:
    return cache.peers_dir() / "sdk03" / "bin" / "python"


@contextmanager
def sdk03_server() -> Iterator[Peer]:
    """The server running, its venv installed first if it is not (tests/peers/cache.py); skips the test, saying why,
    when the install failed."""
    python = venv_python()
    why = cache.ensure(
        lambda: None if python.exists() else f"a2a-sdk 0.3.26 is not installed at {python.parent.parent}"
    )
    if why is not None:
        pytest.skip(why)
    with subprocess.Popen(
        [str(python), str(SCRIPT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stdout is not None and process.stderr is not None
            line = process.stdout.readline()
            if not line.startswith("PORT "):
                process.kill()
                raise RuntimeError(f"the 0.3.26 server did not start: {line!r} {process.stderr.read()[-2000:]}")
            yield Peer("a2a-sdk 0.3.26", f"http://127.0.0.1:{int(line.split()[1])}", BINDINGS)
        finally:
            process.kill()
            process.wait()
