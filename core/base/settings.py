"""Every ``ARTIFACT_LENS_*`` setting in one typed object, validated in one place.

`settings()` reads the environment and returns a frozen `Settings`; a bad value raises one
`SettingsError` that names the variable, what it holds and what to give instead. It is parsed
again only when the environment changed (tests and a server restart may point it elsewhere),
so callers just call `settings()` where they need a value.

A dataclass with a table of parsers, not pydantic-settings: a dozen variables do not need a new
dependency, and the table is what the docs list (a test checks that each one is documented).
"""
from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
import math
import os
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Optional

from .errors import InputError
from .escaping import cut_middle
from .devices import known

__all__ = ["Settings", "SettingsError", "settings", "settings_of", "using_cache", "VARIABLES", "printable", "printable_message",
           "expand_path"]


class SettingsError(InputError):
    """A setting with a value the tool cannot use (the message names the variable and the fix)."""


@dataclass(frozen=True)
class Settings:
    cache: Path                    #: ARTIFACT_LENS_CACHE: caches, uploads, runs; the SQLite team store by default
    db_url: str                    #: ARTIFACT_LENS_DB_URL: SQLAlchemy URL of the team store
    cache_mb: float                #: ARTIFACT_LENS_CACHE_MB: memory budget of the server cache
    uploads_mb: float              #: ARTIFACT_LENS_UPLOADS_MB: disk budget for uploads
    #: ARTIFACT_LENS_RESULTS_MB: disk budget of the computed results (runs, evaluations, quality tables,
    #: maps); past it a starting server deletes the least recently used (`core.base.result_store.prune`)
    results_mb: float
    data_dirs: tuple               #: ARTIFACT_LENS_DATA_DIRS: folders the Data page's "Local path" may read
    #: ARTIFACT_LENS_MAP: the background map: umap (seeded, one core), umap-parallel (every core, not
    #: reproducible) or pca
    map: str
    #: ARTIFACT_LENS_MAP_POINTS: most points the Map draws; above it a seeded sample (WebGL in headless
    #: Chromium stays interactive at 100k; the figure is ~4.6 MB of JSON there, short hover)
    map_points: int
    #: ARTIFACT_LENS_MAP_TEXT_POINTS: above this many drawn points the hover shows id and label only
    #: (p̃, status and text snippets were ~85 % of a 100k-point figure's JSON, 18.5 of 21 MB)
    map_text_points: int
    owner: Optional[str]           #: ARTIFACT_LENS_OWNER: owner of the default workspace
    job_workers: int               #: ARTIFACT_LENS_JOB_WORKERS: background jobs that compute at once
    #: ARTIFACT_LENS_RUN_LEASE: seconds a running run's lease lasts without a heartbeat; past it,
    #: another server on the same database marks the run interrupted
    run_lease: float
    #: ARTIFACT_LENS_STOP_DEADLINE: seconds from SIGTERM to a forced end of the app (the backstop when a
    #: clean stop does not finish); below a container's grace period (Docker: 10 s) so the tool, not
    #: SIGKILL, decides
    stop_deadline: float
    #: ARTIFACT_LENS_SCHEDULER: address of a Dask scheduler (tcp://HOST:PORT) that runs the heavy
    #: steps of background jobs; unset: they run in this process
    scheduler: Optional[str]
    #: ARTIFACT_LENS_DEVICE: where AFLite's ridge family and the cartography's training compute
    #: (`core.base.devices`): unset for the CPU, cuda, cuda:N, torch, cupy or array-api
    device: Optional[str]
    #: ARTIFACT_LENS_ALLOW_SINGLE_USER: 1 lets the Docker image serve without sign-in (a trusted,
    #: one-person machine); read by ``deploy/preflight.py``
    allow_single_user: bool


#: what a ``[auth]`` section of ``.streamlit/secrets.toml`` must hold for sign-in (OIDC)
AUTH_KEYS = ("redirect_uri", "cookie_secret", "client_id", "client_secret", "server_metadata_url")

#: field -> (variable, default text for the docs)
VARIABLES = {f.name: "ARTIFACT_LENS_" + f.name.upper() for f in fields(Settings)}


#: characters a URL's scheme is made of (RFC 3986: a letter, then letters, digits, "+", "." or "-")
_SCHEME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
#: where a URL ends in a message
_URL_END = re.compile(r"[\s'\"<>]")
#: a query parameter's name and value (the name is then checked: `_secret_name`)
_PARAM = re.compile(r"([?&;])([A-Za-z_]*)=([^&;#\s]*)")
_HOST = re.compile(r"[A-Za-z0-9.\-\[\]:%]*(?=[/?#]|$)")


def _secret_name(name: str) -> bool:
    name = name.lower()
    return name == "pwd" or name.endswith("key") or any(w in name for w in ("pass", "secret", "token"))


def _hidden(rest: str) -> str:
    """A URL after its ``scheme://`` with the password and every secret query parameter as ``***``."""
    rest = _PARAM.sub(lambda m: m.group(1) + m.group(2) + "=" + ("***" if _secret_name(m.group(2)) else m.group(3)),
                      rest)
    # the user information ends at the last '@' that has a ':' before it and a host[:port] after
    # it (a password may hold '@', ':' or '/'; an '@' in a path or a query has no host after it)
    colon = rest.find(":")
    if colon < 0:
        return rest
    end = -1
    at = rest.find("@", colon)
    while at >= 0:
        if _HOST.match(rest, at + 1):
            end = at
        at = rest.find("@", at + 1)
    return rest if end < 0 else f"{rest[:colon]}:***" + rest[end:]


def printable(text) -> str:
    """``text`` (a URL, a setting, an error message holding either) with every URL's password and
    every secret query parameter replaced by ``***``: the one way a URL reaches a message.

    Linear in the length of ``text`` (an error line can quote megabytes of a user's input): each
    ``://`` is found once, its scheme read backwards no further than the previous URL's end."""
    text = str(text)
    out, done = [], 0
    sep = text.find("://")
    while sep >= 0:
        start = sep
        while start > done and text[start - 1] in _SCHEME:
            start -= 1
        while start < sep and not text[start].isalpha():
            start += 1   # a scheme starts with a letter (all of _SCHEME is ASCII)
        if start == sep:   # no scheme before it: not a URL
            sep = text.find("://", sep + 3)
            continue
        found = _URL_END.search(text, sep + 3)
        end = found.start() if found else len(text)
        out += [text[done:sep + 3], _hidden(text[sep + 3:end])]
        done = end
        sep = text.find("://", end)
    out.append(text[done:])
    return "".join(out)


def printable_message(message) -> str:
    """An error line as the CLI prints it: `printable`, cut in the middle (`cut_middle`), and every
    control or reordering character a quoted value holds (a column name's escape codes) shown, not
    obeyed (`core.base.escaping.terminal_lines`)."""
    from .escaping import terminal_lines

    return terminal_lines(cut_middle(printable(message)))


def expand_path(raw: str, what: str) -> Path:
    """``raw`` with ``~`` expanded; a ``~user`` that names no user is a clear InputError."""
    try:
        return Path(raw).expanduser()
    except RuntimeError:
        raise InputError(f"{what}={raw!r} starts with a ~user this machine does not know; give a full path.") from None


def _number(name: str, raw: str, least: float, unit: str, whole: bool = False, most: float = 1e12):
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise SettingsError(f"{VARIABLES[name]}={raw!r} is not {'a whole number' if whole else 'a number'}; give "
                            f"{unit}, e.g. {VARIABLES[name]}={'1000' if whole else '1024'}, or unset it.") from None
    if not (math.isfinite(value) and least <= value <= most):
        raise SettingsError(f"{VARIABLES[name]}={raw!r} must be a finite number from {least:g} to {most:g} {unit}; "
                            "give one, or unset it for the default.")
    return value


def owner_address(raw: Optional[str], what: str) -> Optional[str]:
    """The owner's e-mail address as the identity provider sends it (lower case), None when
    unset; SettingsError naming ``what`` when it is not an address."""
    owner = (raw or "").strip().lower() or None
    if owner is not None and "@" not in owner:
        raise SettingsError(f"{what}={raw!r} is not an e-mail address; give the owner's address as the identity "
                            "provider sends it, or unset it.")
    return owner


def _parse(env: tuple) -> Settings:
    raw = dict(env)
    try:
        cache = expand_path(raw["cache"], VARIABLES["cache"]) if raw["cache"] else Path.home() / ".cache" / "artifact-lens"
        data_dirs = [expand_path(p, VARIABLES["data_dirs"]).resolve()
                     for p in (raw["data_dirs"] or "").split(os.pathsep) if p.strip()] or [Path.cwd(), cache.resolve()]
    except InputError as exc:
        raise SettingsError(str(exc)) from None
    except (OSError, RuntimeError) as exc:   # no home folder, a looping link
        raise SettingsError(f"{VARIABLES['cache']} or {VARIABLES['data_dirs']} cannot be used ({exc}); give full "
                            "paths of folders.") from None
    method = (raw["map"] or "umap").strip().lower()
    if method not in ("umap", "umap-parallel", "pca"):
        raise SettingsError(f"ARTIFACT_LENS_MAP={raw['map']!r} is not a map this tool computes; give umap (the "
                            "default: seeded, on one core), umap-parallel (on every core, not reproducible) or pca.")
    owner = owner_address(raw["owner"], VARIABLES["owner"])
    if raw["allow_single_user"] not in ("", "0", "1"):
        raise SettingsError(f"ARTIFACT_LENS_ALLOW_SINGLE_USER={raw['allow_single_user']!r} is neither 1 nor 0; give 1 to "
                            "serve without sign-in on a trusted machine, or unset it.")
    scheduler = raw["scheduler"] or None
    if scheduler is not None and not re.fullmatch(r"(tcp|tls|ucx|inproc)://[^\s/]+(:\d+)?/?", scheduler):
        raise SettingsError(f"ARTIFACT_LENS_SCHEDULER={raw['scheduler']!r} is not a Dask scheduler address; give one "
                            "such as tcp://10.0.0.5:8786 (what `dask scheduler` prints), or unset it to compute "
                            "in this process.")
    device = (raw["device"] or "").strip().lower() or None
    if device is not None and not known(device):
        raise SettingsError(f"ARTIFACT_LENS_DEVICE={raw['device']!r} is not a device this tool computes on; give cuda, "
                            "cuda:N, torch, cupy or array-api, or unset it for the CPU.")
    return Settings(
        cache=cache,
        db_url=raw["db_url"] or f"sqlite:///{cache / 'team.sqlite'}",
        cache_mb=_number("cache_mb", raw["cache_mb"], 1, "megabytes") if raw["cache_mb"] else 1024.0,
        uploads_mb=_number("uploads_mb", raw["uploads_mb"], 0, "megabytes") if raw["uploads_mb"] else 2048.0,
        results_mb=_number("results_mb", raw["results_mb"], 1, "megabytes") if raw["results_mb"] else 20_000.0,
        data_dirs=tuple(data_dirs),
        map=method,
        map_points=_number("map_points", raw["map_points"], 1, "points", whole=True, most=1e8) if raw["map_points"] else 200_000,
        map_text_points=(_number("map_text_points", raw["map_text_points"], 0, "points", whole=True, most=1e8)
                         if raw["map_text_points"] else 20_000),
        owner=owner,
        job_workers=(_number("job_workers", raw["job_workers"], 1, "jobs", whole=True, most=1024) if raw["job_workers"]
                     else max(1, os.cpu_count() or 1)),
        run_lease=_number("run_lease", raw["run_lease"], 3, "seconds", most=86_400) if raw["run_lease"] else 60.0,
        stop_deadline=(_number("stop_deadline", raw["stop_deadline"], 1, "seconds", most=86_400)
                       if raw["stop_deadline"] else 8.0),
        scheduler=scheduler,
        device=None if device == "numpy" else device,
        allow_single_user=raw["allow_single_user"] == "1",
    )


@functools.lru_cache(maxsize=8)
def _cached(env: tuple, cwd: str) -> Settings:
    return _parse(env)


#: a command's own cache folder (``artifact-lens --cache-dir``), set by `using_cache` for the
#: command's length in its context: passed down explicitly, never written into the environment
_CACHE_FOLDER: ContextVar[Optional[str]] = ContextVar("artifact_lens_cache_folder", default=None)


@contextmanager
def using_cache(folder):
    """Within the block, `settings` reads ``folder`` as ``ARTIFACT_LENS_CACHE`` (and everything that
    follows from it: the cache, the default team database), in this context only: other threads'
    and the process's environment are left as they are."""
    token = _CACHE_FOLDER.set(str(folder))
    try:
        yield
    finally:
        _CACHE_FOLDER.reset(token)


def settings() -> Settings:
    """The settings of the current environment (parsed once per distinct environment), with a
    command's own cache folder (`using_cache`) in place of ``ARTIFACT_LENS_CACHE``."""
    folder = _CACHE_FOLDER.get()
    return settings_of(os.environ if folder is None else {**os.environ, VARIABLES["cache"]: folder})


def settings_of(environ) -> Settings:
    """The settings an environment (a mapping of variables, such as a server's about to start) gives;
    SettingsError names the variable that cannot be used."""
    env = tuple((name, (environ.get(var) or "").strip()) for name, var in VARIABLES.items())
    return _cached(env, os.getcwd())
