# a2a-lab: the scenario server and the harness in one slim image.
FROM python:3.11-slim
RUN useradd --create-home --uid 10001 lab && mkdir -p /reports && chown lab /reports
WORKDIR /app
COPY pyproject.toml README.md ./
COPY protocol ./protocol
COPY contract ./contract
COPY server ./server
COPY harness ./harness
COPY scenarios ./scenarios
# Its default dependencies, gRPC's included: the image serves and scores every scenario (tests/test_packaging.py).
RUN pip install --no-cache-dir . && rm -rf /root/.cache
USER lab
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/spec/conformant/.well-known/agent-card.json', timeout=2)"]
CMD ["a2a-lab", "serve", "--host", "0.0.0.0", "--port", "8000"]
