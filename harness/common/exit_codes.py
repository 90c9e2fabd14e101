"""Exit codes, defined once: the `a2a-lab` commands' (docs/reference/reports.md) and the reference client's."""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """What an `a2a-lab` command tells its caller (a CI gate); each command documents what the codes mean for it."""

    #: The gate passed (run, score, probe, report merge), the card has warnings at most, the file was written.
    OK = 0
    #: Checks failed (a FAIL; with --strict also NON_STRICT), the card has errors, an interface gave no answer.
    FAILED = 1
    #: Usage or scenario error, unusable input (no card, not a URL, a file that exists).
    USAGE = 2
    #: The harness itself failed (an ERROR outcome, an internal error).
    HARNESS = 3
    #: Interrupted (Ctrl-C or SIGTERM): the clients and servers were stopped, the reports cover what finished.
    INTERRUPTED = 130
    #: Whoever read the output stopped reading (`a2a-lab checks | head -1`): as a process killed by SIGPIPE.
    BROKEN_PIPE = 141


class ClientExit(IntEnum):
    """The reference client's exit codes, its contract with whoever runs it (`a2a-lab client`)."""

    #: A message, or a task that stopped (finished, failed, rejected, or waiting for the user).
    ANSWER = 0
    #: No answer: an error, or a task still running when the client gave up.
    NO_ANSWER = 1
    #: The caller asked for something impossible (a bad URL, a bad option, a bad action).
    USAGE = Exit.USAGE
