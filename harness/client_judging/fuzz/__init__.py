"""`a2a-lab fuzz`: generated server behaviours (strategies), what makes one a failure (oracles), the search that
draws and shrinks them (search), and the command (command). Only `command` imports without hypothesis installed."""

#: Most case runs spent shrinking one failure (--shrink-runs): what is left then is the smallest case found so far.
SHRINK_RUNS = 100
