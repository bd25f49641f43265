"""Every ARTIFACT_LENS_* setting: one typed object, one clear message per bad value, documented."""
import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings as hyp_settings, strategies as st

from artifact_lens.base.settings import VARIABLES, SettingsError, settings

ROOT = Path(__file__).resolve().parents[2]
NUMERIC = {"cache_mb": (1, False), "uploads_mb": (0, False), "map_points": (1, True), "map_text_points": (0, True),
           "job_workers": (1, True)}


def test_defaults(monkeypatch, tmp_path):
    for var in VARIABLES.values():
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    s = settings()
    assert s.cache == Path.home() / ".cache" / "artifact-lens"
    assert s.db_url == f"sqlite:///{s.cache / 'team.sqlite'}"
    assert (s.cache_mb, s.uploads_mb, s.map, s.map_points, s.map_text_points, s.owner) == \
        (1024.0, 2048.0, "umap", 200_000, 20_000, None)
    assert s.job_workers == max(1, os.cpu_count() or 1)
    assert s.data_dirs == (tmp_path.resolve(), s.cache.resolve())


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(NUMERIC)),
       raw=st.one_of(st.sampled_from(["0", "1", "-1", "1.5", "1e3", "inf", "nan", "abc", "0x10", "２", "1_000"]),
                     st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=8)))
def test_a_number_setting_is_a_valid_number_or_one_error_naming_it(monkeypatch, name, raw):
    """Property: whatever the value (an environment variable cannot hold NUL), the setting holds a finite number in range, or one
    SettingsError names the variable and the value."""
    var = VARIABLES[name]
    for other in VARIABLES.values():   # examples share the fixture: start each from a clean environment
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(var, raw)
    least, whole = NUMERIC[name]
    try:
        value = getattr(settings(), name)
    except SettingsError as exc:
        assert str(exc).startswith(f"{var}={raw.strip()!r}") and "\n" not in str(exc)
        return
    if raw.strip():
        assert math.isfinite(value) and value >= least and (not whole or isinstance(value, int))


@pytest.mark.parametrize("var, raw, message", [("ARTIFACT_LENS_MAP", "tsne", "give umap"),
                                               ("ARTIFACT_LENS_MAP", "umap-fast", "umap-parallel"),
                                               ("ARTIFACT_LENS_DEVICE", "tpu", "not a device this tool computes on"),
                                               ("ARTIFACT_LENS_OWNER", "bob", "not an e-mail address"),
                                               ("ARTIFACT_LENS_SCHEDULER", "localhost:8786", "tcp://10.0.0.5:8786"),
                                               ("ARTIFACT_LENS_SCHEDULER", "tcp://a b:1", "not a Dask scheduler"),
                                               ("ARTIFACT_LENS_SCHEDULER", "http://h:8787/status", "unset it")])
def test_a_word_setting_is_checked_too(monkeypatch, var, raw, message):
    monkeypatch.setenv(var, raw)
    with pytest.raises(SettingsError, match=message):
        settings()


def test_a_changed_environment_is_read_again(monkeypatch, tmp_path):
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "a"))
    assert settings().cache == tmp_path / "a"
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "b"))
    assert settings().cache == tmp_path / "b"


@pytest.mark.parametrize("raw", ["tcp://10.0.0.5:8786", "tls://scheduler.example.org:8786", "tcp://[::1]:8786"])
def test_a_scheduler_address_is_kept_as_given(monkeypatch, raw):
    monkeypatch.setenv("ARTIFACT_LENS_SCHEDULER", raw)
    assert settings().scheduler == raw


def test_no_scheduler_by_default(monkeypatch):
    monkeypatch.delenv("ARTIFACT_LENS_SCHEDULER", raising=False)
    assert settings().scheduler is None


@pytest.mark.parametrize("raw, method, parallel", [("", "umap", False), ("UMAP", "umap", False),
                                                   ("umap-parallel", "umap", True), (" pca ", "pca", False)])
def test_the_map_setting_names_the_method_and_whether_umap_runs_on_every_core(monkeypatch, raw, method, parallel):
    from artifact_lens.dashboard.services import current, map_settings

    monkeypatch.setenv("ARTIFACT_LENS_MAP", raw)
    assert (map_settings.map_method(), map_settings.map_parallel()) == (method, parallel)
