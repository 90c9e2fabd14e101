"""`a2a-lab probe` gives a Python persona the verdicts it gives the real server it imitates: every check on every
interface the same outcome (PASS, FAIL, NON-STRICT, SKIPPED), with the same interfaces probed."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest

from a2a_lab.harness.server_judging.probe.runner import ProbeOptions, ProbeRun, probe

from .fidelity import Peer
from .sdk03 import sdk03_server
from .sdk13 import sdk13_server

#: The follow-up's polite waits are skipped: every task here is complete when SendMessage returns.
FAST = ProbeOptions(timeout=10, sleep=lambda _: None)


def verdicts(run: ProbeRun) -> dict[tuple[str, str], str]:
    """(result, check) -> outcome; a result is the card (`probe/card`) or one interface (`probe/0-JSONRPC-1.0`)."""
    return {(r.id, c.id): c.outcome.value for r in run.results for c in r.checks}


@pytest.mark.parametrize(
    ("persona", "real"),
    [("personas/a2a-sdk-python-1.3", sdk13_server), ("personas/a2a-sdk-python-0.3", sdk03_server)],
)
def test_probe_judges_the_persona_as_the_real_server(
    serve: Callable[[str], Any], persona: str, real: Callable[[], AbstractContextManager[Peer]]
) -> None:
    served = serve(persona)
    with real() as peer:
        on_real = probe(peer.base_url, FAST)
    on_persona = probe(served.url, FAST)
    assert on_persona.probed == on_real.probed
    assert verdicts(on_persona) == verdicts(on_real)
    assert len(verdicts(on_real)) > 8  # the card and at least one interface were judged
