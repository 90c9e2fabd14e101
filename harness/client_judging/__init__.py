"""Judging a client: run it against scenarios (runner, schedule, process, loop, in process), read what it sent (the
journal view), score it against the spec (checks/, scoring, causes, crashes, baseline), and search for what breaks
it (fuzz/). A client here is any command, the lab's own reference client included."""
