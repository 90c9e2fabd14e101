"""The client checks. Importing this package registers every check, in report order."""

from __future__ import annotations

# Registration happens on import; the order here is the order of every listing and report.
# isort: off
from . import discovery  # noqa: F401
from . import versioning  # noqa: F401
from . import envelope  # noqa: F401
from . import tasks  # noqa: F401
from . import generations  # noqa: F401
from . import errors  # noqa: F401
from . import capabilities  # noqa: F401
from . import actions  # noqa: F401
from . import security  # noqa: F401
from . import transport  # noqa: F401
from . import streams  # noqa: F401
from . import result  # noqa: F401
from . import survival  # noqa: F401

# isort: on
from .base import REGISTRY, Check

__all__ = ["REGISTRY", "Check", "client_checks"]


def client_checks() -> list[Check]:
    """Every check that judges a client, in registration order (the probe's checks judging servers are separate)."""
    return list(REGISTRY.values())
