"""What the reference client can be told: limits, timeouts, the follow-up policy, and its environment."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from a2a_lab.contract.handshake import ENV_ACTION as ENV_ACTION  # re-exported
from a2a_lab.contract.handshake import ENV_CARD_URL as ENV_CARD_URL
from a2a_lab.contract.handshake import ENV_MESSAGE as ENV_MESSAGE
from a2a_lab.contract.handshake import ENV_RESULT as ENV_RESULT
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import DEFAULT_CARD_SIZE_LIMIT
from a2a_lab.protocol.requests import BEARER

DEFAULT_TEXT = "Hello from a2a-lab"
DEFAULT_FOLLOW = 10
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 10.0
#: GetTask follow-ups wait politely, a little longer each time.
POLL_START_S = 0.2
POLL_FACTOR = 1.5
POLL_CAP_S = 2.0
#: A careful client reads bounded answers (the card has its own limit) and bounded streams.
RESPONSE_SIZE_LIMIT = 4 * 1024 * 1024
STREAM_EVENT_LIMIT = 1000
#: How long the webhook waits for the notification of a state the client already knows, and how long it
#: must have been quiet before it shuts down (so no delivery the agent already started is cut off: an agent that
#: sends a late notification right after the terminal one, push/v03-out-of-order, took over 0.25 s to on a loaded
#: 2-core machine, and over 0.5 s for push/out-of-order on a shared `a2a-lab serve` at load 3: the receiver was gone).
PUSH_WAIT_S = 5.0
PUSH_QUIET_S = 1.0

#: How the webhook's config may authenticate the agent's calls (A2A_LAB_ACTION webhook_auth): an HTTP scheme for
#: `authentication`, or TOKEN for the config's token alone (here, not in webhook.py, so that the command line's
#: choices load no server).
BASIC = "Basic"
TOKEN = "token"
AUTH_SCHEMES = (BEARER, BASIC, TOKEN)


@dataclass(frozen=True)
class ClientOptions:
    follow: int = DEFAULT_FOLLOW
    stream: bool = False
    #: Restrict the client to one binding (the command line's --binding); None means every binding it speaks.
    binding: Binding | None = None
    read_timeout: float = READ_TIMEOUT_S
    connect_timeout: float = CONNECT_TIMEOUT_S
    card_size_limit: int = DEFAULT_CARD_SIZE_LIMIT
    response_size_limit: int = RESPONSE_SIZE_LIMIT
    stream_event_limit: int = STREAM_EVENT_LIMIT
    poll_start: float = POLL_START_S
    poll_factor: float = POLL_FACTOR
    poll_cap: float = POLL_CAP_S
    #: How the client waits between follow-ups (tests may pass a recorder).
    sleep: Callable[[float], None] = time.sleep
    # ---- what a scenario may ask (A2A_LAB_ACTION; the command line's flags): see actions.py
    #: Answer an interrupted task (INPUT_REQUIRED / AUTH_REQUIRED) once with this text, same taskId and
    #: contextId; a finished task gets it too (the agent must refuse: UnsupportedOperationError).
    follow_up: str | None = None
    #: Once the first task stopped (interrupted or finished), send this text as an unrelated new message: no taskId
    #: (it is no answer to that task, §4.1.4), the task's contextId kept (§3.4.3: a new task in the same context).
    new_message: str | None = None
    #: Cancel the task (CancelTask) while it has not stopped; report the state it then ends in (canceled, or
    #: completed when the cancel lost the race).
    cancel: bool = False
    #: Register a webhook of the client's own (a loopback receiver) inline in SendMessage, when the card
    #: declares capabilities.pushNotifications, and wait for its notifications.
    webhook: bool = False
    #: How the webhook's config authenticates the agent's calls: Bearer, Basic, or token (AUTH_SCHEMES).
    webhook_auth: str = "Bearer"
    #: The host the webhook's URL names, where the agent reaches it (A2A_LAB_WEBHOOK_HOST, --webhook-host: client
    #: and agent on different hosts); None: the loopback address it listens on.
    webhook_host: str | None = None
    #: The address the webhook listens on (--webhook-bind); None: 127.0.0.1, or where webhook_host resolves.
    webhook_bind: str | None = None
    #: Register the webhook with CreateTaskPushNotificationConfig (not inline), check it with List and Get, and
    #: delete it once the task has stopped.
    push_configs: bool = False
    #: Present `Authorization: Bearer <token>` on every A2A call (GetExtendedAgentCard included).
    token: str | None = None
    #: Credentials for the card's securitySchemes (apiKey, username, password, client_id, client_secret): the card
    #: decides which scheme is used and where each goes (credentials.py).
    credentials: Mapping[str, str] | None = None
    #: The auth flow made from the card and the credentials once the card is known (credentials.CardAuth).
    auth: Any = None
    #: Fetch the extended card (when the card declares capabilities.extendedAgentCard) and use its interfaces.
    extended_card: bool = False
    #: After a stream breaks before the task stops, SubscribeToTask (then GetTask) instead of GetTask alone.
    resubscribe: bool = False
    #: Verify the card's signatures against this JWKS before calling the agent; None: do not verify.
    jwks: Mapping[str, Any] | None = None
    #: Asked to present a client certificate (mutual TLS): the one in `client_cert`.
    client_certificate: bool = False
    # ---- TLS: whom to trust, what to present (the command line's flags, else A2A_LAB_CA_FILE and
    # A2A_LAB_CLIENT_CERT_FILE / A2A_LAB_CLIENT_KEY_FILE)
    #: Trust this CA file (PEM) for https; None: the default trust (httpx honours SSL_CERT_FILE).
    ca_file: str | None = None
    #: Present this certificate and key (PEM files) to servers that ask for one.
    client_cert: tuple[str, str] | None = None
    push_wait: float = PUSH_WAIT_S
    push_quiet: float = PUSH_QUIET_S

    def delays(self) -> list[float]:
        """The wait before each GetTask follow-up: start, x factor, capped."""
        out, delay = [], self.poll_start
        for _ in range(max(self.follow, 0)):
            out.append(round(delay, 3))
            delay = min(delay * self.poll_factor, self.poll_cap)
        return out
