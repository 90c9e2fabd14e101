"""What a page sends, read within bounds: a request body is read up to a limit and no further (a larger one is
refused before it is kept), and a form is `application/x-www-form-urlencoded`, parsed by the standard library."""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request

from a2a_lab.protocol.exceptions import LabError

#: A form of the pages: a few fields; a pasted card is its largest value (64 KiB, up to 3 bytes a byte encoded).
FORM_LIMIT = 3 * 64 * 1024 + 16 * 1024


class TooLarge(LabError):
    """The body is larger than the limit it was read with."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the request is larger than {limit} bytes")
        self.limit = limit


async def body(request: Request, limit: int) -> bytes:
    """The request's body, at most `limit` bytes (TooLarge past that, as soon as it is known)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def form(request: Request, limit: int = FORM_LIMIT) -> dict[str, str]:
    """A urlencoded form's fields (the last value of a repeated one); TooLarge past `limit`."""
    data = await body(request, limit)
    return dict(parse_qsl(data.decode("utf-8", "replace"), keep_blank_values=True))


async def form_lists(request: Request, limit: int = FORM_LIMIT) -> dict[str, list[str]]:
    """A urlencoded form's fields, every value of a repeated one (checkboxes)."""
    data = await body(request, limit)
    out: dict[str, list[str]] = {}
    for name, value in parse_qsl(data.decode("utf-8", "replace"), keep_blank_values=True):
        out.setdefault(name, []).append(value)
    return out
