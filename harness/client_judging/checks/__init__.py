"""The client checks. Importing this package registers every check, in report order."""

from __future__ import annotations

# Registration happens on import; the order here is the order of every listing and report.
# isort: off
from a2a_lab.harness.client_judging.checks import discovery  # noqa: F401
from a2a_lab.harness.client_judging.checks import versioning  # noqa: F401
from a2a_lab.harness.client_judging.checks import envelope  # noqa: F401
from a2a_lab.harness.client_judging.checks import tasks  # noqa: F401
from a2a_lab.harness.client_judging.checks import generations  # noqa: F401
from a2a_lab.harness.client_judging.checks import errors  # noqa: F401
from a2a_lab.harness.client_judging.checks import capabilities  # noqa: F401
from a2a_lab.harness.client_judging.checks import actions  # noqa: F401
from a2a_lab.harness.client_judging.checks import security  # noqa: F401
from a2a_lab.harness.client_judging.checks import transport  # noqa: F401
from a2a_lab.harness.client_judging.checks import streams  # noqa: F401
from a2a_lab.harness.client_judging.checks import result  # noqa: F401
from a2a_lab.harness.client_judging.checks import survival  # noqa: F401

# isort: on
from a2a_lab.harness.client_judging.checks.base import REGISTRY, Check

__all__ = ["REGISTRY", "Check", "client_checks"]


def client_checks() -> list[Check]:
    """Every check that judges a client, in registration order (the probe's checks judging servers are separate)."""
    return list(REGISTRY.values())
