"""Placeholders in scenario data: `{base_url}` in cards, `{text}` (the user's text) in replies."""

from __future__ import annotations

from typing import Any

BASE_URL = "{base_url}"
TEXT = "{text}"


def fill(value: Any, placeholder: str, replacement: str) -> Any:
    """A copy of JSON-like data with the placeholder replaced in every string."""
    if isinstance(value, str):
        return value.replace(placeholder, replacement)
    if isinstance(value, list):
        return [fill(v, placeholder, replacement) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, placeholder, replacement) for k, v in value.items()}
    return value
