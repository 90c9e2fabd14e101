"""Adapters that drive real third-party A2A clients through the harness handshake."""
