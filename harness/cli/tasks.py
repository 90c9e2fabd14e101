"""The commands of `a2a-lab`, by the task each serves: the one table that both registers them (entry.build_parser)
and lists them in `a2a-lab --help` (overview.py), so no command is registered without its task."""

from __future__ import annotations

from dataclasses import dataclass

from a2a_lab.harness.cli.command import Command


@dataclass(frozen=True)
class Task:
    #: One line over the task's commands in `a2a-lab --help` (and a heading of the command-line reference).
    heading: str
    commands: tuple[Command, ...]


def tasks() -> tuple[Task, ...]:
    """Every command, under its task, in the order `a2a-lab --help` lists them (imported when the parser is built,
    not with the package: the reference client, which takes its options and exit codes from here, loads none of the
    others)."""
    from a2a_lab.harness.cli import (
        acts,
        checks,
        client,
        drive,
        fuzz,
        merge,
        probe,
        proxy,
        record,
        run,
        scenarios,
        score,
        serve,
        ui,
    )
    from a2a_lab.harness.cli import cardcheck as card

    return (
        Task(
            "test a client: a2a-lab serves it scenarios and judges every request it makes",
            (run.COMMAND, fuzz.COMMAND, scenarios.COMMAND, checks.COMMAND),
        ),
        Task(
            "test a server: a2a-lab is the client and judges the server against its card",
            (probe.COMMAND, card.COMMAND, acts.COMMAND, record.COMMAND, client.COMMAND),
        ),
        Task("judge a live pair: a2a-lab stands between a real client and a real server", (proxy.COMMAND,)),
        Task(
            "share one server: for a client you start yourself (by hand, compose, CI)",
            (serve.COMMAND, drive.COMMAND, score.COMMAND),
        ),
        Task("reports: join what several runs or shards wrote", (merge.COMMAND,)),
        Task("in a browser: the pages above, judged as they happen", (ui.COMMAND,)),
    )


def commands() -> list[Command]:
    """Every command, in the order of tasks()."""
    return [command for task in tasks() for command in task.commands]
