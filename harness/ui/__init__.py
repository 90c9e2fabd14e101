"""`a2a-lab ui`: what a2a-lab does, in a browser, judged as it happens. Four pages, each on the existing machinery:
check a card (the card check, then the probe), talk to an agent (the reference client through the proxy, judged by
the proxy's checks), test a client live (a run of the shared server, scored as `a2a-lab score` scores it; or a proxy
between a real client and a real server), open a report (the JSON report reader and the HTML report's parts).

Safe by default (guard.py): loopback only unless told, a per-launch token, Host and Origin checked, no command run
for a page, every input bounded by the reader that bounds it on the command line.
"""
