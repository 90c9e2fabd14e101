"""The lab server's own endpoints, which the harness and a remote caller address.

A2A paths are protocol facts (`a2a_lab.protocol`); these are a2a-lab's: the admin API's credentials and the shared
server's run prefix (`server/guard.py`, `server/shared.py` serve them; `harness/client_judging/remote.py` calls them),
and the OAuth endpoints a scenario server offers (`server/oauth.py` serves them; the security checks read the journal by
them).
"""

from __future__ import annotations

#: The admin API's second way to present the token (besides `Authorization: Bearer TOKEN`).
TOKEN_HEADER = "X-A2A-Lab-Token"
#: The shared server's per-run prefix: `/runs/{run}/...` is one run's scenario server.
RUNS_PREFIX = "/runs"

#: The OAuth endpoints of a scenario server (`auth:` with an OAuth 2.0 or OpenID Connect scheme).
TOKEN_PATH = "/oauth/token"
DEVICE_PATH = "/oauth/device"
DISCOVERY_PATH = "/.well-known/openid-configuration"
JWKS_PATH = "/oauth/jwks"
OAUTH_PATHS = (TOKEN_PATH, DEVICE_PATH, DISCOVERY_PATH, JWKS_PATH)


def credentials(token: str) -> dict[str, str]:
    """The header that presents `token` to an admin API."""
    return {"Authorization": f"Bearer {token}"}


def json_credentials(token: str) -> dict[str, str]:
    """The headers of an admin POST: the token, and the content type an admin POST must carry."""
    return {**credentials(token), "Content-Type": "application/json"}
