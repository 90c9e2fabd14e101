"""The client handshake: the environment a2a-lab gives a client under test (documented in the README)."""

from __future__ import annotations

ENV_CARD_URL = "A2A_LAB_CARD_URL"
ENV_BASE_URL = "A2A_LAB_BASE_URL"
ENV_SCENARIO = "A2A_LAB_SCENARIO"
#: The text the scenario asks the client to send.
ENV_MESSAGE = "A2A_LAB_MESSAGE"
#: JSON: anything more the scenario asks of the client (follow-up text, streaming, a webhook, a token).
ENV_ACTION = "A2A_LAB_ACTION"
#: Where the client MAY write what it understood: {"kind", "state", "text"}.
ENV_RESULT = "A2A_LAB_RESULT"
