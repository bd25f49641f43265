"""Hostile configuration (issue 31, classes 5 and 6): every ``ARTIFACT_LENS_*`` variable and every
URL-shaped flag, generated, is one clear ``error:`` line before any work (never a traceback, never
a hang), and no password reaches a message. The variables are read from `core.base.settings.VARIABLES`,
so a new setting is covered the day it is added."""
from __future__ import annotations

import contextlib
import io
import os
import socket
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.cli import main
from artifact_lens.base.settings import VARIABLES, printable

SECRET = "S3cr"
QUICK = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))
HOSTILE_VALUES = ["nan", "inf", "-inf", "1e300", "-1", "0", "abc", "~nouser-artifact-lens/x", "１", " ", "1e-300",
                  "99999999999999999999", "tcp://", "postgresql://u:" + SECRET + "@t@h/db", "sqlite:///",
                  "x" * 5000, "\t", "~", "umap;rm -rf /", "@", "pca\n"]


def _cli(argv, env, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _clear(code, out, err, argv):
    assert code in (0, 2), (argv, code, err)
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    if code == 2:
        assert len([line for line in err.splitlines() if line.startswith("error:")]) == 1, (argv, err)
    assert SECRET not in err and SECRET not in out, (argv, err)


@QUICK
@given(variable=st.sampled_from(sorted(VARIABLES.values())), value=st.sampled_from(HOSTILE_VALUES))
def test_every_setting_with_a_hostile_value_is_one_clear_line(tmp_path_factory, monkeypatch, variable, value):
    cache = tmp_path_factory.mktemp("cache")
    env = {"ARTIFACT_LENS_CACHE": str(cache), variable: value}
    argv = ["-q", "info", "demo:nli:n=60"]
    with monkeypatch.context() as m:
        code, out, err = _cli(argv, env, m)
    _clear(code, out, err, argv)


def _not_a_database(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 50)
    return f"sqlite:///{path}"


URLS = {
    "garbage": lambda t: "not a url at all",
    "unknown driver": lambda t: f"nosuchdb://u:{SECRET}@h/db",
    "missing driver": lambda t: f"mysql+pymysql://u:{SECRET}@127.0.0.1:1/db",
    "empty sqlite": lambda t: "sqlite:///",
    "memory sqlite": lambda t: "sqlite://",
    "not a database": _not_a_database,
    "closed port, @ in password": lambda t: f"postgresql+psycopg://u:{SECRET}@x@127.0.0.1:1/db",
    "password parameter": lambda t: f"postgresql+psycopg://u@127.0.0.1:1/db?password={SECRET}",
}


@pytest.mark.parametrize("kind", sorted(URLS))
def test_every_hostile_database_url_is_one_clear_line_without_its_password(tmp_path, monkeypatch, kind):
    url = URLS[kind](tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    contents = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    argv = ["-q", "--cache-dir", str(tmp_path / "cache"), "agreement", "--db", url, "--workspace", "w", "--run", "r",
            "--as", "a@example.org"]
    code, out, err = _cli(argv, {}, monkeypatch)
    _clear(code, out, err, argv)
    assert code == 2
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in before} == contents   # nothing touched
    # the same through the store itself, and as the app's server would read it
    from artifact_lens.base.errors import InputError
    from artifact_lens.team.store import TeamStore

    if kind != "not a database" and not url.startswith("sqlite"):
        with pytest.raises(InputError) as caught:
            TeamStore(url)
        assert SECRET not in str(caught.value)


@QUICK
@given(password=st.text(st.sampled_from("abcXYZ019@:!$%&*+=;,~-_."), min_size=1, max_size=30),
       user=st.sampled_from(["u", "bob.smith", ""]), rest=st.sampled_from(["/db", ":5432/db?sslmode=require", "", "/"]),
       scheme=st.sampled_from(["postgresql", "postgresql+psycopg", "tcp", "https"]))
def test_no_password_survives_printable(password, user, rest, scheme):
    url = f"{scheme}://{user}:{SECRET}{password}@db.example.org{rest}"
    shown = printable(f"error: cannot reach {url} (refused)")
    assert SECRET not in shown and "db.example.org" in shown
    query = printable(f"{scheme}://h/db?user=u&password={SECRET}{password.replace('&', '')}&x=1")
    assert SECRET not in query


def test_a_server_that_accepts_and_never_answers_is_not_waited_on():
    """A Dask address that accepts connections and never answers is named, not waited on for
    minutes (the probe waits for the scheduler's handshake, ``timeout`` seconds at most)."""
    from artifact_lens.aflite.distributed import ClusterError, connect

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted = []
    done = threading.Event()

    def accept():
        while not done.is_set():
            try:
                conn, _ = listener.accept()
                accepted.append(conn)   # held open, never written to
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        with pytest.raises(ClusterError, match="no Dask handshake"):
            connect(f"tcp://127.0.0.1:{listener.getsockname()[1]}", timeout=1.0)
    finally:
        done.set()
        listener.close()
        for conn in accepted:
            conn.close()


@pytest.mark.parametrize("flag", ["--cache-dir-is-a-file", "--cache-dir-holds-the-input", "--cache-dir-~nouser"])
def test_a_cache_folder_that_would_write_beside_the_data_is_refused(tmp_path, monkeypatch, flag):
    data = tmp_path / "data"
    data.mkdir()
    (data / "nli.csv").write_text("premise,hypothesis,label\n" + "".join(
        f"A man {i}.,Nobody {i % 3}.,{['entailment', 'neutral', 'contradiction'][i % 3]}\n" for i in range(30)))
    cache = {"--cache-dir-is-a-file": str(data / "nli.csv"), "--cache-dir-holds-the-input": str(data),
             "--cache-dir-~nouser": "~nouser-artifact-lens/cache"}[flag]
    before = sorted(p.name for p in data.iterdir())
    argv = ["-q", "--cache-dir", cache, "zstats", str(data / "nli.csv"), "--min-count", "2", "--out", str(tmp_path / "z.csv")]
    code, out, err = _cli(argv, {}, monkeypatch)
    _clear(code, out, err, argv)
    assert code == 2 and "--cache-dir" in err
    assert sorted(p.name for p in data.iterdir()) == before


@pytest.mark.app
def test_the_app_shows_a_bad_setting_and_keeps_running(tmp_path, monkeypatch):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path))
    monkeypatch.setenv("ARTIFACT_LENS_RUN_LEASE", "1e300")
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert any("ARTIFACT_LENS_RUN_LEASE" in e.value for e in at.error)


@pytest.mark.parametrize("address", [f"tcp://u:{SECRET}@127.0.0.1:1", f"bogus://u:{SECRET}@h:1",
                                     f"tcp://u:{SECRET}@h", f"tcp://u:{SECRET}@127.0.0.1:99999"])
def test_a_hostile_scheduler_address_is_one_clear_line_without_its_password(tmp_path, monkeypatch, address):
    argv = ["-q", "--cache-dir", str(tmp_path / "cache"), "aflite", "demo:nli:n=60", "-r", "tfidf-svd:dim=4",
            "--scheduler", address, "--out", str(tmp_path / "o.csv")]
    code, out, err = _cli(argv, {}, monkeypatch)
    _clear(code, out, err, argv)
    assert code == 2 and not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("before", [None, "elsewhere"])
@pytest.mark.parametrize("args", [["info", "demo:nli:n=60"], ["info", "no-such-file.csv"]])
def test_cache_dir_leaves_the_environment_as_it_was(tmp_path, monkeypatch, capsys, before, args):
    """Issue 33 (side channels): --cache-dir points the cache at its folder for the command only; a
    caller of `core.cli.main` (a notebook, a test, a server) finds its environment unchanged,
    whether the command succeeded or failed."""
    from artifact_lens.cli import main

    if before is None:
        monkeypatch.delenv("ARTIFACT_LENS_CACHE", raising=False)
    else:
        monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / before))
    main(["--cache-dir", str(tmp_path / "cache"), *args])
    capsys.readouterr()
    assert os.environ.get("ARTIFACT_LENS_CACHE") == (None if before is None else str(tmp_path / before))


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40))
def test_the_apps_owner_flag_is_checked_and_handed_to_the_sign_in(address):
    """``streamlit run app.py -- --owner EMAIL`` reaches the sign-in through app.py, never through a
    read of ``sys.argv``: an address is kept (lower case), anything else is one configuration error
    naming ``--owner``, and without the flag the setting decides."""
    from artifact_lens.base.settings import settings as current
    from artifact_lens.dashboard.process import arguments as identity
    from artifact_lens.dashboard.services import navigation, team

    try:
        problem = navigation.configuration_error(["--owner", address])
        if address.strip() and "@" not in address:
            assert problem is not None and "--owner" in problem
        else:
            assert problem is None
            assert identity.app_owner() == (address.strip().lower() or None)
            assert team.owner_setting() == (address.strip().lower() or current().owner)
    finally:
        navigation.configuration_error([])
    assert identity.app_owner() is None and team.owner_setting() == current().owner
