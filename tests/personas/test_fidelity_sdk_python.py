"""Persona fidelity of the official Python servers: personas/a2a-sdk-python-1.3 against the real a2a-sdk 1.3.0
server (in this process) and personas/a2a-sdk-python-0.3 against the real a2a-sdk 0.3.26 (the sdk03 peer venv).

The same request set (tests/personas/fidelity.py) goes to both; every difference that remains is named below with
why it stays. A new difference, or an allowance that covers nothing any more, fails the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from . import fidelity
from .fidelity import Accepted, Peer
from .sdk03 import BINDINGS as SDK03_BINDINGS
from .sdk03 import sdk03_server
from .sdk13 import BINDINGS as SDK13_BINDINGS
from .sdk13 import sdk13_server

ACCEPTED_13: list[Accepted] = []
ACCEPTED_03: list[Accepted] = []


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10, trust_env=False) as client:
        yield client


def _check(http: httpx.Client, real: Peer, persona: Peer, accepted: list[Accepted]) -> fidelity.Outcome:
    outcome = fidelity.run(http, real, persona)
    left, stale = fidelity.unexplained(outcome.differences, accepted)
    assert not left and not stale, fidelity.report(left, stale)
    return outcome


def test_persona_a2a_sdk_python_13_answers_as_the_real_server(serve: Callable, http: httpx.Client) -> None:
    served = serve("personas/a2a-sdk-python-1.3")
    with sdk13_server() as real:
        outcome = _check(http, real, Peer("persona", served.url, SDK13_BINDINGS), ACCEPTED_13)
    assert outcome.requests > 80


def test_persona_a2a_sdk_python_03_answers_as_the_real_server(serve: Callable, http: httpx.Client) -> None:
    served = serve("personas/a2a-sdk-python-0.3")
    with sdk03_server() as real:
        outcome = _check(http, real, Peer("persona", served.url, SDK03_BINDINGS), ACCEPTED_03)
    assert outcome.requests > 25
