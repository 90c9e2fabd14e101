"""The ACTS runner's defaults the command line shows in its help and falls back on (`a2a-lab acts run`): here,
apart from the runner, so that parsing the command and refusing its usage errors load neither the runner nor httpx."""

#: An ACTS test's levels, strictest first (`--level`).
LEVELS = ("must", "should", "may")

#: How long one test may run (`--test-deadline`), and the whole run (`--run-deadline`), by default.
TEST_DEADLINE_S = 120.0
RUN_DEADLINE_S = 3600.0

#: The standard SUT behaviour prefixes (§11.2): what a SUT is taken to serve unless `--behaviors` says otherwise.
STANDARD_BEHAVIORS = (
    "tck-complete-task",
    "tck-input-required",
    "tck-reject-task",
    "tck-message-response",
    "tck-artifact-text",
    "tck-artifact-file",
    "tck-artifact-file-url",
    "tck-artifact-data",
    "tck-long-running",
    "tck-multi-turn",
    "tck-cancel",
    "tck-stream-basic",
    "tck-stream-chunked",
    "tck-task-failure",
)
