"""The `style:` section: how the server words and frames its answers (member order, line ends, media types)."""

from __future__ import annotations

from typing import Any

from a2a_lab.protocol import versions

from ..style import LineEnd, MediaKey, Style
from .reader import Reader
from .reply import read_headers


def read_style(r: Reader, value: Any, path: str = "style", nested: bool = True) -> Style:
    style = r.mapping(value, path, "style")
    interfaces: dict[str, Style] = {}
    if "interfaces" in style:
        if not nested:
            raise r.fail(f"{path}.interfaces", "an interface's style has no interfaces of its own")
        for name, own in r.mapping(style["interfaces"], f"{path}.interfaces").items():
            where = f"{path}.interfaces.{name}"
            binding_name, _, version_name = str(name).partition(" ")
            binding, version = r.binding(binding_name, where), versions.to_known(version_name)
            if version is None:
                raise r.fail(where, "expected a binding and a version", "e.g. JSONRPC 0.3")
            interfaces[f"{binding.value} {version.value}"] = read_style(r, own, where, nested=False)
    media = r.mapping(style.get("media_types", {}), f"{path}.media_types", "style.media_types")
    return Style(
        offset_timestamps=r.boolean(style.get("offset_timestamps", False), f"{path}.offset_timestamps"),
        sort_keys=r.boolean(style.get("sort_keys", False), f"{path}.sort_keys"),
        json_errors=r.boolean(style.get("json_errors", False), f"{path}.json_errors"),
        python_json_events=r.boolean(style.get("python_json_events", False), f"{path}.python_json_events"),
        member_order=_member_order(r, style.get("member_order", []), f"{path}.member_order"),
        null_error_data=r.boolean(style.get("null_error_data", False), f"{path}.null_error_data"),
        explicit_artifact_flags=r.boolean(
            style.get("explicit_artifact_flags", False), f"{path}.explicit_artifact_flags"
        ),
        omit_final_false=r.boolean(style.get("omit_final_false", False), f"{path}.omit_final_false"),
        interfaces=interfaces,
        media_types=tuple((MediaKey(k), r.header_value(v, f"{path}.media_types.{k}")) for k, v in media.items()),
        sse_line_end=r.choice(style["sse_line_end"], f"{path}.sse_line_end", "style.sse_line_end")
        if "sse_line_end" in style
        else LineEnd.CRLF,
        sse_cache_control=r.header_value(style["sse_cache_control"], f"{path}.sse_cache_control")
        if "sse_cache_control" in style
        else None,
        error_metadata=r.boolean(style.get("error_metadata", True), f"{path}.error_metadata"),
        headers=read_headers(r, style["headers"], f"{path}.headers") if "headers" in style else (),
        body_etag=r.boolean(style.get("body_etag", False), f"{path}.body_etag"),
    )


def _member_order(r: Reader, value: Any, path: str) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, list):
        raise r.fail(path, "expected a list of member lists", "e.g. [[id, contextId, status]]")
    return tuple(r.strings(order, f"{path}[{i}]", "member names") for i, order in enumerate(value))
