"""Push notifications through the proxy: a webhook the client registers (CreateTaskPushNotificationConfig, or inline
in a send's configuration) is handed to the upstream as the proxy's `/_push/<n>`, so each notification passes through
the proxy to the client's own URL and is journaled (kind `push`, its path the client's URL). Only the URL's bytes in
the request change; the journal keeps what the client sent, and push config answers get the client's URL back."""

from __future__ import annotations

import json

from a2a_lab.protocol import shapes
from a2a_lab.protocol.operations import Operation

#: The proxy's path for the n-th webhook a client registered.
PUSH = "/_push/"
_SENDS = (Operation.SEND_MESSAGE, Operation.SEND_STREAMING_MESSAGE)
#: Operations whose answers name a registered webhook (given back as the client registered it).
CONFIG_OPS = frozenset(
    {
        Operation.CREATE_PUSH_CONFIG,
        Operation.GET_PUSH_CONFIG,
        Operation.LIST_PUSH_CONFIGS,
    }
)


def webhook_urls(op: Operation | None, body: bytes, rpc: bool) -> list[str]:
    """The webhook URLs a request registers (none for any other request)."""
    if (op is not Operation.CREATE_PUSH_CONFIG and op not in _SENDS) or b'"url"' not in body:
        return []  # most sends register no webhook: not decoded a second time
    try:
        value = json.loads(body)
    except ValueError:
        return []
    params = value.get("params") if rpc and isinstance(value, dict) else value
    if not isinstance(params, dict):
        return []
    if op is Operation.CREATE_PUSH_CONFIG:
        found = [params, params.get("pushNotificationConfig"), params.get("config")]
    else:
        found = [shapes.inline_push(params.get("configuration"))]
    return [str(c["url"]) for c in found if isinstance(c, dict) and isinstance(c.get("url"), str) and c["url"]]


class Hooks:
    """The webhooks seen, by index: `/_push/<n>` on the proxy is the n-th."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def register(self, body: bytes, urls: list[str], proxy: str) -> bytes:
        """The request body with each webhook URL (as JSON spells it) replaced by the proxy's path for it."""
        for url in urls:
            if url not in self.urls:
                self.urls.append(url)
            spelled = json.dumps(url)[1:-1].encode("utf-8")
            body = body.replace(spelled, f"{proxy}{PUSH}{self.urls.index(url)}".encode())
        return body

    def target(self, path: str) -> str | None:
        """The client's webhook URL for a proxy path `/_push/<n>`, or None."""
        index = path[len(PUSH) :]
        return self.urls[int(index)] if index.isdigit() and int(index) < len(self.urls) else None

    def restore(self, text: str, proxy: str) -> str:
        """An answer's text with the proxy's webhook paths written back as the client's URLs."""
        for n, url in sorted(enumerate(self.urls), reverse=True):  # /_push/10 before /_push/1
            text = text.replace(f"{proxy}{PUSH}{n}", json.dumps(url)[1:-1])
        return text
