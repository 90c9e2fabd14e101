"""The credentials and hosts `a2a-lab` takes on the command line: the admin token (--admin-token, its file, the
environment) and the hosts push notifications may go to (--push-allow, the environment)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from a2a_lab.harness.common.secrecy import ADMIN_TOKEN_ENV, RUN_TOKEN_ENV, admin_token

__all__ = ["ADMIN_TOKEN_ENV", "PUSH_ALLOW_ENV", "RUN_TOKEN_ENV", "admin_token_of", "push_hosts"]

#: The most a token file may hold (a token is a line of some dozens of characters).
TOKEN_FILE_LIMIT = 4096


def admin_token_of(args: argparse.Namespace) -> str | None:
    """The admin token: --admin-token, else --admin-token-file's first line, else the environment's, else none.
    ValueError saying what is wrong with the file."""
    given = getattr(args, "admin_token", None)
    path: Path | None = getattr(args, "admin_token_file", None)
    if given and path is not None:
        raise ValueError("--admin-token and --admin-token-file: give one of them")
    if path is not None:
        try:
            with path.open("rb") as fh:
                raw = fh.read(TOKEN_FILE_LIMIT + 1)
        except OSError as exc:
            raise ValueError(f"--admin-token-file {path}: cannot read it: {exc.strerror or exc}") from None
        line = raw[:TOKEN_FILE_LIMIT].decode("utf-8", "replace").splitlines()[0].strip() if raw.strip() else ""
        if not line or len(raw) > TOKEN_FILE_LIMIT:
            raise ValueError(
                f"--admin-token-file {path}: expected the token on its first line "
                f"(a file of at most {TOKEN_FILE_LIMIT} bytes), e.g. made with: openssl rand -hex 32 > {path}"
            )
        return line
    return admin_token(given)


#: `a2a-lab serve`: more hosts push notifications may go to (comma-separated), as --push-allow.
PUSH_ALLOW_ENV = "A2A_LAB_PUSH_ALLOW"


def push_hosts(given: list[str] | None) -> tuple[str, ...]:
    """The hosts of --push-allow and A2A_LAB_PUSH_ALLOW, lowercased; ValueError for one that is not a host name."""
    names = [*(given or []), *os.environ.get(PUSH_ALLOW_ENV, "").replace(",", " ").split()]
    out: list[str] = []
    for name in names:
        host = name.strip().lower().rstrip(".")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        if not host or any(c in host for c in "/@?#[] \t") or (":" in host and host.count(":") < 2):
            raise ValueError(
                f"--push-allow {name!r}: give a host name or address only (no scheme, port or path), "
                "e.g. --push-allow my-client"
            )
        if host not in out:
            out.append(host)
    return tuple(out)
