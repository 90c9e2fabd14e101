"""`--client` presets: the built-in reference client and an adapter for the official a2a-sdk client."""

from __future__ import annotations

import importlib.util
import shlex
import sys


class PresetError(ValueError):
    pass


def _python(module: str, *args: str) -> str:
    return " ".join([shlex.quote(sys.executable), "-m", module, *args])


PRESETS = {
    "builtin": "the a2a-lab reference client (a2a-lab client)",
    "a2a-sdk": (
        "the official a2a-sdk Python client, driven by a2a_lab.harness.adapters.a2a_sdk "
        "(needs a2a-sdk >= 1.3 installed)"
    ),
}


def resolve(client: str) -> str:
    """A preset name becomes its command; anything else is the user's own command, unchanged."""
    if client == "builtin":
        return _python("a2a_lab.harness.refclient", "{card_url}")
    if client == "a2a-sdk":
        if importlib.util.find_spec("a2a") is None or importlib.util.find_spec("a2a.client") is None:
            raise PresetError(
                "the a2a-sdk preset drives the official A2A Python SDK, which is not installed here; "
                "install it with: pip install 'a2a-sdk[http-server]>=1.3'"
            )
        return _python("a2a_lab.harness.adapters.a2a_sdk", "{card_url}")
    return client
