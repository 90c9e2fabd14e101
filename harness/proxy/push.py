"""Push notifications through the proxy: a webhook the client registers (CreateTaskPushNotificationConfig, or inline
in a send's configuration) is handed to the upstream as the proxy's `/_push/<n>`, so each notification passes through
the proxy to the client's own URL and is journaled (kind `push`, its path the client's URL). Only the URL's bytes in
the request change; the journal keeps what the client sent, and push config answers get the client's URL back.

What each registration asked of its notifications (its token, the Authorization its `authentication` names) is kept
in memory only (`HookConfig`), and each notification is compared with it as it arrives (`Delivered`: whether it
carried them, never the values), so the server's side can judge it (PUSH-DELIVERY) from a journal that redacts them."""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass
from typing import Any

from a2a_lab.protocol import shapes
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.requests import AUTHORIZATION, NOTIFICATION_TOKEN_HEADER

#: The most notifications whose credentials are remembered (the journal's default bound; the oldest go first).
MAX_DELIVERED = 10_000
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


def webhook_configs(op: Operation | None, body: bytes, rpc: bool) -> list[dict[str, Any]]:
    """The webhook configs a request registers, each with its URL (none for any other request)."""
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
    return [c for c in found if isinstance(c, dict) and isinstance(c.get("url"), str) and c["url"]]


@dataclass(frozen=True)
class HookConfig:
    """What one registration asked of its notifications: in memory only, never journaled (it holds credentials)."""

    #: The registering request's journal entry.
    seq: int
    token: str | None
    #: The Authorization header value its `authentication` asks for (1.0 `scheme`, 0.3 the first of `schemes`).
    authorization: str | None


@dataclass(frozen=True)
class Delivered:
    """What one notification carried of its webhook's credentials (None: no registration asked for it)."""

    index: int
    authorization: bool | None
    token: bool | None


def _config(seq: int, config: dict[str, Any]) -> HookConfig:
    token = config.get("token")
    auth = config.get("authentication")
    scheme: Any = None
    if isinstance(auth, dict):
        schemes = auth.get("schemes")
        scheme = auth.get("scheme") or (schemes[0] if isinstance(schemes, list) and schemes else None)
    credentials = auth.get("credentials") if isinstance(auth, dict) else None
    authorization = f"{scheme} {credentials or ''}".strip() if isinstance(scheme, str) and scheme else None
    return HookConfig(seq, token if isinstance(token, str) and token else None, authorization)


def _carried(expected: list[str], got: str | None) -> bool | None:
    if not expected:
        return None
    return got is not None and any(hmac.compare_digest(got.encode(), e.encode()) for e in expected)


class Hooks:
    """The webhooks seen, by index: `/_push/<n>` on the proxy is the n-th."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        #: What the registrations of each webhook (by index) asked of its notifications.
        self.configs: dict[int, list[HookConfig]] = {}
        #: What each notification (by journal entry) carried of them.
        self.delivered: dict[int, Delivered] = {}

    def register(self, body: bytes, configs: list[dict[str, Any]], proxy: str, seq: int) -> bytes:
        """The request body with each webhook URL (as JSON spells it) replaced by the proxy's path for it."""
        for config in configs:
            url = str(config["url"])
            if url not in self.urls:
                self.urls.append(url)
            self.configs.setdefault(self.urls.index(url), []).append(_config(seq, config))
            spelled = json.dumps(url)[1:-1].encode("utf-8")
            body = body.replace(spelled, f"{proxy}{PUSH}{self.urls.index(url)}".encode())
        return body

    def target(self, path: str) -> str | None:
        """The client's webhook URL for a proxy path `/_push/<n>`, or None."""
        index = path[len(PUSH) :]
        return self.urls[int(index)] if index.isdigit() and int(index) < len(self.urls) else None

    def deliver(self, seq: int, path: str, headers: list[tuple[bytes, bytes]]) -> None:
        """A notification came for `/_push/<n>`: note whether it carried what its webhook's registrations asked."""
        index = int(path[len(PUSH) :])
        configs = self.configs.get(index, [])
        got = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in headers}
        authorization = _carried([c.authorization for c in configs if c.authorization], got.get(AUTHORIZATION.lower()))
        token = _carried([c.token for c in configs if c.token], got.get(NOTIFICATION_TOKEN_HEADER.lower()))
        self.delivered[seq] = Delivered(index, authorization, token)
        if len(self.delivered) > MAX_DELIVERED:  # a flooding server: bounded like the journal
            del self.delivered[next(iter(self.delivered))]

    def restore(self, text: str, proxy: str) -> str:
        """An answer's text with the proxy's webhook paths written back as the client's URLs."""
        for n, url in sorted(enumerate(self.urls), reverse=True):  # /_push/10 before /_push/1
            text = text.replace(f"{proxy}{PUSH}{n}", json.dumps(url)[1:-1])
        return text
