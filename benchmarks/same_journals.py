"""No scenario behaves differently (issue 18): the journal of each scenario for the reference client, this working
tree against a git commit, over the scenarios both catalogues hold. A check, not a test of the suite: it runs the
catalogue twice per tree (about three minutes on two cores).

    python benchmarks/same_journals.py                # against main
    python benchmarks/same_journals.py --before 581f9cf~1

Aside are only what differs from run to run of one tree: times (`t`), ports (in URLs, Host headers and the card's
hash), the ids the client draws at random (UUIDs, numbered in order of appearance, so a reused id is still seen as
reused), timestamps and card signatures (over a card that names the port). So that this normalising is shown to hide
nothing else, each tree runs twice and the two runs must be equal too. A scenario whose file differs between the
trees may journal differently by design: it is listed, with whether its journal differs beyond the served card.
Exit status 1 when any other scenario's journal differs, or when runs of one tree differ.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import trees

PORT = re.compile(r"(127\.0\.0\.1|localhost|\[::1\]):\d+")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
#: A card signature (JWS over the card, whose URLs hold the port; ES256 signatures are randomised anyway).
SIGNATURE = re.compile(r'("signature":\s*")[A-Za-z0-9_-]+"')
#: Fields that hold a time or a hash of text holding a port.
ASIDE = {"t", "card_sha256"}


def normalised(journal: list[dict[str, Any]]) -> Any:
    ids: dict[str, str] = {}

    def text(value: str) -> str:
        value = PORT.sub(r"\1:PORT", value)
        value = UUID.sub(lambda m: ids.setdefault(m.group(0), f"UUID-{len(ids) + 1}"), value)
        value = SIGNATURE.sub(r'\1SIGNATURE"', value)
        return TIMESTAMP.sub("TIMESTAMP", value)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if k not in ASIDE}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return text(value) if isinstance(value, str) else value

    return walk(journal)


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{path or '.'}: {type(a).__name__} / {type(b).__name__}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b), key=lambda k: (k == "size", k)):  # a text's difference, then its size
            if key not in a or key not in b:
                return f"{path}.{key}: only in the {'second' if key not in a else 'first'}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path or '.'}: {len(a)} / {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    if a == b:
        return None
    if isinstance(a, str):
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        return f"{path}, from character {at}: {a[max(0, at - 40) : at + 80]!r} / {b[max(0, at - 40) : at + 80]!r}"
    return f"{path}: {a!r} / {b!r}"


def journals(tree: trees.Tree, ids: list[str]) -> dict[str, Any]:
    args = [arg for sid in ids for arg in ("--scenario", sid)]
    run = tree.worker("--client", "builtin", "-j", "2", "--journals", *args)
    return {row["id"]: normalised(row["journal"]) for row in run["scenarios"]}


def compare(first: dict[str, Any], second: dict[str, Any]) -> dict[str, str]:
    return {sid: found for sid in first if (found := first_difference(first[sid], second[sid]))}


def without_cards(journal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The journal but for the card the server sent (its card entries' response and size)."""
    return [
        {k: v for k, v in e.items() if k not in ("response", "card_sha256")} if e.get("kind") == "card" else e
        for e in journal
    ]


def changed_scenarios(before: trees.Tree, after: trees.Tree, ids: list[str]) -> set[str]:
    """The scenarios whose file differs between the trees: their journals may differ by design."""
    return {
        sid
        for sid in ids
        if (before.root / "scenarios" / f"{sid}.yaml").read_bytes()
        != (after.root / "scenarios" / f"{sid}.yaml").read_bytes()
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", default="main", help="the git commit to compare with (default main)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="a2a-lab-journals-") as scratch:
        after = trees.tree("after", trees.HERE, Path(scratch))
        before = trees.tree("before", args.before, Path(scratch))
        listed = [t.worker("--list")["ids"] for t in (before, after)]
        ids = [sid for sid in listed[1] if sid in set(listed[0])]
        print(f"before: {before.ref}; after: {after.ref}; {len(ids)} scenarios in both catalogues", flush=True)
        changed = changed_scenarios(before, after, ids)
        runs = {t.label: [journals(t, ids), journals(t, ids)] for t in (before, after)}
    unstable = {label: compare(*pair) for label, pair in runs.items()}
    differ = compare(runs[before.label][0], runs[after.label][0])
    for label, found in unstable.items():
        for sid, where in found.items():
            print(f"UNSTABLE within {label}: {sid}: {where}")
    for sid, where in differ.items():
        if sid not in changed:
            print(f"DIFFERS: {sid}: {where}")
            continue
        old, new = (without_cards(runs[t.label][0][sid]) for t in (before, after))
        beyond = first_difference(old, new)
        rest = f"and beyond the card: {beyond}" if beyond else "the rest of its journal is the same"
        print(f"differs, its scenario file changed: {sid}: {where}; {rest}")
    same = [sid for sid in ids if sid not in differ]
    entries = sum(len(runs[after.label][0][sid]) for sid in same)
    print(
        f"{len(same)} of {len(ids)} scenarios journaled the same ({entries} entries); {len(differ)} differ, of which "
        f"{len(set(differ) & changed)} have a changed scenario file ({len(changed)} changed); runs of one tree that "
        "differed: " + ", ".join(f"{label} {len(found)}" for label, found in unstable.items())
    )
    return 1 if set(differ) - changed or any(unstable.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
