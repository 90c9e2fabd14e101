"""The real-client pins of a2a-sdk 1.3.0's three modes (default, following by subscription, polling): the other half
of tests/peers/test_scorecard_pins.py, in a file of its own so that pytest-xdist runs the two halves on its two
workers at once (see SDK13_MODES there)."""

from __future__ import annotations

import pytest

from a2a_lab.contract.catalogue import Catalogue
from tests.peers import scorecard
from tests.peers.test_scorecard_pins import SDK13_MODES, Runs, runs, verify_pin

__all__ = ["runs"]  # the fixture, module-scoped: this file's clients only


@pytest.mark.parametrize("peer", [p for p in scorecard.PEERS if p.name in SDK13_MODES], ids=lambda peer: peer.name)
def test_verdicts_match_the_pin(peer: scorecard.Peer, catalogue: Catalogue, runs: Runs) -> None:
    verify_pin(peer, runs)
