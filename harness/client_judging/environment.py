"""The environment a client under test is given: an allow-list of what the harness's own environment holds (what
programs need to start: PATH, HOME, the locale, the temp dir, CA bundles, NODE_* and PYTHON* settings), what the user
passes explicitly (`--client-env NAME` or `NAME=VALUE`), and the handshake's variables (handshake.py). Nothing else
reaches it: not the shared server's admin token, not a CI job's secrets, not proxies (the lab's traffic never goes
through one: NO_PROXY=* says so to the clients that read it).

docs/reference/handshake.md lists the same names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from a2a_lab.contract import handshake
from a2a_lab.harness.common.secrecy import ADMIN_TOKEN_ENV, RUN_TOKEN_ENV
from a2a_lab.protocol.exceptions import LabError

#: Names passed through from the harness's environment, as they are.
INHERITED = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "TZ",
    "LANG",
    "LANGUAGE",
    "TMPDIR",
    "TMP",
    "TEMP",
    "VIRTUAL_ENV",
    # CA bundles of the machine (a TLS scenario's lab CA replaces them): OpenSSL and Python, requests, curl, node
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
)
#: Prefixes of names passed through: the locale, XDG folders, node's and Python's settings (NODE_OPTIONS, NODE_PATH,
#: NODE_EXTRA_CA_CERTS, PYTHONPATH, PYTHONHOME, ...).
INHERITED_PREFIXES = ("LC_", "XDG_", "NODE_", "PYTHON")
#: A name that looks like a secret is never passed through by prefix (NODE_AUTH_TOKEN is npm's publishing token).
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|APIKEY|API_KEY|AUTH", re.IGNORECASE)
#: Proxies are off for the client: the lab is reached directly, never through a proxy of the machine.
NO_PROXY = {"NO_PROXY": "*", "no_proxy": "*"}
#: Names the harness sets itself, per scenario: a --client-env cannot give them.
HANDSHAKE = frozenset(
    {
        handshake.ENV_CARD_URL,
        handshake.ENV_BASE_URL,
        handshake.ENV_SCENARIO,
        handshake.ENV_MESSAGE,
        handshake.ENV_ACTION,
        handshake.ENV_RESULT,
        handshake.ENV_CA_FILE,
        handshake.ENV_CLIENT_CERT_FILE,
        handshake.ENV_CLIENT_KEY_FILE,
        handshake.ENV_WEBHOOK_HOST,
    }
)
#: What a client under test must never hold, even when asked for explicitly.
FORBIDDEN = frozenset({ADMIN_TOKEN_ENV, RUN_TOKEN_ENV})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def inherited(environ: Mapping[str, str]) -> dict[str, str]:
    """What the client gets of `environ` without being asked: the allow-list, proxies off."""
    out = {
        name: value
        for name, value in environ.items()
        if name in INHERITED or (name.startswith(INHERITED_PREFIXES) and not SECRET_NAME.search(name))
    }
    out.update(NO_PROXY)
    return out


class ClientEnvError(LabError, ValueError):
    pass


def explicit(given: Iterable[str], environ: Mapping[str, str], secrets: Iterable[str | None] = ()) -> dict[str, str]:
    """The variables `--client-env NAME` (its value here) and `--client-env NAME=VALUE` ask for. ClientEnvError for
    a bad name, a name that is not set here, a handshake variable, or anything holding a2a-lab's own credentials
    (the admin token, a run token), which the client under test never gets."""
    out: dict[str, str] = {}
    withheld = [s for s in secrets if s]
    for item in given:
        name, eq, value = item.partition("=")
        if not _NAME.fullmatch(name):
            raise ClientEnvError(
                f"--client-env {item!r}: give NAME (passed on from this environment) or NAME=VALUE, "
                "NAME made of letters, digits and _"
            )
        if name in FORBIDDEN:
            raise ClientEnvError(
                f"--client-env {name}: the client under test never gets a2a-lab's own credentials "
                "(it could read or reset the journal it is scored on); leave it out"
            )
        if name in HANDSHAKE:
            raise ClientEnvError(
                f"--client-env {name}: a2a-lab sets it for every scenario (the handshake); leave it out"
            )
        if not eq:
            if name not in environ:
                raise ClientEnvError(
                    f"--client-env {name}: {name} is not set in this environment; set it, or give {name}=VALUE"
                )
            value = environ[name]
        if any(secret in value for secret in withheld):
            raise ClientEnvError(
                f"--client-env {name}: its value holds the shared server's admin token, which the client under test "
                "never gets; leave it out"
            )
        out[name] = value
    return out


def check_webhook_host(host: str) -> str:
    """A --webhook-host value: a host name or address, no scheme, port or path (ClientEnvError otherwise)."""
    name = host.strip()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    if not bare or any(c in bare for c in "/@?#[] \t") or (":" in bare and bare.count(":") < 2):
        raise ClientEnvError(
            f"--webhook-host {host!r}: give the host name or address (no scheme, port or path) at which the server "
            "reaches this machine, e.g. --webhook-host example-client (a compose service name)"
        )
    return name


def names_given() -> list[str]:
    """For the docs and --help: what is passed through."""
    return [*INHERITED, *(p + "*" for p in INHERITED_PREFIXES)]
