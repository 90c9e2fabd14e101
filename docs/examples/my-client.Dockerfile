# An image for docs/examples/compose-my-client.yml: your client, with a2a-lab next to it to drive it.
FROM python:3.11-slim
RUN pip install --no-cache-dir a2a-lab
# Your client: here a Python package in ./my-client that installs a `my-client` command; for another language,
# install its runtime (apt-get install nodejs ...) and copy your build instead.
COPY my-client /opt/my-client
RUN pip install --no-cache-dir /opt/my-client
