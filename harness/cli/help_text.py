"""What `a2a-lab COMMAND --help` says beyond the options, laid out once: what the command is for, examples, and its
exit codes. Each command's own words live beside it (its Command record); here is only what commands share: the
layout, and the wording of the exit codes of every command that scores and gates (run, score, probe, proxy, ...).
The codes are Exit's (exit_codes.py)."""

from __future__ import annotations

import textwrap

from a2a_lab.harness.common.exit_codes import Exit

#: (code, what it means for the command), in order.
ExitCodes = tuple[tuple[int, str], ...]

#: How wide the exit codes' lines are wrapped (the examples are shown as written).
WIDTH = 116

INTERRUPTED = (Exit.INTERRUPTED, "interrupted (Ctrl-C, SIGTERM): clients killed, reports cover what finished")
#: The end of every command's usage line that writes report files (outputs.py checks them before anything runs).
REPORT_PATHS = "a report path that cannot be written"


def gate_codes(
    failed: str = "checks failed: FAIL, TIMEOUT or NO_CONTACT (with --strict also NON_STRICT)",
    usage: str = "usage error: a bad option, an unknown scenario or check id, a broken scenario or baseline file",
    never_started: str = "",
    harness: str = "harness error (a scenario ended in ERROR)",
    interrupted: bool = False,
) -> ExitCodes:
    """The exit codes of a command that scores and gates (gate.conclude). `never_started`: when the client never
    started, as this command knows it."""
    return (
        (Exit.OK, "the gate passed"),
        (Exit.FAILED, failed),
        (
            Exit.USAGE,
            f"{usage}, {REPORT_PATHS}" + (f"; the client never started ({never_started})" if never_started else ""),
        ),
        (Exit.HARNESS, harness),
        *((INTERRUPTED,) if interrupted else ()),
    )


def epilog(about: str, examples: tuple[str, ...], exit_codes: ExitCodes) -> str:
    """`about`, then `examples:` (each line as written), then `exit codes:` (each code with its meaning, wrapped)."""
    parts = [about.strip()] if about.strip() else []
    if examples:
        parts.append("examples:\n" + "\n".join(f"  {line}" for line in examples))
    if exit_codes:
        lines = [
            textwrap.fill(meaning, WIDTH, initial_indent=f"  {code:<3}  ", subsequent_indent=" " * 7)
            for code, meaning in exit_codes
        ]
        parts.append("exit codes:\n" + "\n".join(lines))
    return "\n\n".join(parts)
