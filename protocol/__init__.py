"""The A2A protocol core: versions, bindings, operations, states, errors, shapes and cards.

This package is the one place that knows protocol facts (method names, paths, enum spellings,
error codes). It does no I/O and knows nothing about HTTP servers or processes.
"""
