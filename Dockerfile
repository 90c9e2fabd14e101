FROM python:3.11-slim
RUN useradd --create-home --uid 10001 lab
WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir . && rm -rf /root/.cache
USER lab
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/spec/conformant/.well-known/agent-card.json', timeout=2); sys.exit(0)"
CMD ["a2a-lab", "serve", "--host", "0.0.0.0", "--port", "8000"]
