"""Did-you-mean: the nearest of the accepted spellings to what a user wrote (ids, enum values, commands)."""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable


def nearest(given: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The accepted spelling nearest to `given`, or None. Case and punctuation are ignored first (`json-rpc` finds
    `JSONRPC`), then difflib's ratio decides (`gprc` finds `GRPC`)."""
    options = list(choices)

    def folded(text: str) -> str:
        return "".join(ch for ch in text.lower() if ch.isalnum())

    by_fold = {folded(option): option for option in options}
    near = difflib.get_close_matches(folded(given), list(by_fold), n=1, cutoff=cutoff)
    return by_fold[near[0]] if near else None


def did_you_mean(given: str, choices: Iterable[str], otherwise: str = "") -> str:
    """`did you mean 'X'?` for the nearest accepted spelling, else `otherwise`."""
    near = nearest(given, choices)
    return f"did you mean {near!r}?" if near is not None else otherwise


def one_of(given: str, choices: Iterable[str]) -> str:
    """A hint for a value that is none of `choices`: the nearest first, when one is near, then all of them."""
    options = list(choices)
    return " ".join(filter(None, [did_you_mean(given, options), "one of " + ", ".join(options)]))


def nearest_glob(glob: str, names: Iterable[str]) -> str | None:
    """The glob nearest to `glob`, a glob of `/`-separated names that matches none of `names`: each segment without a
    wildcard that no name has at its place is replaced by the nearest one there (`quirk/*` finds `quirks/*`). None
    when a segment has nothing near, or the corrected glob matches nothing either."""
    known = list(names)
    paths = [name.split("/") for name in known]
    fixed: list[str] = []
    for depth, part in enumerate(glob.split("/")):
        under = [p for p in paths if len(p) > depth and all(fnmatch.fnmatchcase(p[i], fixed[i]) for i in range(depth))]
        here = sorted({p[depth] for p in under})
        if part in here or any(ch in part for ch in "*?["):
            fixed.append(part)
            continue
        near = nearest(part, here)
        if near is None:
            return None
        fixed.append(near)
    corrected = "/".join(fixed)
    if corrected == glob or not any(fnmatch.fnmatchcase(name, corrected) for name in known):
        return None
    return corrected
