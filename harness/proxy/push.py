r"""Push notifications through the proxy: a webhook the client registers (CreateTaskPushNotificationConfig, or inline
in a send's configuration) is handed to the upstream as the proxy's `/_push/<n>`, so each notification passes through
the proxy to the client's own URL and is journaled (kind `push`, its path the client's URL). Only the URL's string in
the request changes, found by its value however JSON spells it (`http:\/\/`, `\u0068`); the journal keeps what the
client sent, and push config answers get the client's URL back, found the same way.

What each registration asked of its notifications (its token, the Authorization its `authentication` names) is kept
in memory only (`HookConfig`), and each notification is compared with it as it arrives (`Delivered`: whether it
carried them, never the values), so the server's side can judge it (PUSH-DELIVERY) from a journal that redacts them."""

from __future__ import annotations

import hmac
import json
import re
from dataclasses import dataclass
from typing import Any

from a2a_lab.protocol import jsontext, shapes
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


#: A JSON string as written (its escapes included): outside strings JSON text has no quote, so a scan from the start
#: finds each string whole.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_STRING_TEXT = re.compile(r'"(?:[^"\\]|\\.)*"')
_SPACE = b" \t\r\n"


def webhook_configs(op: Operation | None, body: bytes, rpc: bool) -> list[dict[str, Any]]:
    """The webhook configs a request registers, each with its URL (none for any other request)."""
    if op is not Operation.CREATE_PUSH_CONFIG and op not in _SENDS:
        return []
    if b"url" not in body and b"\\u" not in body:
        return []  # most sends register no webhook (and no escape could spell one): not decoded a second time
    try:
        value = jsontext.loads(body)
    except (ValueError, RecursionError):
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

    def add(self, configs: list[dict[str, Any]], seq: int) -> dict[str, int]:
        """Note the webhooks a request registers (entry `seq`): each URL with its index."""
        indices: dict[str, int] = {}
        for config in configs:
            url = str(config["url"])
            if url not in self.urls:
                self.urls.append(url)
            indices[url] = self.urls.index(url)
            self.configs.setdefault(indices[url], []).append(_config(seq, config))
        return indices

    def register(self, body: bytes, configs: list[dict[str, Any]], proxy: str, seq: int) -> bytes:
        """The request body with each webhook URL replaced by the proxy's path for it: every JSON string value that
        reads as the URL, however it is spelled; every other byte as it came."""
        paths = {url: f"{proxy}{PUSH}{n}" for url, n in self.add(configs, seq).items()}
        return _swap_values(body, paths)

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
        """An answer's text with the proxy's webhook paths written back as the client's URLs, in each JSON string
        that reads as holding one (however it is spelled); every other byte as it came."""
        path = re.compile(re.escape(f"{proxy}{PUSH}") + r"(\d+)")

        def back(found: re.Match[str]) -> str:
            n = int(found.group(1))
            return self.urls[n] if n < len(self.urls) else found.group(0)

        def swap(token: re.Match[str]) -> str:
            written = token.group(0)
            if PUSH.strip("/") not in written and "\\" not in written:
                return written
            try:
                value = json.loads(written)
            except ValueError:
                return written
            restored = path.sub(back, value)
            return written if restored == value else json.dumps(restored, ensure_ascii=False)

        return _STRING_TEXT.sub(swap, text)


def _swap_values(body: bytes, values: dict[str, str]) -> bytes:
    """`body` (JSON) with the value of each member named `url` that reads as a key of `values` written as its value;
    names and values read after their escapes, every other byte as it came."""
    spelled = {k.encode("utf-8"): json.dumps(v, ensure_ascii=False).encode("utf-8") for k, v in values.items()}
    pieces: list[bytes] = []
    done = 0
    name: re.Match[bytes] | None = None
    for token in _STRING.finditer(body):
        named = name is not None and body[name.end() : token.start()].strip(_SPACE) == b":" and _read(name) == b"url"
        name = token
        if named and (swapped := spelled.get(_read(token) or b"")) is not None:
            pieces += [body[done : token.start()], swapped]
            done = token.end()
    return b"".join([*pieces, body[done:]]) if pieces else body


def _read(token: re.Match[bytes]) -> bytes | None:
    """A JSON string's value (UTF-8), read after its escapes; None when it is not one."""
    written = token.group(0)
    if b"\\" not in written:
        return written[1:-1]
    try:
        value = json.loads(written)
    except ValueError:
        return None
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else None
