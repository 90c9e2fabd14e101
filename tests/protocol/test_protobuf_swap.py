"""protobuf.swap_strings: only the named string fields holding a swapped value change; every other byte (unknown
fields, field order, the other fields' encodings) stays as it came."""

from __future__ import annotations

from a2a_lab.protocol import protobuf
from a2a_lab.protocol.operations import Operation

CONFIG = protobuf.request_class(Operation.CREATE_PUSH_CONFIG)
SEND = protobuf.request_class(Operation.SEND_MESSAGE)


def test_a_nested_url_is_swapped_and_every_other_byte_kept() -> None:
    send = SEND()
    send.message.message_id = "http://client/hook"  # the same text in another field: not a url, kept
    send.configuration.task_push_notification_config.url = "http://client/hook"
    send.configuration.task_push_notification_config.token = "tok"
    unknown = b"\xa2\x06\x03abc"  # field 100, length-delimited: no field of SendMessageRequest
    data = unknown + send.SerializeToString()  # an unknown field first: not the order protobuf writes
    out = protobuf.swap_strings(data, SEND, "url", {"http://client/hook": "http://proxy:1/_push/0"})
    assert out.startswith(unknown) and protobuf.decode(out, SEND)["configuration"] == {
        "taskPushNotificationConfig": {"url": "http://proxy:1/_push/0", "token": "tok"}
    }
    assert protobuf.decode(out, SEND)["message"]["messageId"] == "http://client/hook"
    back = protobuf.swap_strings(out, SEND, "url", {"http://proxy:1/_push/0": "http://client/hook"})
    assert back == data  # byte for byte


def test_bytes_that_are_no_message_pass_as_they_came() -> None:
    assert protobuf.swap_strings(b"\xff\xff", CONFIG, "url", {"a": "b"}) == b"\xff\xff"
    same = CONFIG(url="http://other/").SerializeToString()
    assert protobuf.swap_strings(same, CONFIG, "url", {"a": "b"}) == same
