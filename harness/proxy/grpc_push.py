"""Push registrations over gRPC through the proxy, as push.py does them over HTTP: a webhook a client registers in a
gRPC call (CreateTaskPushNotificationConfig, or inline in a send's configuration) is handed to the upstream as the
proxy's `/_push/<n>` (the same `Hooks`, so each notification passes through the proxy and is judged), and the answers
that name registered webhooks (Create, Get, List config) give the client its own URL back.

The request is decoded with the A2A proto types to find the webhooks (and what each asked of its notifications);
then only the `url` string fields holding them change (protobuf.swap_strings): every other byte passes as it came.
The journal keeps what the client sent, and what the upstream answered.

Needs protobuf and the A2A proto types (the grpc extra): imported by grpc_pass only.
"""

from __future__ import annotations

from a2a_lab.harness.proxy.push import CONFIG_OPS, PUSH, Hooks, webhook_configs
from a2a_lab.protocol import jsontext, protobuf
from a2a_lab.protocol.operations import Operation

#: The proto field (of TaskPushNotificationConfig) that holds a webhook's URL.
URL_FIELD = "url"
#: The calls that may register a webhook (a send inline, in its configuration).
REGISTERING = frozenset({Operation.CREATE_PUSH_CONFIG, Operation.SEND_MESSAGE, Operation.SEND_STREAMING_MESSAGE})


def register(hooks: Hooks, op: Operation | None, request: bytes, proxy: str, seq: int) -> bytes:
    """The request for the upstream: each webhook URL it registers written as the proxy's path for it."""
    if op is None or op not in REGISTERING:  # nothing registered: not decoded a second time
        return request
    try:
        value = protobuf.decode_request(op, request)
    except protobuf.DecodeError:
        return request  # passed as it came, and judged
    configs = webhook_configs(op, jsontext.dumps(value), rpc=False)
    if not configs:
        return request
    swaps = {url: f"{proxy}{PUSH}{n}" for url, n in hooks.add(configs, seq).items()}
    return protobuf.swap_strings(request, protobuf.request_class(op), URL_FIELD, swaps)


def restore(hooks: Hooks, op: Operation | None, message: bytes, proxy: str) -> bytes:
    """An answer message for the client: each of the proxy's webhook paths written back as the client's URL."""
    if op not in CONFIG_OPS or not hooks.urls or op is None:
        return message
    swaps = {f"{proxy}{PUSH}{n}": url for n, url in enumerate(hooks.urls)}
    return protobuf.swap_strings(message, protobuf.response_class(op), URL_FIELD, swaps)
