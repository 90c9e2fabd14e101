"""The check catalogue. Importing this package registers every check, in catalogue order."""

from __future__ import annotations

# Registration happens on import; the order here is the catalogue's order.
# isort: off
from . import discovery  # noqa: F401
from . import versioning  # noqa: F401
from . import envelope  # noqa: F401
from . import tasks  # noqa: F401
from . import errors  # noqa: F401
from . import capabilities  # noqa: F401
from . import actions  # noqa: F401
from . import result  # noqa: F401

# isort: on
from .base import REGISTRY, Check

__all__ = ["REGISTRY", "Check", "catalogue"]


def catalogue() -> list[Check]:
    return list(REGISTRY.values())
