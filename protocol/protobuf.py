"""A2A 1.0 protocol buffers: binary messages to and from their ProtoJSON form, and the google.rpc.Status of errors.

The message types are the official a2a-sdk's generated modules (`a2a.types.a2a_pb2`, from the normative
`a2a.proto`), installed with the `grpc` extra. Everything else in a2a-lab works on ProtoJSON, which is exactly
what the 1.0 JSON bindings carry: a gRPC body is decoded once into that form and the rest of the code never
sees protobuf.

Import this module only where gRPC is used: it raises ImportError (with `MISSING`) without the extra.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .grpcwire import MISSING
from .operations import Operation

try:
    from a2a.types import a2a_pb2
    from google.protobuf import any_pb2, empty_pb2, json_format, message
    from google.protobuf.descriptor import Descriptor, FieldDescriptor
    from google.rpc import error_details_pb2, status_pb2
except ImportError as exc:  # pragma: no cover - exercised by the no-extra test in a subprocess
    raise ImportError(f"{MISSING} ({exc})") from exc

from .exceptions import LabError
from .grpcwire import SERVICE
from .json_types import JSONObject, JSONValue

_SERVICE = a2a_pb2.DESCRIPTOR.services_by_name[SERVICE.rsplit(".", 1)[1]]
_CLASSES: dict[str, type[message.Message]] = {
    name: getattr(a2a_pb2, name) for name in a2a_pb2.DESCRIPTOR.message_types_by_name
}
# The empty answer of DeleteTaskPushNotificationConfig is google.protobuf.Empty.
_CLASSES["Empty"] = empty_pb2.Empty
# Make the detail types known to Any's JSON form (ErrorInfo, BadRequest).
_DETAIL_TYPES = (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest)


def _method(op: Operation) -> Any:
    return _SERVICE.methods_by_name[op.value]


def request_class(op: Operation) -> type[message.Message]:
    return _CLASSES[_method(op).input_type.name]


def response_class(op: Operation) -> type[message.Message]:
    return _CLASSES[_method(op).output_type.name]


def streaming(op: Operation) -> bool:
    return bool(_method(op).server_streaming)


class DecodeError(LabError, ValueError):
    """Bytes that are not the message they should be."""


def to_json(msg: message.Message) -> dict[str, Any]:
    """A message's ProtoJSON (json names, enums by name; defaults left out, as ProtoJSON writers do)."""
    out: dict[str, Any] = json_format.MessageToDict(msg)
    return out


def from_json(value: object, cls: type[message.Message], strict: bool = False) -> message.Message:
    """A message from ProtoJSON; fields the type does not define are ignored (what a newer peer adds), unless
    `strict` (what a2a-lab itself writes: a field the proto lacks would be lost without a word)."""
    msg = cls()
    try:
        json_format.ParseDict(value, msg, ignore_unknown_fields=not strict)
    except json_format.ParseError as exc:
        raise DecodeError(f"not a valid {cls.DESCRIPTOR.full_name} in ProtoJSON: {exc}") from None
    return msg


def decode(data: bytes, cls: type[message.Message]) -> dict[str, Any]:
    msg = cls()
    try:
        msg.ParseFromString(data)
    except message.DecodeError as exc:
        raise DecodeError(f"{len(data)} bytes that are not a {cls.DESCRIPTOR.full_name}: {exc}") from None
    return to_json(msg)


def encode(value: object, cls: type[message.Message], strict: bool = False) -> bytes:
    data: bytes = from_json(value, cls, strict).SerializeToString()
    return data


def decode_request(op: Operation, data: bytes) -> dict[str, Any]:
    return decode(data, request_class(op))


def encode_request(op: Operation, value: object, strict: bool = False) -> bytes:
    return encode(value, request_class(op), strict)


def decode_response(op: Operation, data: bytes) -> dict[str, Any]:
    return decode(data, response_class(op))


def encode_response(op: Operation, value: object) -> bytes:
    return encode(value, response_class(op))


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(data) or shift > 63:
            raise DecodeError("a varint runs past the end of the message")
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not byte & 0x80:
            return value, i


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _swapped(data: bytes, descriptor: Descriptor, name: str, swaps: Mapping[str, str]) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        start = i
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            i = _varint(data, i)[1]
        elif wire in (1, 5):
            i += 8 if wire == 1 else 4
        elif wire == 2:
            length, at = _varint(data, i)
            end = at + length
            payload = data[at:end]
            field = descriptor.fields_by_number.get(number)
            new = payload
            if field is not None and field.type == FieldDescriptor.TYPE_STRING and field.name == name:
                new = swaps.get(payload.decode("utf-8", "replace"), "").encode("utf-8") or payload
            elif field is not None and field.type == FieldDescriptor.TYPE_MESSAGE:
                new = _swapped(payload, field.message_type, name, swaps)
            if new != payload:  # only a changed field is written anew (its length with it)
                out += data[start:i] + _varint_bytes(len(new)) + new
                i = end
                continue
            i = end
        else:
            raise DecodeError(f"wire type {wire} has no place in a proto3 message")
        out += data[start:i]
    return bytes(out)


def swap_strings(data: bytes, cls: type[message.Message], name: str, swaps: Mapping[str, str]) -> bytes:
    """A message's bytes with each string field called `name` (at any depth) whose value is a key of `swaps`
    written as its value instead, every other byte as it came (unknown fields, field order, encodings). Bytes
    that are not a `cls` are given back as they came."""
    try:
        decode(data, cls)  # a message that does not parse is not walked
        return _swapped(data, cls.DESCRIPTOR, name, swaps)
    except DecodeError:
        return data


def packable(detail: Mapping[str, object]) -> bool:
    """Whether status_bytes writes this google.rpc.Status detail (ProtoJSON with its `@type`) as it is given."""
    kind = str(detail.get("@type", "")).rsplit("/", 1)[-1]
    return any(c.DESCRIPTOR.full_name == kind for c in _DETAIL_TYPES)


def status_bytes(code: int, text: str, details: Sequence[Mapping[str, object]]) -> bytes:
    """A serialized google.rpc.Status (the `grpc-status-details-bin` trailer) with its details packed as Any."""
    status = status_pb2.Status(code=code, message=text)
    for detail in details:
        packed = any_pb2.Any()
        kind = str(detail.get("@type", "")).rsplit("/", 1)[-1]
        cls = next((c for c in _DETAIL_TYPES if c.DESCRIPTOR.full_name == kind), None)
        if cls is None:
            continue
        body = {k: v for k, v in detail.items() if k != "@type"}
        packed.Pack(from_json(body, cls))
        status.details.append(packed)
    data: bytes = status.SerializeToString()
    return data


def status_json(data: bytes) -> JSONObject:
    """A google.rpc.Status trailer as ProtoJSON (`{"code", "message", "details": [{"@type", ...}]}`); details of a
    type this module does not know keep their `@type` and raw value."""
    status = status_pb2.Status()
    try:
        status.ParseFromString(data)
    except message.DecodeError as exc:
        raise DecodeError(f"grpc-status-details-bin is not a google.rpc.Status: {exc}") from None
    out: JSONObject = {"code": status.code, "message": status.message}
    details: list[JSONValue] = []
    for item in status.details:
        kind = item.type_url.rsplit("/", 1)[-1]
        cls = next((c for c in _DETAIL_TYPES if c.DESCRIPTOR.full_name == kind), None)
        if cls is None:
            details.append({"@type": item.type_url, "value": item.value.hex()})
            continue
        inner = cls()
        item.Unpack(inner)
        details.append({"@type": item.type_url, **to_json(inner)})
    if details:
        out["details"] = details
    return out
