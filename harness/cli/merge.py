"""`a2a-lab report merge A.json B.json ...`: join the reports of several runs or shards into one set of reports."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from a2a_lab.contract import userfile
from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.options import add_compare, add_junit_skipped
from a2a_lab.harness.cli.outputs import STDOUT, output_file, output_folder
from a2a_lab.harness.common import escape
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import refuse, say
from a2a_lab.harness.common.model import ScenarioResult


def merge(reports: list[dict[str, Any]], strict: bool = False, names: list[str] | None = None) -> list[dict[str, Any]]:
    """One report per client: shards of the same client are joined (a scenario seen twice keeps the later run).
    `names`: what to call the clients in the reports, in the order they first appear (else their commands)."""
    from a2a_lab.harness.client_judging import scoring
    from a2a_lab.harness.reports import json_report

    names = names or []
    by_client: dict[str, list[dict[str, Any]]] = {}
    for report in reports:
        by_client.setdefault(str(report.get("client", "")), []).append(report)
    if len(names) > len(by_client):
        raise ValueError(f"{len(names)} --name given for {len(by_client)} client(s)")
    merged = []
    for index, (client, parts) in enumerate(by_client.items()):
        scenarios: dict[str, ScenarioResult] = {}
        for part in parts:
            for data in part["scenarios"]:
                scenarios[data["id"]] = ScenarioResult.from_json(data)
        results = [scenarios[k] for k in sorted(scenarios)]
        summary = scoring.summary(results, strict)
        meta = {
            "client": client,
            "name": names[index] if index < len(names) else parts[0].get("name"),
            "seed": parts[0].get("seed"),
            "started": min((str(p["started"]) for p in parts if p.get("started")), default=None),
            "strict": strict,
            "merged_from": len(parts),
            "shards": sorted({str(p["shard"]) for p in parts if p.get("shard")}),
        }
        merged.append(json_report.build(results, summary, meta))
    return merged


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["merge"])
    p.add_argument(
        "reports",
        nargs="+",
        type=Path,
        help="JSON reports written by `a2a-lab run --json` (or report.json of --report-dir)",
    )
    p.add_argument(
        "--html", type=output_folder, metavar="DIR", help="write DIR/index.html: the client x scenario matrix"
    )
    p.add_argument(
        "--junit",
        type=output_file,
        metavar="FILE",
        help="write JUnit XML (one client: the merged report; several: one file each, suffixed)",
    )
    add_junit_skipped(p)
    add_compare(p)
    p.add_argument(
        "--name",
        action="append",
        metavar="NAME",
        help="what to call a client in the reports (repeatable: the first names the first client the reports show)",
    )
    p.add_argument(
        "--json", type=output_file, metavar="FILE", help="write the merged JSON report (one client) or a list of them"
    )
    p.add_argument("--strict", action="store_true", help="gate on NON_STRICT too")


def cmd_report(args: argparse.Namespace) -> int:
    from a2a_lab.harness.cli.gate import gate_exit
    from a2a_lab.harness.reports import html, json_report, junit

    loaded = []
    for path in args.reports:
        try:
            data = userfile.load_json(path, userfile.REPORT)
        except userfile.Refused as exc:
            return refuse(str(exc))
        if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
            return refuse(f"{path}: not an a2a-lab JSON report (no `scenarios` list)")
        loaded.append(data)
    try:
        merged = merge(loaded, args.strict, args.name)
    except ValueError as exc:
        return refuse(str(exc))
    out = sys.stderr if str(args.json) == STDOUT else sys.stdout  # `--json -`: the report alone on stdout
    if args.json:
        joined = merged[0] if len(merged) == 1 else {"reports": merged}
        if out is sys.stderr:
            print(json.dumps(joined, indent=1, ensure_ascii=False))
        else:
            json_report.write(args.json, joined)
    if args.junit:
        for i, report in enumerate(merged):
            target = (
                args.junit
                if len(merged) == 1
                else args.junit.with_name(f"{args.junit.stem}-{i + 1}{args.junit.suffix}")
            )
            junit.write(target, report, args.strict, args.junit_skipped)
    if args.html:
        say(f"wrote {html.write(args.html, merged, args.compare)}")
    for report in merged:
        summary = report["summary"]
        print(
            escape.console(
                f"{report['name'] or report['client']}: {summary['verdict']} "
                f"({summary['scenarios']} scenarios from {report['merged_from']} report(s))"
            ),
            file=out,
        )
    return max((gate_exit(r["summary"]) for r in merged), default=Exit.OK)  # the worst gate


COMMAND = Command(
    "report",
    "merge JSON reports of several runs or shards into JSON, JUnit and HTML",
    add_arguments,
    cmd_report,
    examples=("a2a-lab report merge shard-1/report.json shard-2/report.json --html merged --junit merged/junit.xml",),
    exit_codes=(
        (Exit.OK, "every merged report's gate passed"),
        (Exit.FAILED, "a merged report's gate failed"),
        (Exit.USAGE, "a report that cannot be read, a path that cannot be written"),
    ),
)
