"""Issue 63, item 13: ``artifact-lens ui`` started with broken settings. A secrets file that is not TOML
passed its check (the server started, "Failed to load secrets" only in its log), a data folder that
does not exist was accepted, a port in use exited 1 (the status of a failed check), and ``ui --help``
named an address the command does not bind. Each is refused before anything starts, exit 2, naming
the fix; nothing here starts a server."""
import socket

from artifact_lens.cli import REFUSED, main


def _refused(argv, capsys, *words):
    assert main(argv) == REFUSED
    err = capsys.readouterr().err
    assert all(w in err for w in words), err


def test_a_secrets_file_that_is_not_toml_is_refused(tmp_path, capsys):
    bad = tmp_path / "secrets.toml"
    bad.write_text('[auth]\nredirect_uri = "http://localhost:8501/oauth2callback\n')   # an unclosed string
    _refused(["ui", "--print-command", "--secrets", str(bad)], capsys, "is not valid TOML", str(bad))
    bad.write_text('[auth]\nredirect_uri = "http://localhost:8501/oauth2callback"\n')
    assert main(["ui", "--print-command", "--secrets", str(bad)]) == 0


def test_a_data_folder_in_the_environment_that_does_not_exist_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(tmp_path / "nonexistent"))
    _refused(["ui", "--print-command"], capsys, "ARTIFACT_LENS_DATA_DIRS", "nonexistent", "not a folder")
    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(tmp_path))
    assert main(["ui", "--print-command"]) == 0


def test_a_port_in_use_is_refused_before_streamlit_starts(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        _refused(["ui", "--port", str(port), "--headless"], capsys, f"port {port} is in use", "--port")


def test_the_help_names_the_address_the_command_binds(capsys):
    from artifact_lens.usecases.serving import serve_dashboard

    served = serve_dashboard(port=8599)
    bound = served.argv[served.argv.index("--server.address") + 1]
    main(["ui", "--help"])
    assert f"default {bound}" in " ".join(capsys.readouterr().out.split())
