"""`a2a-lab acts run`: ACTS 0.1.0, the A2A Conformance Test Specification (a draft in a2aproject/A2A), run against a
live server over each binding its card declares, and its client tests against a client command.

    document/      the one reader of ACTS files (YAML or JSON, include, the Appendix A grammar): typed records
    assertions.py  the assertion language (§5), dot-paths, until expressions (§9), variables (§8, §12.2)
    exchange.py    one step on the wire: abstract operations in the binding's request form, raw steps (§4.4)
    defaults.py    the runner's defaults the command line shows (deadlines, the standard behaviours)
    runner.py      tests per binding: applicability and skips, steps, captures, polling, streams (§7)
    clients.py     client tests (§10): golden payloads served to a client command, its parse and its wire judged
    client_forms.py  the forms each payload is served in (one scenario per test), and what a run shows on the wire
    report.py      the ACTS JSON report (§13, §12.7) and a2a-lab's result model (every a2a-lab report)
    command.py     the command line
"""
