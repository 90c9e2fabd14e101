"""The reference client: a careful, narrow A2A client built on httpx.

    from a2a_lab.harness.refclient import ClientOptions, run
    result = run("http://127.0.0.1:8000", "hello", ClientOptions(follow=3))
    result.kind, result.state, result.text, result.exit_code

It reads the card (bounded), picks the first interface it speaks (JSON-RPC or HTTP+JSON, A2A 1.0 or
0.3), sends one message with the right method, shape and A2A-Version header, follows a running task
up with GetTask a bounded number of times, falls back to the next interface only when this one does
not speak the method or version, and reports everything as a Result (never a traceback).
"""

from .client import run, user_message
from .discovery import Discovered, card_urls, discover
from .failures import ClientFailure, UsageFailure, invites_fallback
from .http import make_client, user_agent
from .options import DEFAULT_TEXT, ENV_CARD_URL, ENV_MESSAGE, ENV_RESULT, ClientOptions
from .result import EXIT_ANSWER, EXIT_NO_ANSWER, EXIT_USAGE, Result, render_text, report_to_env, write_result
from .selection import SUPPORTED, Selection, select_interfaces

__all__ = [
    "DEFAULT_TEXT", "ENV_CARD_URL", "ENV_MESSAGE", "ENV_RESULT", "EXIT_ANSWER", "EXIT_NO_ANSWER", "EXIT_USAGE", "SUPPORTED",
    "ClientFailure", "ClientOptions", "Discovered", "Result", "Selection", "UsageFailure",
    "card_urls", "discover", "invites_fallback", "make_client", "render_text", "report_to_env", "run",
    "select_interfaces", "user_agent", "user_message", "write_result",
]
