"""The spec language of representations: ``KIND[:key=value,…]``, its kinds and options, and the
canonical form that names a representation in caches and run keys (see `core.representations`)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ..data.dataset import Dataset
from ..base.bounds import DIM
from ..base.errors import InputError
from ..base.registry import Registry


@dataclass(frozen=True)
class Kind:
    """A kind of representation, declared once (`register_kind`; the built-in ones in
    `core.representations.kinds`): the spec language, `represent`, the Data page, the CLI's help and
    the docs read everything about it from here."""

    name: str
    options: dict                 #: option -> default (None: required, or derived from the dataset)
    example: str                  #: a spec of this kind, for messages and help
    description: str              #: what it is, as the Data page lists it
    build: Callable               #: builder(dataset, opts, *, messages, info, progress, cancel, cache_dir) -> (X, excluded ids)
    check: Optional[Callable] = None   #: check(dataset, opts, kind): validate and fill ``opts`` in place
    pairs: bool = False           #: made for preference pairs (and the only kinds a dataset of pairs takes)
    items: bool = False           #: made for multiple-choice items (and the only kinds a dataset of items takes)
    page_inputs: tuple = ()       #: the Data page's inputs it takes, as (input, option): input in fields, dim, fraction, path, model
    new_text: str = ""            #: "stateless" (embeds new text as it did its rows), "fitted" (keeps what it learned) or why it cannot

    def __post_init__(self):
        if not re.fullmatch(r"[a-z][a-z0-9-]*", self.name):
            raise ValueError(f"a representation kind is named in lower-case letters, digits and '-', not {self.name!r}")


#: every kind of representation by name: the one place to add one
REGISTRY = Registry("representation kind")
#: kind -> {option: default} (read from `REGISTRY`; kept for the spec grammar's readers)
KINDS: dict = {}


def register_kind(kind: Kind) -> Kind:
    """Add ``kind`` to `REGISTRY` (ValueError for a name already taken)."""
    REGISTRY.add(kind.name, kind)
    KINDS[kind.name] = dict(kind.options)
    return kind


def example(kind: str = "tfidf-svd") -> str:
    return REGISTRY[kind].example if kind in REGISTRY else kind


#: the inputs a preference pair is read through (`core.representations.pairs`): the whole pair, its
#: responses without the prompt (the default Φ of pairs), and their style alone
PAIR_INPUTS = {"full": "pair-diff:prompt=1", "response_only": "pair-diff", "style_only": "pair-style"}


def default_spec(dataset) -> str:
    """The representation an analysis uses when none is named: TF-IDF + SVD of the text fields, for
    preference pairs the antisymmetric ``pair-diff`` (`PAIR_INPUTS`), for multiple-choice items
    ``choice-diff`` (`core.representations.choices`)."""
    if getattr(dataset, "choices", None) is not None:
        return "choice-diff"
    return PAIR_INPUTS["response_only"] if getattr(dataset, "pairs", None) is not None else "tfidf-svd"


def parse_spec(spec: str):
    """Split a spec string into ``(kind, options)``; defaults are not filled in.

    Grammar: ``KIND`` or ``KIND:key=value[,key=value…]``. Values are kept as
    strings except integers and floats, which are converted. Unknown kinds and
    options raise `InputError` listing the valid ones.

    >>> parse_spec("tfidf-svd:fields=hypothesis,dim=64")
    ('tfidf-svd', {'fields': 'hypothesis', 'dim': 64})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"representation spec {spec!r} is empty; give one like {example()!r}. "
                         f"Kinds: {', '.join(KINDS)}.")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise InputError(f"unknown representation kind '{kind}' in {spec!r}; choose one of: {', '.join(KINDS)} "
                         f"(e.g. {example()!r}).")
    options = {}
    for part in (p.strip() for p in rest.split(",")):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not eq or not key:
            raise InputError(f"representation option '{part}' in {spec!r} should look like key=value, "
                             f"e.g. {example(kind)!r}.")
        if key not in KINDS[kind]:
            raise InputError(f"unknown option '{key}' for representation '{kind}'; its options are: "
                             f"{', '.join(KINDS[kind]) or '(none)'} (e.g. {example(kind)!r}).")
        if key in options:
            raise InputError(f"option '{key}' is given twice in {spec!r}; give it once.")
        options[key] = _convert(value.strip())
    return kind, options


def spec_paths(spec: str) -> list:
    """The files a spec reads (``file:path=…``), for the output policy; a spec that does not
    parse names none (its command reports the spec itself)."""
    try:
        kind, options = parse_spec(spec)
    except InputError:
        return []
    named = options.get("path") if kind == "file" else options.get("model") if kind == "sbert" else None
    return [str(named)] if named not in (None, "") and (kind == "file" or Path(str(named)).expanduser().exists()) else []


def _convert(value: str):
    if re.fullmatch(r"[+-]?\d+", value):
        return int(value)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)", value):
        return float(value)
    return value


def _fields(dataset: Dataset, value, kind: str) -> list:
    """Resolve ``fields=a+b`` against the dataset (default: its text columns)."""
    if value is None or value == "":
        if not dataset.text:
            raise InputError(f"the dataset has no text columns, so '{kind}' needs fields=…; "
                             f"the columns are: {', '.join(map(str, dataset.table.columns))}.")
        return list(dataset.text)
    names = [f.strip() for f in str(value).split("+") if f.strip()]
    if not names:
        raise InputError(f"fields={value!r} names no column; give e.g. fields=hypothesis or fields=premise+hypothesis.")
    for f in names:
        if f not in dataset.table.columns:
            raise InputError(f"unknown field '{f}' in {kind}:fields=…; the columns are: "
                             f"{', '.join(map(str, dataset.table.columns))}.")
        if f == dataset.label:
            raise InputError(f"field '{f}' is the label column; a representation must not see the label. "
                             f"Choose text fields, e.g. {', '.join(dataset.text) or 'a text column'}.")
        if f in dataset.truth:
            raise InputError(f"field '{f}' is a ground-truth column of the demo; choose text fields instead.")
    if len(set(names)) != len(names):
        raise InputError(f"fields={value!r} repeats a field; give each field once.")
    return names


def _int_option(kind, name, value, minimum, maximum=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum \
            or maximum is not None and value > maximum:
        within = f"from {minimum} to {maximum:,}" if maximum is not None else f">= {minimum}"
        raise InputError(f"{kind}:{name}={value!r} is invalid: give an integer {within}.")
    return int(value)


def _tfidf_options(kind: str, opts: dict) -> None:
    """Check and write canonically a TF-IDF's ``min_df`` and ``ngram`` (in place)."""
    opts["min_df"] = _int_option(kind, "min_df", opts["min_df"], 1)
    ngram = str(opts["ngram"])
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", ngram)
    if not m or int(m.group(1)) < 1 or int(m.group(2) or m.group(1)) < int(m.group(1)):
        raise InputError(f"{kind}:ngram={ngram!r} is invalid: give a range like 1-2 (unigrams and bigrams) or 1.")
    opts["ngram"] = f"{int(m.group(1))}-{int(m.group(2) or m.group(1))}"


def resolve_options(dataset: Dataset, kind: str, options: dict) -> dict:
    """Validate options and fill in defaults (the canonical option set): the kind's own check."""
    opts = dict(KINDS[kind])
    opts.update(options)
    check = REGISTRY[kind].check
    if check is not None:
        check(dataset, opts, kind)
    return opts


def check_embedding(dataset: Dataset, opts: dict, kind: str) -> None:
    col = opts["column"] or dataset.embedding
    if not col:
        raise InputError("the dataset has no embedding column; name one with embedding:column=NAME "
                         f"(the columns are: {', '.join(map(str, dataset.table.columns))}), or use another kind.")
    if col not in dataset.table.columns:
        raise InputError(f"unknown embedding column '{col}'; the columns are: {', '.join(map(str, dataset.table.columns))}.")
    opts["column"] = col


def check_file(dataset: Dataset, opts: dict, kind: str) -> None:
    if not opts["path"]:
        raise InputError(f"file needs path=FILE, e.g. {example('file')!r}.")
    if opts["align"] not in (None, "row", "id"):
        raise InputError(f"file:align={opts['align']!r} is invalid: give align=row (the file's rows follow the "
                         "dataset's rows) or align=id (the file has ids).")


def check_text(dataset: Dataset, opts: dict, kind: str) -> None:
    """The text kinds (tfidf-svd, glove, sbert): their fields, and each one's own options."""
    opts["fields"] = "+".join(_fields(dataset, opts["fields"], kind))
    if "dim" in opts:
        opts["dim"] = _int_option(kind, "dim", opts["dim"], *DIM.range)
    if "seed" in opts:
        opts["seed"] = _int_option(kind, "seed", opts["seed"], 0)
    if "min_df" in opts:
        _tfidf_options(kind, opts)
    if "model" in opts:
        if not opts["model"]:
            raise InputError(f"{kind} needs model=NAME_OR_PATH, e.g. {example(kind)!r}.")
        opts["batch"] = _int_option(kind, "batch", opts["batch"], 1)


def check_warmup(dataset: Dataset, opts: dict, kind: str) -> None:
    if opts["input"] is None:
        opts["input"] = "tfidf" if (dataset.text or opts["fields"]) else (
            "embedding" if dataset.embedding else ("pixels" if dataset.image else None))
        if opts["input"] is None:
            raise InputError("warmup needs text fields, an embedding column or an image column; this dataset has none.")
    if opts["input"] not in ("tfidf", "embedding", "pixels"):
        raise InputError(f"warmup:input={opts['input']!r} is invalid: give input=tfidf (text fields), "
                         "input=embedding or input=pixels.")
    if opts["input"] == "tfidf":
        opts["fields"] = "+".join(_fields(dataset, opts["fields"], kind))
        opts["dim"] = _int_option(kind, "dim", opts["dim"], 1)
    elif opts["fields"] is not None:
        raise InputError(f"warmup:fields is only used with input=tfidf (got input={opts['input']}); drop fields=….")
    else:
        opts["dim"] = None  # the TF-IDF/SVD size only applies to text input
    opts["seed"] = _int_option(kind, "seed", opts["seed"], 0)
    fr = opts["fraction"]
    if isinstance(fr, bool) or not isinstance(fr, (int, float)) or not (
            (isinstance(fr, float) and 0 < fr < 1) or (isinstance(fr, int) and 2 <= fr < len(dataset))):
        raise InputError(f"warmup:fraction={fr!r} is invalid: give a fraction in (0, 1) (e.g. 0.1) or a count "
                         f"between 2 and {len(dataset) - 1}.")
    hidden = str(opts["hidden"])
    if not re.fullmatch(r"\d+(-\d+)*", hidden) or any(int(h) < 1 for h in hidden.split("-")):
        raise InputError(f"warmup:hidden={hidden!r} is invalid: give layer sizes like 128 or 256-128.")
    opts["hidden"] = hidden


def check_pair_diff(dataset: Dataset, opts: dict, kind: str) -> None:
    opts["dim"] = _int_option(kind, "dim", opts["dim"], 1)
    opts["seed"] = _int_option(kind, "seed", opts["seed"], 0)
    if opts["prompt"] not in (0, 1):
        raise InputError(f"pair-diff:prompt={opts['prompt']!r} is invalid: give prompt=1 to read the prompt too, "
                         "or prompt=0 for the responses alone.")
    _tfidf_options(kind, opts)


def check_pixels(dataset: Dataset, opts: dict, kind: str) -> None:
    if not dataset.image:
        raise InputError("the dataset has no image column, so 'pixels' cannot be built; load it with --image NAME "
                         f"(the columns are: {', '.join(map(str, dataset.table.columns))}).")
    opts["pca"] = _int_option(kind, "pca", opts["pca"], 0)
    opts["seed"] = _int_option(kind, "seed", opts["seed"], 0)


def resolve_spec(dataset: Dataset, spec: str) -> str:
    """The canonical spec `represent` would record for ``spec`` on ``dataset`` (defaults
    and dataset-derived options filled in): the key under which Φ is cached."""
    kind, options = parse_spec(spec)
    return canonical_spec(kind, resolve_options(dataset, kind, options))


def canonical_spec(kind: str, opts: dict) -> str:
    """The spec with every option in the kind's declared order (unset ones left out)."""
    parts = [f"{k}={_fmt(opts[k])}" for k in KINDS[kind] if opts.get(k) is not None]
    return kind + (":" + ",".join(parts) if parts else "")


def _fmt(v):
    return repr(v) if isinstance(v, float) else str(v)
