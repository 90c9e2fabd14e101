"""The `a2a-lab` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from a2a_lab.server.catalogue import Catalogue, resolve
from a2a_lab.server.scenario import ScenarioError

from . import catalogue_view

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_HARNESS = 0, 1, 2, 3


def _err(text: str) -> None:
    print(f"a2a-lab: {text}", file=sys.stderr)


def cmd_scenarios(args: argparse.Namespace) -> int:
    cat = Catalogue.load()
    for sid, exc in sorted(cat.broken.items()):
        _err(f"scenario {sid} is broken and was skipped:\n  {exc}")
    if args.action == "show":
        if not args.id:
            _err("usage: a2a-lab scenarios show ID")
            return EXIT_USAGE
        try:
            scenario = resolve(args.id, cat)
        except (KeyError, ScenarioError) as exc:
            _err(str(exc).strip('"'))
            return EXIT_USAGE
        print(catalogue_view.explain(scenario))
        return EXIT_OK
    scenarios = list(cat.scenarios.values())
    if args.json:
        print(json.dumps(catalogue_view.as_json(scenarios, cat.broken), indent=2))
    elif args.markdown:
        print(catalogue_view.as_markdown(scenarios), end="")
    else:
        print(catalogue_view.as_table(scenarios))
    return EXIT_OK if not cat.broken else EXIT_USAGE


def cmd_serve(args: argparse.Namespace) -> int:
    from a2a_lab.server.app import CatalogueApp, ScenarioApp
    from a2a_lab.server.hosting import PortInUse, serve_forever

    cat = Catalogue.load()
    for sid, exc in sorted(cat.broken.items()):
        _err(f"scenario {sid} is broken and was skipped:\n  {exc}")
    try:
        if args.scenario:
            scenario = resolve(args.scenario, cat)
            app: object = ScenarioApp(scenario)
            where = f"scenario {scenario.id} at the origin root"
        else:
            app = CatalogueApp(list(cat.scenarios.values()))
            where = f"{len(cat.scenarios)} scenarios under /<scenario-id>/"
    except (KeyError, ScenarioError) as exc:
        _err(str(exc).strip('"'))
        return EXIT_USAGE
    def ready(url: str) -> None:
        print(f"a2a-lab: serving {where} on {url} (Ctrl-C to stop)", file=sys.stderr, flush=True)

    try:
        serve_forever(app, args.host, args.port, args.log_level, on_ready=ready)
    except PortInUse as exc:
        _err(str(exc))
        return EXIT_USAGE
    except OSError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def cmd_client(args: argparse.Namespace) -> int:
    """The reference client: discover the card, send one message, follow up, print what was understood."""
    import os

    from a2a_lab.protocol.bindings import SHORT_NAMES

    from .refclient import DEFAULT_TEXT, ENV_CARD_URL, ENV_MESSAGE, ClientOptions, render_text, report_to_env, run

    target = args.card_url or os.environ.get(ENV_CARD_URL)
    if not target:
        _err(f"usage: a2a-lab client CARD_URL [TEXT] (or set {ENV_CARD_URL})")
        return EXIT_USAGE
    if args.follow < 0 or args.timeout <= 0:
        _err("--follow must be >= 0 and --timeout > 0")
        return EXIT_USAGE
    text = args.text if args.text is not None else os.environ.get(ENV_MESSAGE, DEFAULT_TEXT)
    options = ClientOptions(follow=args.follow, stream=args.stream, binding=SHORT_NAMES[args.binding] if args.binding else None,
                            read_timeout=args.timeout)
    result = run(target, text, options)
    try:
        report_to_env(result)
    except OSError as exc:
        _err(f"cannot write the result file: {exc}")
    print(json.dumps(result.to_json(), indent=2, ensure_ascii=False) if args.json else render_text(result), flush=True)
    return result.exit_code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="a2a-lab", description="A2A test server and client conformance harness.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("scenarios", help="list the scenario catalogue, or explain one scenario")
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("id", nargs="?", help="scenario id (with `show`)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="machine-readable list")
    fmt.add_argument("--markdown", action="store_true", help="the catalogue as a Markdown table")
    p.set_defaults(func=cmd_scenarios)

    p = sub.add_parser("serve", help="serve one scenario at the origin root, or all of them under /<scenario-id>/")
    p.add_argument("scenario", nargs="?", help="scenario id or path to a scenario YAML file (default: the whole catalogue)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(func=cmd_serve)

    from . import checks_view, merge_command, run_command
    from .cardcheck import command as card_command

    p = sub.add_parser("report", help="merge JSON reports of several runs or shards into JSON, JUnit and HTML")
    merge_command.add_arguments(p)
    p.set_defaults(func=merge_command.cmd_report)

    p = sub.add_parser("card", help="check an agent card offline: lint, derived requests, signatures")
    card_command.add_arguments(p)
    p.set_defaults(func=card_command.cmd_card)

    p = sub.add_parser("checks", help="list the check catalogue (ids, levels, spec sections)")
    checks_view.add_arguments(p)
    p.set_defaults(func=checks_view.cmd_checks)

    p = sub.add_parser("run", help="run a client against every scenario and score it (default: the built-in client, whole catalogue)")
    run_command.add_arguments(p)
    p.set_defaults(func=run_command.cmd_run)

    from a2a_lab.protocol.bindings import SHORT_NAMES, Binding

    from .refclient import options as client_options

    p = sub.add_parser("client", help="the reference client: send one message to an agent and print what it understood")
    p.add_argument("card_url", nargs="?", help=f"the agent's card URL or base URL (default: ${client_options.ENV_CARD_URL})")
    p.add_argument("text", nargs="?", help=f"the message text (default: ${client_options.ENV_MESSAGE} or {client_options.DEFAULT_TEXT!r})")
    p.add_argument("--follow", type=int, default=client_options.DEFAULT_FOLLOW, metavar="N",
                   help=f"at most N GetTask follow-ups for a running task (default {client_options.DEFAULT_FOLLOW})")
    p.add_argument("--stream", action="store_true", help="stream the answer when the card declares capabilities.streaming")
    p.add_argument("--binding", choices=[k for k, b in SHORT_NAMES.items() if b in (Binding.JSONRPC, Binding.HTTP_JSON)], help="use only this binding")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--timeout", type=float, default=client_options.READ_TIMEOUT_S, metavar="S",
                   help=f"read timeout per request in seconds (default {client_options.READ_TIMEOUT_S:g})")
    p.set_defaults(func=cmd_client)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
