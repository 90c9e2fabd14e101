"""Fixtures shared by the server tests (defined in helpers, where the test modules' other helpers live)."""

from .helpers import lab, receiver

__all__ = ["lab", "receiver"]
