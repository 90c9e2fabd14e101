"""Text as each medium may show it: the one place that escapes what a client, a server or a file said (a client's
stderr, a scenario's title, a baseline's reasons, a journal's quotes) for where a2a-lab shows it.

- `console`: every control character but newline and tab shows as its escape (`\\x1b`, `\\x9b`, `\\x07`): a terminal
  takes ESC, CSI (C1 0x9b), BEL, NUL, carriage return and the rest as instructions (clear the screen, set the window
  title, make a hyperlink, hide what came before), so none reaches it as is. Lone surrogates, which no terminal can
  print, and the non-characters U+FFFE and U+FFFF show as `\\udc80`, `\\ufffe`.
- `xml`: the same characters made visible, so that the text holds only characters XML 1.0 allows (§2.2) and no
  discouraged control; ElementTree then escapes `&`, `<`, `>` and quotes.
- `html`: the same characters made visible, then entities for `&`, `<`, `>` and both quotes.
- JSON shows text as it is: the encoder escapes what JSON must (`\\u001b`), and a reader gets the exact characters.

Newlines and tabs are kept everywhere: multi-line quotes (a request, a stderr tail) keep their shape.
"""

from __future__ import annotations

import html as _html
import re

#: The C0 controls but tab and newline, DEL, the C1 controls, lone surrogates, U+FFFE and U+FFFF.
_SHOWN_ESCAPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def console(text: str) -> str:
    """Text for a terminal (stdout, stderr, a pytest assertion message)."""
    return _SHOWN_ESCAPED.sub(_escape, text)


def xml(text: str) -> str:
    """Text for an XML document (JUnit): only characters XML 1.0 allows."""
    return _SHOWN_ESCAPED.sub(_escape, text)


def html(text: object) -> str:
    """Text for HTML, in an element or an attribute value."""
    return _html.escape(_SHOWN_ESCAPED.sub(_escape, str(text)), quote=True)
