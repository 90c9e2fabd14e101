"""The reference client's former import path, kept as a deprecation alias: it moved to
`a2a_lab.harness.clients.refclient` (harness/clients/, the lab acting as a client). Importing this module warns
(DeprecationWarning) and hands out the same names; `python -m a2a_lab.harness.refclient` still runs the client, with a
note on stderr. To be removed in a later release."""

from __future__ import annotations

import sys
import warnings

from a2a_lab.harness.clients.refclient import *  # noqa: F403
from a2a_lab.harness.clients.refclient import __all__ as __all__

_MOVED = (
    "a2a_lab.harness.refclient moved to a2a_lab.harness.clients.refclient; "
    "run `a2a-lab client` or `python -m a2a_lab.harness.clients.refclient`"
)

if __name__ == "__main__":
    from a2a_lab.harness.clients.refclient.__main__ import main

    print(f"a2a-lab: deprecated: {_MOVED}", file=sys.stderr)
    sys.exit(main())
else:
    warnings.warn(_MOVED, DeprecationWarning, stacklevel=2)
