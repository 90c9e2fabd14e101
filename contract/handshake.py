"""The client handshake: what a2a-lab hands a client under test and what the client may answer
(docs/reference/handshake.md).

The one vocabulary a client implementation needs: the environment variables below, the keys of the action object
(`ACTIONS`, defined with the scenario format) and the result kinds a client reports (`ResultKind`, defined with
the journal record that carries them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from a2a_lab.protocol.exceptions import LabError

if TYPE_CHECKING:
    from .journal_record import ResultKind
    from .scenario import ACTION_CAPABILITIES, ACTIONS

#: The names this module re-exports from the scenario format and the journal record, imported on first use (PEP 562):
#: the environment variables alone (every `a2a-lab` start-up reads some for its help) load neither.
_REEXPORTED = {"ACTIONS": ".scenario", "ACTION_CAPABILITIES": ".scenario", "ResultKind": ".journal_record"}


def __getattr__(name: str) -> Any:
    home = _REEXPORTED.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home, __package__), name)
    globals()[name] = value
    return value


__all__ = [
    "ACTIONS",
    "ACTION_CAPABILITIES",
    "CA_BUNDLE_VARIABLES",
    "ENV_ACTION",
    "ENV_BASE_URL",
    "ENV_CARD_URL",
    "ENV_CA_FILE",
    "ENV_CLIENT_CERT_FILE",
    "ENV_CLIENT_KEY_FILE",
    "ENV_LOOP",
    "ENV_MESSAGE",
    "ENV_RESULT",
    "ENV_SCENARIO",
    "ENV_WEBHOOK_HOST",
    "LOOP_ANSWER",
    "LOOP_DONE",
    "LOOP_FIELDS",
    "LoopAnswer",
    "LoopAnswerError",
    "ResultKind",
    "loop_line",
    "parse_loop_answer",
]

ENV_CARD_URL = "A2A_LAB_CARD_URL"
ENV_BASE_URL = "A2A_LAB_BASE_URL"
ENV_SCENARIO = "A2A_LAB_SCENARIO"
#: The text the scenario asks the client to send.
ENV_MESSAGE = "A2A_LAB_MESSAGE"
#: JSON: anything more the scenario asks of the client (follow-up text, streaming, a webhook, a token).
ENV_ACTION = "A2A_LAB_ACTION"
#: Where the client MAY write what it understood: {"kind", "state", "text"}.
ENV_RESULT = "A2A_LAB_RESULT"

# Scenarios served over TLS (`tls:` in the scenario) hand the client the throwaway lab CA the conventional ways, so
# unmodified clients verify lab certificates: the CA file in A2A_LAB_CA_FILE and in every variable below.
#: The lab CA (PEM) that signs the certificates a correct client accepts.
ENV_CA_FILE = "A2A_LAB_CA_FILE"
#: The usual variables that point TLS stacks at a CA bundle: OpenSSL (and Python's ssl, httpx), requests, curl, node.
CA_BUNDLE_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS")
#: Mutual TLS (a scenario whose server asks for a client certificate): the client's certificate and key (PEM).
ENV_CLIENT_CERT_FILE = "A2A_LAB_CLIENT_CERT_FILE"
ENV_CLIENT_KEY_FILE = "A2A_LAB_CLIENT_KEY_FILE"

#: Where client and server are different hosts (`--webhook-host`): the host name or address at which the server reaches
#: a webhook the client registers (unset: the server is on this machine, loopback reaches it).
ENV_WEBHOOK_HOST = "A2A_LAB_WEBHOOK_HOST"

# The loop handshake (`--client-mode loop`): the client is started once per worker and runs scenario after scenario.
# The harness writes one line per scenario on the client's stdin: a JSON object of exactly the variables above that
# a client started for that scenario would find in its environment (names and values alike, all strings; the TLS ones
# only for a TLS scenario). The client runs the scenario and answers with one line on its stdout that starts with
# LOOP_ANSWER: `a2a-lab: done` (any result is in the A2A_LAB_RESULT file), `a2a-lab: done N` (as a client process
# exiting N would have ended), or `a2a-lab: {...}` (the result object itself, as A2A_LAB_RESULT would hold it).
# Every other line on stdout, and everything on stderr, is the client's output for the scenario in flight.

#: Set (to "1") in the environment of a client started for the loop handshake.
ENV_LOOP = "A2A_LAB_LOOP"
#: How an answer line starts; the rest is LOOP_DONE [exit code] or a JSON object.
LOOP_ANSWER = "a2a-lab: "
LOOP_DONE = "done"
#: The names a scenario's line may carry, in the order they are written.
LOOP_FIELDS = (
    ENV_SCENARIO,
    ENV_CARD_URL,
    ENV_BASE_URL,
    ENV_MESSAGE,
    ENV_ACTION,
    ENV_RESULT,
    ENV_CA_FILE,
    *CA_BUNDLE_VARIABLES,
    ENV_CLIENT_CERT_FILE,
    ENV_CLIENT_KEY_FILE,
    ENV_WEBHOOK_HOST,
)


def loop_line(fields: Mapping[str, str]) -> bytes:
    """One scenario's line for a loop client: the handshake's variables as a JSON object (ASCII), and a newline."""
    unknown = sorted(set(fields) - set(LOOP_FIELDS))
    if unknown:
        raise ValueError(f"not a handshake variable: {', '.join(unknown)}")
    ordered = {name: fields[name] for name in LOOP_FIELDS if name in fields}
    return json.dumps(ordered, separators=(",", ":")).encode("ascii") + b"\n"


class LoopAnswerError(LabError, ValueError):
    """A loop client's answer line that is not one (what it wrote, and what an answer looks like)."""


@dataclass(frozen=True)
class LoopAnswer:
    """A loop client's answer: how its scenario ended (as a process's exit code), and the result object it gave
    (None: read the A2A_LAB_RESULT file, if any)."""

    exit_code: int = 0
    result: dict[str, Any] | None = None
    #: The answer's JSON text, when it gave its result inline (the harness reads it as it reads a result file).
    raw: bytes | None = None


def parse_loop_answer(rest: bytes) -> LoopAnswer:
    """What follows LOOP_ANSWER on an answer line (without the newline). LoopAnswerError when it is neither `done`,
    `done N` nor a JSON object (the object itself is read by the harness, as a result file is)."""
    text = rest.strip()
    if text.startswith(b"{"):
        return LoopAnswer(0, None, text)
    words = text.split()
    if words and words[0] == LOOP_DONE.encode() and len(words) <= 2:
        if len(words) == 1:
            return LoopAnswer()
        if words[1].lstrip(b"-").isdigit() and len(words[1]) <= 4:
            return LoopAnswer(int(words[1]))
    shown = text[:80].decode("utf-8", "replace")
    raise LoopAnswerError(
        f"the loop answer {LOOP_ANSWER + shown!r} is not one: answer `{LOOP_ANSWER}{LOOP_DONE}`, "
        f"`{LOOP_ANSWER}{LOOP_DONE} N` (N: the exit code the scenario ended with) or `{LOOP_ANSWER}{{...}}` "
        "(the result object) on one line"
    )
