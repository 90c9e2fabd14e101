"""Task timestamps: ISO 8601 UTC with milliseconds and a Z, as datetime would write them, though the date and time
of day are formatted once per second and the whole once per millisecond."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime

import pytest

from a2a_lab.server import engine


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_now_iso_writes_what_datetime_writes(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = random.Random(seed)
    ns = 1_700_000_000_000_000_000
    for _ in range(2000):
        ns += rng.choice((0, 1, 999_999, 1_000_000, 7_000_000, 999_000_000, 1_000_000_000, 86_400_000_000_000))
        monkeypatch.setattr(time, "time_ns", lambda ns=ns: ns)
        ms = ns // 1_000_000
        expected = datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        assert engine.now_iso() == expected
