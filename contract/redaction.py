"""Redaction: what the journal, and every report that quotes it, shows in place of a credential.

One policy, by structure and by scheme (the names are protocol/security.py's facts):

- headers: a credential header's value (`Authorization`, `Cookie`, `X-Api-Key`, `X-Auth-Token`, any name ending
  in `token`, `secret`, `api-key`..., and every header the card's apiKey schemes name) becomes `<redacted>`;
  `Authorization` keeps a known scheme word (`Bearer <redacted>`); other values are redacted by pattern;
- query strings and URLs: a credential parameter's value (`token`, `access_token`, `api_key`, `sig`, the card's
  query apiKey names), decoded before it is compared (`cred%65ntials`), and URL userinfo (`user:pw@`) become
  `<redacted>`, in the request's query, a webhook URL and any URL inside a body;
- JSON bodies are parsed and redacted by decoded member name (`"cred\\u0065ntials"` is `credentials`), at any
  depth, whatever their size (a body over the journal's bound is redacted whole before it is cut); the text is
  re-serialised only when something was hidden;
- text that is not JSON (a cut-off or broken body, a form, an error message) is redacted by pattern: quoted and
  bare `name: value` / `name=value` pairs with a credential name, `Bearer <token>`, URL userinfo;
- a body that is not UTF-8 is never kept (the journal records its size and sha256 instead).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, NamedTuple
from urllib.parse import unquote_plus

from a2a_lab.protocol import jsontext, security
from a2a_lab.protocol.security import DeclaredCredentials

REDACTED = "<redacted>"
_QUOTED_REDACTED = f'"{REDACTED}"'
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#]*)(.*)", re.DOTALL)
#: A URL scheme starts a word (so a long run of letters is not tried from each of its positions).
_SCHEME = r"(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*://)"
#: `scheme://userinfo@` inside text: greedy up to the authority's last `@`.
_USERINFO = re.compile(_SCHEME + r"[^/?#\s\"'<>]*@")
#: `name =` / `name:` in free text (the name may end a quoted string: `"token": ...`).
_PAIR_NAME = re.compile(r"(?<![\w%.\-])([\w%.\-]+)['\"]?\s*[=:]\s*")
#: An absolute URL inside text (up to a space or a quote).
_URL_IN_TEXT = re.compile(_SCHEME + r"[^\s\"'<>]+")
_JSON_SPACE = " \t\r\n"
_WALKED = (dict, list, str)
#: Text that is not JSON is redacted by pattern over the part kept plus this much.
_PATTERN_MARGIN = 4096
#: JSON's one-character escapes (each stands for a character that is not a letter or a digit).
_ESCAPE = re.compile(r'\\[\\"/bfnrt]')
_NOT_ALNUM_BYTES = bytes(b for b in range(128) if not chr(b).isalnum())
_credential_key = lru_cache(maxsize=4096)(security.credential_name)
_URL_STEMS = re.compile("|".join(sorted(security.URL_CREDENTIAL_PARAMS)))
#: At most this many header names are remembered per policy.
_NAMES_CACHED = 1024


@dataclass(frozen=True)
class Redaction:
    """How credentials are hidden for one scenario: the protocol's credential names plus what its card declares."""

    declared: DeclaredCredentials = security.NOTHING_DECLARED

    @classmethod
    def for_cards(cls, *cards: Any) -> Redaction:
        """The policy for an agent with these cards (the public and the extended one; any may be None)."""
        return cls(security.declared_credentials(cards))

    # ---------------------------------------------------------------------------------------------- names

    def secret_header(self, name: str) -> bool:
        # A cookie apiKey needs no name of its own: the Cookie header is hidden whole.
        known = self._header_names.get(name)
        if known is None:
            decoded = unquote_plus(name)
            known = security.credential_name(decoded) or decoded.lower() in self.declared.headers
            if len(self._header_names) < _NAMES_CACHED:
                self._header_names[name] = known
        return known

    @cached_property
    def _header_names(self) -> dict[str, bool]:
        """Names already judged (a journal sees the same few headers over and over)."""
        return {}

    def secret_param(self, name: str) -> bool:
        return security.credential_param(unquote_plus(name)) or self._declared_param(name)

    def _secret_word(self, name: str, in_url: bool) -> bool:
        """A name in free text: a credential name, a name the card declares, or (after `?`, `&`, `#`) a credential
        query parameter (`key`, `sig`, `code` are credentials only there)."""
        return self.secret_param(name) if in_url else self.secret_header(name) or self._declared_param(name)

    def _declared_param(self, name: str) -> bool:
        return security.normalised(unquote_plus(name)) in self._declared_params

    @cached_property
    def _declared_params(self) -> frozenset[str]:
        """The card's apiKey query and cookie names (a cookie's `name=value` may appear in text)."""
        return frozenset(security.normalised(name) for name in self.declared.query | self.declared.cookies)

    @cached_property
    def _schemes(self) -> frozenset[str]:
        return security.AUTH_SCHEMES | self.declared.schemes

    @cached_property
    def _scheme_token(self) -> re.Pattern[str]:
        """`<scheme> <credentials>` in free text."""
        names = "|".join(sorted((re.escape(s) for s in self._schemes), key=len, reverse=True))
        return re.compile(rf"(?<![\w-])({names})(\s+)(?!{re.escape(REDACTED)})[\w\-.~+/]+=*", re.IGNORECASE)

    @cached_property
    def _pair_value(self) -> re.Pattern[str]:
        """The value of a `name = value` / `name: value` pair in free text: quoted, or up to a separator, and an
        unquoted one may start with a scheme word (`Authorization: Bearer abc`)."""
        names = "|".join(sorted((re.escape(s) for s in self._schemes), key=len, reverse=True))
        return re.compile(rf"\"[^\"]*\"?|'[^']*'?|(?:(?:{names})\s+)?[^\s&;,'\"}}\]]+", re.IGNORECASE)

    # ---------------------------------------------------------------------------------------------- headers

    def header(self, name: str, value: str) -> str:
        lname = name.lower()
        if not self.secret_header(lname):
            return self.text(value)
        scheme, sep, _ = value.strip().partition(" ")
        if sep and lname in security.AUTHORIZATION_HEADERS and scheme.lower() in self._schemes:
            return f"{scheme} {REDACTED}"
        return REDACTED

    def headers(self, pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
        """Headers as the journal shows them: names lower-cased, repeated ones joined with `, `, credentials hidden."""
        out: dict[str, str] = {}
        for name, value in pairs:
            key = name.lower()
            value = self.header(key, value)
            out[key] = f"{out[key]}, {value}" if key in out else value
        return out

    # ---------------------------------------------------------------------------------------------- URLs

    def query(self, query: str) -> str:
        """A query string (or a `k=v` fragment) with credential parameters' values hidden; the rest as it came."""
        if "=" not in query:
            return query
        pieces = query.split("&")
        for i, piece in enumerate(pieces):
            name, sep, value = piece.partition("=")
            if sep and value and value != REDACTED and self.secret_param(name):
                pieces[i] = f"{name}={REDACTED}"
        return "&".join(pieces)

    def url(self, url: str) -> str:
        """An absolute URL without userinfo and credential parameters (query and fragment); other text unchanged."""
        m = _URL.match(url)
        if m is None:
            return url
        scheme, authority, rest = m.groups()
        if "@" in authority:
            authority = f"{REDACTED}@{authority.rpartition('@')[2]}"
        rest, hash_, fragment = rest.partition("#")
        path, question, query = rest.partition("?")
        return f"{scheme}{authority}{path}{question}{self.query(query)}{hash_}{self.query(fragment)}"

    def params(self, params: dict[str, str]) -> dict[str, str]:
        """Named parameters (an HTTP+JSON route's) with credential values hidden."""
        if not any(self.secret_param(k) for k in params):
            return params
        return {k: REDACTED if self.secret_param(k) else v for k, v in params.items()}

    # ---------------------------------------------------------------------------------------------- JSON

    def json(self, value: Any) -> Any:
        """A decoded JSON value with credential members and URLs hidden (the same object when nothing was)."""
        return self._json(value)[0]

    def _json(self, value: Any) -> tuple[Any, bool]:
        """(the value with credentials hidden, whether any were); containers are copied only when they change."""
        kind = type(value)
        if kind is dict:
            out: dict[Any, Any] | None = None
            for k, v in value.items():
                if type(k) is str and _credential_key(k):
                    new, changed = (v, False) if v is None or v == "" or v == REDACTED else (REDACTED, True)
                else:
                    new, changed = self._json(v) if type(v) in _WALKED else (v, False)
                if changed:
                    if out is None:
                        out = dict(value)
                    out[k] = new
            return (value, False) if out is None else (out, True)
        if kind is list:
            copy: list[Any] | None = None
            for i, v in enumerate(value):
                if type(v) in _WALKED:
                    new, changed = self._json(v)
                    if changed:
                        if copy is None:
                            copy = list(value)
                        copy[i] = new
            return (value, False) if copy is None else (copy, True)
        if kind is str and "://" in value:
            hidden = self.url(value) if _URL.match(value) else self._urls_in(value)
            return hidden, hidden != value
        return value, False

    # ---------------------------------------------------------------------------------------------- text

    def text(self, text: str) -> str:
        """Free text (not JSON) with credentials hidden by pattern."""
        if not self.may_hide(text):
            return text
        if "://" in text:
            text = self._urls_in(text)
        if '"' in text:
            text = self._quoted_members(text)
        text = self._pairs(text)
        return self._scheme_token.sub(rf"\1\2{REDACTED}", text)

    def _urls_in(self, text: str) -> str:
        """Absolute URLs inside text, each without its userinfo and credential parameters."""
        return _USERINFO.sub(rf"\1{REDACTED}@", _URL_IN_TEXT.sub(lambda m: self.url(m.group(0)), text))

    def _pairs(self, text: str) -> str:
        """`name = value` / `name: value` pairs with a credential name (a form, a query, a log line, YAML). Names are
        looked for inside other values too (`"note": "password=..."`)."""
        out: list[str] = []
        pos = 0
        for m in _PAIR_NAME.finditer(text):
            if m.start() < pos:  # inside a value already hidden
                continue
            in_url = m.start() > 0 and text[m.start() - 1] in "?&#;"
            if not self._secret_word(m.group(1), in_url):
                continue
            value = self._pair_value.match(text, m.end())
            if value is None or value.group(0).strip("\"'").endswith(REDACTED):
                continue
            quote = value.group(0)[0] if value.group(0)[0] in "'\"" else ""
            out += [text[pos : m.end()], quote, REDACTED, quote]
            pos = value.end()
        out.append(text[pos:])
        return "".join(out)

    def _quoted_members(self, text: str) -> str:
        """JSON-like `"name": value` members whose decoded name is a credential, in text that does not parse (cut
        off, broken): strings are read with their escapes, a value is skipped whole (strings, nested brackets)."""
        out: list[str] = []
        i, n = 0, len(text)
        while True:
            start = text.find('"', i)
            if start < 0:
                break
            end = _string_end(text, start)
            colon = _skip_space(text, end)
            if colon < n and text[colon] == ":" and _credential_member(text[start:end]):
                value = _skip_space(text, colon + 1)
                after = _value_end(text, value)
                if text[value:after] != _QUOTED_REDACTED:
                    out.append(text[i:value])
                    out.append(_QUOTED_REDACTED)
                    i = after
                    continue
                end = after
            out.append(text[i:end])
            i = end
        out.append(text[i:])
        return "".join(out)

    # ---------------------------------------------------------------------------------------------- bodies

    def may_hide(self, text: str) -> bool:
        """Whether anything in this text could be a credential (False is certain; True means: look closer).

        Every credential name ends in, or is, one of the stems, so it shows in the text lower-cased, its escapes
        decoded (`\\u0065`), and stripped to letters and digits, as every name is compared (`X-Api-Key`)."""
        if "://" in text or "%" in text:
            return True
        view = _alnum_view(text)
        if view is None or self._stems.search(view):
            return True
        return any(c in text for c in "?&#;") and _URL_STEMS.search(view) is not None

    @cached_property
    def _stems(self) -> re.Pattern[str]:
        declared = self.declared.headers | self.declared.query | self.declared.cookies | self._schemes
        stems = {*security.CREDENTIAL_STEMS, *(security.normalised(n) for n in declared)} - {""}
        return re.compile("|".join(sorted(stems)))

    def body(self, data: bytes, keep: int) -> Redacted:
        """A body's text with credentials hidden, cut to `keep` UTF-8 bytes; text None when it is not UTF-8.

        JSON is parsed and redacted by member name, whole, then cut. Text that is not JSON is redacted by pattern:
        only the part kept (and a margin, so a credential the cut runs through is still recognised)."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return Redacted(None)
        if not self.may_hide(text):
            return _cut(text, keep, redacted=False)
        try:
            value = jsontext.loads(data)
            hidden, changed = self._json(value)
        except (ValueError, RecursionError):
            part = _cut(text, keep + _PATTERN_MARGIN, redacted=False)
            redacted = self.text(part.text or "")
            cut = _cut(redacted, keep, redacted=redacted != part.text)
            return cut._replace(truncated=cut.truncated or part.truncated)
        if not changed:
            return _cut(text, keep, redacted=False)
        return _cut(jsontext.dumps(hidden).decode("utf-8"), keep, redacted=True)


class Redacted(NamedTuple):
    """A body as the journal keeps it: text (None: not UTF-8, withheld), whether credentials were hidden in it, and
    whether it was cut."""

    text: str | None
    redacted: bool = False
    truncated: bool = False


def _cut(text: str, keep: int, redacted: bool) -> Redacted:
    if len(text) * 4 <= keep:  # no cut needed, even if every character took four bytes
        return Redacted(text, redacted)
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= keep:
        return Redacted(text, redacted)
    return Redacted(encoded[:keep].decode("utf-8", "ignore"), redacted, truncated=True)


def _alnum_view(text: str) -> str | None:
    """The text as names are compared: lower case, letters and digits only (JSON escapes dropped, as they decode
    to neither); None when it holds a `\\uXXXX` escape (which may spell any name: only parsing tells)."""
    if "\\" in text:
        if "\\u" in text:
            return None
        text = _ESCAPE.sub("", text)
    return text.lower().encode("ascii", "ignore").translate(None, _NOT_ALNUM_BYTES).decode("ascii")


def _credential_member(quoted: str) -> bool:
    """Whether a JSON string (quotes included, perhaps unterminated) decodes to a credential name."""
    raw = quoted[1:-1] if len(quoted) > 1 and quoted.endswith('"') else quoted[1:]
    try:
        name = jsontext.loads(f'"{raw}"'.encode()) if "\\" in raw else raw
    except (ValueError, UnicodeEncodeError):
        name = _ESCAPE.sub("", raw)  # as `_alnum_view` reads it
    return isinstance(name, str) and security.credential_name(name)


def _string_end(text: str, start: int) -> int:
    """The index after the JSON string opening at `start` (the text's end when it is cut off)."""
    i, n = start + 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        else:
            i += 1
    return n


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in _JSON_SPACE:
        i += 1
    return i


def _value_end(text: str, start: int) -> int:
    """The index after the JSON value at `start`: a string, a bracketed value (nesting and strings followed), or a
    scalar; the text's end when it is cut off."""
    n = len(text)
    if start >= n:
        return n
    if text[start] == '"':
        return _string_end(text, start)
    if text[start] in "[{":
        depth, i = 0, start
        while i < n:
            c = text[i]
            if c == '"':
                i = _string_end(text, i)
                continue
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return n
    i = start
    while i < n and text[i] not in ",}]" and text[i] not in _JSON_SPACE:
        i += 1
    return i


DEFAULT = Redaction()
