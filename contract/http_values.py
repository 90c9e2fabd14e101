"""The HTTP values a scenario makes the server send (a status, header names and values), checked in one place: the
scenario loader and `record --from-har` refuse the same values with the same words, and a value that passes can be
sent by the server (uvicorn over h11) without failing the answer, so a scenario never makes the server crash and its
client take the blame.

Each check returns None for a value that can be sent, else a `Problem`: what is wrong and how to fix it, quoting no
raw control character (a value may hold anything; it is shown escaped).

    problem = http_values.status_problem(value, has_body=bool(body))
    if problem is not None:
        raise reader.fail(path, problem.what, problem.hint)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

#: The statuses a server sends as its answer (RFC 9110 §15: three digits, 1xx informational, 200-599 final).
LOWEST_STATUS, HIGHEST_STATUS = 200, 599
#: Statuses whose answer has no content (RFC 9110 §15.3.5 204 No Content, §15.4.5 304 Not Modified): the server
#: sends them without a body, so a body given with one is refused rather than dropped (or failed on) at send time.
NO_BODY_STATUSES = frozenset({204, 304})
#: Headers that frame the body, which the server writes itself (RFC 9112 §6): one given by a scenario would conflict
#: with the body actually sent.
FRAMING_HEADERS = frozenset({"content-length", "transfer-encoding"})

#: RFC 9110 §5.1 field-name (a token, §5.6.2).
_TOKEN = re.compile(r"[-!#$%&'*+.^_`|~0-9A-Za-z]+")
#: RFC 9110 §5.5 field-value characters: VCHAR, obs-text (sent as Latin-1 bytes) but its C1 controls, SP and HTAB.
_NOT_FIELD_CHAR = re.compile(r"[^\t\x20-\x7e\xa0-\xff]")
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]+")


@dataclass(frozen=True)
class Problem:
    """Why a value cannot be sent (`what`), and how to fix it (`hint`)."""

    what: str
    hint: str

    def __str__(self) -> str:
        return f"{self.what} ({self.hint})"


def status_problem(value: object, has_body: bool = False) -> Problem | None:
    """A status the server answers with: a whole number 200-599, and not 204 or 304 when the answer has a body."""
    if isinstance(value, bool) or not isinstance(value, int):
        return Problem(f"expected an HTTP status (a whole number), got {_shown(value)}", "e.g. 200 or 503")
    if 100 <= value < LOWEST_STATUS:
        return Problem(
            f"{value} is an informational status (1xx), not an answer: a server sends one before its final status "
            "(101 switches to another protocol)",
            f"give the final status, {LOWEST_STATUS}-{HIGHEST_STATUS}",
        )
    if not LOWEST_STATUS <= value <= HIGHEST_STATUS:
        return Problem(
            f"{_number(value)} is not an HTTP status a server can answer with",
            f"give a status from {LOWEST_STATUS} to {HIGHEST_STATUS}",
        )
    if has_body and value in NO_BODY_STATUSES:
        return Problem(
            f"a {value} answer has no body (RFC 9110 §15.{'3.5' if value == 204 else '4.5'}), but this one has one",
            "leave the body out, or give a status that has one (e.g. 200)",
        )
    return None


def header_name_problem(name: object) -> Problem | None:
    """A response header's name: an RFC 9110 token, and not a framing header (the server frames the body itself)."""
    if not isinstance(name, str):
        return Problem(f"a header name is text, got {_shown(name)}", "e.g. Retry-After")
    if not _TOKEN.fullmatch(name):
        bad = "it is empty" if not name else f"{_first_bad(name, _TOKEN_CHAR)} is not allowed in one"
        return Problem(
            f"{_shown(name)} is not a header name: {bad}",
            "a header name is letters, digits and !#$%&'*+-.^_`|~, with no space or colon",
        )
    if name.lower() in FRAMING_HEADERS:
        return Problem(
            f"{name} frames the body, and the server writes it for the body it sends",
            "leave it out (to cut an answer short: reply.fault truncate)",
        )
    return None


def header_value_problem(value: object) -> Problem | None:
    """A response header's value: Latin-1 text without control characters (tab inside it aside), and no space or
    tab at either end (RFC 9110 §5.5); CR and LF above all, which would end the header and start another."""
    if not isinstance(value, str):
        return Problem(f"a header value is text, got {_shown(value)}", "quote it")
    bad = _NOT_FIELD_CHAR.search(value)
    if bad is not None:
        char = bad.group()
        kind = "a character outside Latin-1" if ord(char) > 0xFF else "a control character"  # C0, DEL or C1
        hint = (
            "a header value is one line: CR and LF would end it and start another header"
            if char in "\r\n"
            else "percent-encode it, or use ASCII"
            if ord(char) > 0xFF
            else "remove it"
        )
        return Problem(f"the header value has {kind} (U+{ord(char):04X} at position {bad.start()})", hint)
    if value != value.strip(" \t"):
        return Problem("the header value begins or ends with a space or tab", "trim it")
    return None


def sendable(value: str) -> str:
    """A header value built from a scenario's words (a card's scheme names in a challenge), made one the server can
    send over HTTP and as gRPC metadata: printable ASCII, every other character percent-encoded as UTF-8 (so CR and
    LF never end the header), trimmed. A value that is printable ASCII already is returned as it is."""
    if _PRINTABLE_ASCII.fullmatch(value):
        return value.strip(" ")
    return _NOT_PRINTABLE_ASCII.sub(lambda m: quote(m.group(), safe="", errors="surrogatepass"), value).strip(" ")


def header_problem(name: object, value: object) -> Problem | None:
    """One response header (name, value): header_name_problem, then header_value_problem."""
    return header_name_problem(name) or header_value_problem(value)


_TOKEN_CHAR = re.compile(r"[-!#$%&'*+.^_`|~0-9A-Za-z]")


def _first_bad(text: str, allowed: re.Pattern[str]) -> str:
    char = next(c for c in text if not allowed.fullmatch(c))
    return "a space" if char == " " else f"U+{ord(char):04X}" if not char.isprintable() else repr(char)


def _number(value: int) -> str:
    """A whole number as said in a message: a long one by its size (it may have thousands of digits)."""
    if abs(value) < 10**12:
        return str(value)
    return f"a number of about {int(abs(value).bit_length() * 0.30103) + 1} digits"  # str() refuses 4 300 and more


def _shown(value: object, most: int = 40) -> str:
    """A value as a message quotes it: escaped (no raw control character), and cut short."""
    if isinstance(value, str):
        return ascii(value[:most]) + ("..." if len(value) > most else "")
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return _number(value)
    return f"a {type(value).__name__}"
