"""Card caching headers (§8.6): ETag with If-None-Match, Last-Modified with If-Modified-Since."""

from __future__ import annotations

from email.utils import formatdate, parsedate_to_datetime

CARD = "/.well-known/agent-card.json"


def test_last_modified_and_conditional_requests(serve) -> None:
    s = serve("spec/conformant")
    first = s.http.get(CARD)
    modified = first.headers["last-modified"]
    assert parsedate_to_datetime(modified).timestamp() <= __import__("time").time()
    assert s.http.get(CARD, headers={"If-Modified-Since": modified}).status_code == 304
    assert s.http.get(CARD, headers={"If-Modified-Since": formatdate(0, usegmt=True)}).status_code == 200
    assert s.http.get(CARD, headers={"If-None-Match": first.headers["etag"]}).status_code == 304
    # If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3)
    assert s.http.get(CARD, headers={"If-None-Match": 'W/"other"', "If-Modified-Since": modified}).status_code == 200
    assert s.http.get(CARD, headers={"If-Modified-Since": "not a date"}).status_code == 200
