"""Judging a server: its agent card (cardcheck/), its answers to what its card declares (probe/), the A2A
Conformance Test Specification's tests (acts/, whose client tests drive a client command against served answers),
and recording a real server's traffic into a scenario (record/)."""
