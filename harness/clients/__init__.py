"""The lab acting as a client: the reference client (refclient/, `python -m a2a_lab.harness.clients.refclient`)
and adapters that drive third-party clients through the lab's handshake (adapters/). Judged like any other
client; imports nothing of the command line or of what judges."""
