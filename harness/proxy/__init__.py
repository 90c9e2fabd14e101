"""`a2a-lab proxy --upstream URL`: a reverse proxy between a real client and a real A2A server that journals every
exchange with the server's own journal record, judges the client with the client checks that need no scenario and
the server with the probe's checks read passively, and can write what the server did as a replayable scenario."""
