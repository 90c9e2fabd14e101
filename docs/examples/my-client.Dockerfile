# An image for docs/examples/compose-my-client.yml: your client, with a2a-lab next to it to drive it.
FROM python:3.11-slim
# a2a-lab from the build context, the a2a-lab checkout the override is used in (no package index serves it): the
# same files as the project's own Dockerfile.
COPY pyproject.toml README.md /opt/a2a-lab/
COPY protocol /opt/a2a-lab/protocol
COPY contract /opt/a2a-lab/contract
COPY server /opt/a2a-lab/server
COPY harness /opt/a2a-lab/harness
COPY scenarios /opt/a2a-lab/scenarios
RUN pip install --no-cache-dir /opt/a2a-lab
# Your client: here a Python package in ./my-client that installs a `my-client` command; for another language,
# install its runtime (apt-get install nodejs ...) and copy your build instead.
COPY my-client /opt/my-client
RUN pip install --no-cache-dir /opt/my-client
