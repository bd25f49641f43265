"""The shipped server settings, checked on a real `streamlit run app.py` started from the project folder."""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port):
    """Local addresses (hex, as in /proc/net/tcp) of the sockets listening on ``port``."""
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if int(hex_port, 16) == port and state == "0A":   # 0A = LISTEN
                out.append(address)
    return out


@pytest.fixture(scope="module")
def started(tmp_path_factory):
    port = _free_port()
    cache = tmp_path_factory.mktemp("cache")
    env = dict(os.environ, ARTIFACT_LENS_CACHE=str(cache), HF_HUB_OFFLINE="1", ARTIFACT_LENS_MAP="pca")
    log = open(cache / "streamlit.log", "w")
    # no --server.address: what `make demo` / `streamlit run app.py` get from .streamlit/config.toml
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).status == 200:
                break
        except OSError:
            time.sleep(0.3)
    else:
        proc.terminate()
        pytest.fail("streamlit did not start: " + (cache / "streamlit.log").read_text()[-2000:])
    yield port
    proc.terminate()
    proc.wait(10)


def test_the_server_listens_on_loopback_only(started):
    addresses = _listening(started)
    assert addresses and set(addresses) == {"0100007F"}, addresses   # 127.0.0.1, nothing else


def test_the_project_config_hides_error_details_and_caps_uploads():
    code = ("import streamlit.config as c; c.get_config_options(force_reparse=True); "
            "print(c.get_option('client.showErrorDetails'), c.get_option('server.maxUploadSize'), "
            "c.get_option('server.address'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["none", "200", "127.0.0.1"]
