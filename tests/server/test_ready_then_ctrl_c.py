"""`a2a-lab serve` (and `a2a-lab ui`, the benchmarks' servers) say they are ready through serve_forever's `on_ready`;
a user, or a script, presses Ctrl-C once they read it. That Ctrl-C must stop the server: `on_ready` runs once uvicorn
handles SIGINT, not before (printed before, a SIGINT in between was lost and the server served on for ever)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from a2a_lab.contract.catalogue import Catalogue, builtin_root
    from a2a_lab.server.app import ScenarioApp
    from a2a_lab.server.hosting import serve_forever

    app = ScenarioApp(Catalogue.load(builtin_root()).scenarios["spec/conformant"])
    seen = []

    def ready(url):
        seen.append(signal.getsignal(signal.SIGINT) is not signal.default_int_handler)
        print("ready", url, "handled" if seen[-1] else "unhandled", flush=True)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C the very moment the banner is out

    try:
        serve_forever(app, "127.0.0.1", 0, "warning", on_ready=ready)
    except KeyboardInterrupt:  # uvicorn raises the signal it caught again once it has stopped; asyncio may absorb it
        pass
    print("stopped", flush=True)
    """
)


def test_a_ctrl_c_the_moment_the_server_says_it_is_ready_stops_it() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert "ready http://127.0.0.1:" in done.stdout, done.stdout + done.stderr
    assert " handled" in done.stdout, f"on_ready ran before the server handles SIGINT:\n{done.stdout}{done.stderr}"
    assert done.stdout.rstrip().endswith("stopped") and done.returncode == 0, done.stdout + done.stderr
