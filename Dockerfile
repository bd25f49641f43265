# Artifact Lens, hosted for a team (README: "Hosting for a team").
#   docker build -t artifact-lens .        (or: docker compose up -d, with compose.yaml)
# Serves the dashboard on port 8501 as an unprivileged user. State lives in two volumes:
#   /var/lib/artifact-lens  ARTIFACT_LENS_CACHE: caches, uploads and team-files/ (the run
#                           files of the team store: back them up with the database)
#   /data                   datasets people may load by path (ARTIFACT_LENS_DATA_DIRS); mount read-only
# The wheel: built from the files pyproject.toml installs (the library, the dashboard, its pages and
# assets, the documentation); the served stage below installs it.
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY core/ core/
COPY dashboard/ dashboard/
COPY pages/ pages/
COPY assets/ assets/
COPY docs/ docs/
RUN pip wheel --quiet --no-deps --wheel-dir /dist .

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# The user the server runs as. Bind-mounted files (deploy/secrets.toml, data) must be readable
# by this uid/gid; see the README.
ARG APP_UID=10001
RUN groupadd --gid "${APP_UID}" lens \
 && useradd --uid "${APP_UID}" --gid lens --create-home --home-dir /home/lens --shell /usr/sbin/nologin lens

WORKDIR /app

# The installed wheel, built in the first stage from the same files a `pip install` reads (extras
# "ui": Streamlit; "postgres": the psycopg driver). The image runs what pip installs, not a checkout:
# no source is copied into this stage.
COPY --from=wheel /dist /dist
RUN pip install "$(ls /dist/artifact_lens-*.whl)[ui,postgres]" && rm -rf /dist

# The hosting config (read from the working folder, /app) and the entrypoint check.
COPY deploy/config.toml .streamlit/config.toml
COPY deploy/preflight.py deploy/preflight.py

# Code stays root-owned (read-only for the server); only the state folder is the user's.
# A fresh named volume mounted there takes over this ownership.
ENV ARTIFACT_LENS_CACHE=/var/lib/artifact-lens \
    ARTIFACT_LENS_DATA_DIRS=/data \
    NUMBA_CACHE_DIR=/var/lib/artifact-lens/numba \
    HF_HOME=/var/lib/artifact-lens/huggingface
# Not forced: a host with network may load Hub datasets. An offline host sets it at run time
# (`-e HF_HUB_OFFLINE=1`, or in compose.yaml) so Hub names fail at once instead of timing out.
# ENV HF_HUB_OFFLINE=1
RUN mkdir -p /var/lib/artifact-lens /data && chown lens:lens /var/lib/artifact-lens
VOLUME ["/var/lib/artifact-lens", "/data"]

USER lens
EXPOSE 8501
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://localhost:8501/_stcore/health', timeout=4).status == 200 else 1)"]

# preflight.py refuses to serve the network without sign-in configured, then execs the command.
ENTRYPOINT ["python", "/app/deploy/preflight.py"]
CMD ["artifact-lens", "ui", "--headless", "--address", "0.0.0.0", "--port", "8501"]
