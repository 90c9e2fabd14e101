"""The client handshake: what a2a-lab hands a client under test and what the client may answer (the README's
"Wiring your client in").

The one vocabulary a client implementation needs: the environment variables below, the keys of the action object
(`ACTIONS`, defined with the scenario format) and the result kinds a client reports (`ResultKind`, defined with
the journal record that carries them).
"""

from __future__ import annotations

from .journal_record import ResultKind
from .scenario import ACTION_CAPABILITIES, ACTIONS

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
    "ENV_MESSAGE",
    "ENV_RESULT",
    "ENV_SCENARIO",
    "ENV_WEBHOOK_HOST",
    "ResultKind",
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
