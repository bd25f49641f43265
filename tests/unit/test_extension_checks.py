"""Issue 65, item 3: common checks over every registered extension, as scikit-learn's
``parametrize_with_checks`` runs its estimator checks over every estimator.

Every `core.base.registry.Registry` of the package is found by reflection (every module of core is
imported, and every registry a module holds is collected), and each kind of registry has a list of
checks its entries must pass. A registry nobody wrote checks for fails the first test, so a new
kind of extension is covered the day it is written; a new entry of a known kind is checked the day
it is added. The last tests add an incomplete entry to a copy of a registry, as a newcomer would,
and find that the check named for the missing piece fails, then passes once the piece is there.

Export formats have their own common checks, run over every format in
`tests/unit/test_export_format_checks.py` (written back through the tool's reader, formulas
neutralised); they are listed here so the registry counts as covered.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import artifact_lens
from artifact_lens.base.registry import Registry

ROOT = Path(__file__).resolve().parents[2]


def _registries() -> dict:
    """``what`` → registry, for every registry a module of core holds."""
    found = {}
    for info in pkgutil.walk_packages(artifact_lens.__path__, "artifact_lens."):
        if ".dashboard" in info.name or ".migrations" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, Registry):
                found.setdefault(value.what, value)
    return found


REGISTRIES = _registries()


# ------------------------------------------------------------------ the checks, by kind of registry
#: where a measure's row is: the certificate's tables, and the preference pairs' own
MEASURE_DOCS = ("certificate.md", "preference-pairs.md")


def _measure_rows(name) -> list:
    rows = [line for doc in MEASURE_DOCS for line in (ROOT / "docs" / doc).read_text().splitlines()
            if line.startswith("|")]
    return [r for r in rows if f"`{name}`" in r.split("|")[1] or f"`{name}[LABEL]`" in r.split("|")[1]]


def measure_has_a_docs_row(name, measure):
    assert _measure_rows(name), f"certificate measure {name!r} has no row in docs/certificate.md's tables"


def measure_has_a_direction(name, measure):
    assert measure.worse in ("higher", "lower", "neither"), name
    assert not (measure.artifact and measure.worse == "neither"), \
        f"{name}: an artifact measure says which way is worse (higher or lower)"
    assert measure.description or measure.per_label, f"{name}: no description for a certificate to show"


def measure_has_a_calibration_line(name, measure):
    """The docs row says what the gate does by default, and it is what the measure declares: gated
    (its false alarms measured by the calibration), warns (not yet, or above the family's), or shown."""
    rows = _measure_rows(name)
    assert rows, f"{name}: no docs row to hold its calibration line"
    default = rows[0].split("|")[-2].strip()
    said = "warns" if "warns" in default else "gated" if re.search(r"\*\*gated\*\*|\(gated\)", default) else "shown"
    declared = "warns" if measure.warns else "gated" if measure.artifact else "shown"
    assert said == declared, f"{name}: the docs say {default!r} ({said}), the measure is {declared}"


def command_is_offered_everywhere(name, command):
    """A command is in the hostile campaign, a use case, the CLI reference, and says what it does."""
    from artifact_lens.usecases.registry import USE_CASES

    from test_cli_campaign import BASE

    assert command.help and command.description, f"command {name!r} has no help or description"
    assert name in BASE, f"command {name!r} is not in the campaign (tests/unit/test_cli_campaign.py BASE)"
    assert any(name in u.cli for u in USE_CASES), f"command {name!r} is in no use case (core/usecases/registry.py)"
    assert re.search(rf"^#+ `?{re.escape(name)}`?\b", (ROOT / "docs" / "cli.md").read_text(), re.M), \
        f"command {name!r} is not in docs/cli.md (python -m artifact_lens.cli.reference docs/cli.md)"


def representation_kind_is_in_the_kinds_table(name, kind):
    import artifact_lens.representations as reps
    from artifact_lens.representations.spec import KINDS

    assert f"``{name}``" in (reps.__doc__ or ""), f"Φ kind {name!r} is not in core/representations' kinds table"
    assert name in KINDS and set(KINDS[name]) == set(kind.options), name


def model_family_builds_an_estimator(name, family):
    from artifact_lens.models.families import make_model

    model = make_model(name, random_state=0, n_train=60, d=4)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 4)), np.repeat(["a", "b"], 30)
    pred = model.fit(X, y).predict(X)
    assert pred.shape == (60,) and set(pred) <= {"a", "b"}, name
    assert family.title, f"model family {name!r} has no title for the help and the Evaluate page"


def quality_component_is_complete(name, component):
    from artifact_lens.quality.quantities import QUANTITIES

    red, green = component.thresholds
    assert 0 <= red <= green <= 1, (name, component.thresholds)
    assert component.weight >= 0 and component.measures in QUANTITIES, name
    assert component.words and all(component.words), f"quality component {name!r} has no words for a writer"


def quantity_measures_both_ways(name, quantity):
    assert callable(quantity.of_dataset) and callable(quantity.of_example), name


def input_format_reads_back(suffix, fmt, tmp_path_factory=None):
    """A generated table written in the format is read back by `load_dataset` with its ids as text
    (``007`` stays ``007``), its labels and its text, cell for cell."""
    from artifact_lens.data.sources import load_dataset

    folder = Path(pytest.importorskip("tempfile").mkdtemp())
    table = pd.DataFrame({"id": [f"{i:03d}" for i in range(40)], "text": [f"sentence =1+{i} é" for i in range(40)],
                          "label": [["yes", "no"][i % 2] for i in range(40)]})
    path = folder / f"data{suffix}"
    writers = {".csv": lambda p: table.to_csv(p, index=False), ".tsv": lambda p: table.to_csv(p, sep="\t", index=False),
               ".jsonl": lambda p: table.to_json(p, orient="records", lines=True, force_ascii=False),
               ".json": lambda p: table.to_json(p, orient="records", force_ascii=False),
               ".parquet": lambda p: table.to_parquet(p, index=False)}
    assert suffix in writers, f"input format {suffix} has no writer here: add one, so its reading is checked"
    writers[suffix](path)
    ds = load_dataset(str(path))
    assert list(ds.ids) == list(table["id"]), suffix
    assert list(ds.table[ds.label]) == list(table["label"]) and list(ds.table["text"]) == list(table["text"]), suffix
    if fmt.text:   # a text file saved with a byte-order mark (Windows tools write one) reads the same
        marked = folder / f"marked{suffix}"
        marked.write_bytes("\ufeff".encode() + path.read_bytes())
        assert load_dataset(str(marked)).table.equals(ds.table), f"{suffix}: a BOM changed what was read"


def test_a_json_object_that_repeats_a_key_is_refused_as_in_json_lines(tmp_path):
    """Found by the hostile campaign once it wrote every input format: a JSON document whose object
    repeated a key was read with one of its values silently dropped (JSON Lines refused it)."""
    from artifact_lens.base.errors import InputError
    from artifact_lens.data.sources import load_dataset

    path = tmp_path / "data.json"
    path.write_text('[{"id": "1", "text": "a b", "label": "yes"}, {"id": "2", "text": "c", "label": "no", "label": "x"}]')
    with pytest.raises(InputError, match="repeats the key 'label'"):
        load_dataset(str(path))


def export_format_has_its_common_checks(name, fmt):
    source = (ROOT / "tests" / "unit" / "test_export_format_checks.py").read_text()
    assert "FORMATS" in source and "parametrize" in source


CHECKS = {
    "certificate measure": [measure_has_a_docs_row, measure_has_a_direction, measure_has_a_calibration_line],
    "command": [command_is_offered_everywhere],
    "representation kind": [representation_kind_is_in_the_kinds_table],
    "model family": [model_family_builds_an_estimator],
    "quality component": [quality_component_is_complete],
    "quality quantity": [quantity_measures_both_ways],
    "input format for": [input_format_reads_back],
    "export format": [export_format_has_its_common_checks],
}


def test_every_registry_has_its_checks():
    """A new kind of extension point (a `Registry` in any module of core) fails here until its
    entries have checks."""
    assert set(REGISTRIES) == set(CHECKS), {"without checks": set(REGISTRIES) - set(CHECKS),
                                            "checks of no registry": set(CHECKS) - set(REGISTRIES)}
    assert all(len(r) for r in REGISTRIES.values()), [w for w, r in REGISTRIES.items() if not len(r)]


CASES = [pytest.param(what, name, check, id=f"{what}:{name}:{check.__name__}")
         for what, registry in sorted(REGISTRIES.items()) for name in registry for check in CHECKS.get(what, [])]


@pytest.mark.parametrize("what,name,check", CASES)
def test_every_entry_passes_its_checks(what, name, check):
    check(name, REGISTRIES[what][name])


# ------------------------------------------------------------------ a newcomer's entries, complete and not
def test_a_measure_without_its_docs_row_fails_the_docs_check_and_passes_with_it(monkeypatch, tmp_path):
    from artifact_lens.certificate.registry import Measure

    new = Measure("newcomer.share", "share", "higher", True, "the share of newcomers")
    with pytest.raises(AssertionError, match="no row in docs/certificate.md"):
        measure_has_a_docs_row(new.name, new)
    docs = tmp_path / "docs"
    docs.mkdir()
    for doc in MEASURE_DOCS:
        (docs / doc).write_text((ROOT / "docs" / doc).read_text())
    with open(docs / "certificate.md", "a") as fh:
        fh.write("\n| `newcomer.share` | newcomers | binomial | warns |\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    measure_has_a_docs_row(new.name, new)
    with pytest.raises(AssertionError, match="the measure is gated"):   # the row and the measure disagree
        measure_has_a_calibration_line(new.name, new)
    measure_has_a_calibration_line(new.name, Measure(**{**new.__dict__, "warns": True}))


def test_a_kind_missing_from_the_kinds_table_fails_its_check():
    from artifact_lens.representations.spec import REGISTRY

    entry = REGISTRY["tfidf-svd"]
    with pytest.raises(AssertionError, match="kinds table"):
        representation_kind_is_in_the_kinds_table("char-counts", entry)


def test_a_command_missing_from_the_campaign_fails_its_check():
    from artifact_lens.cli.commands import COMMANDS, Command

    known = COMMANDS["info"]
    new = Command("words", run=known.run, declare=known.declare, help="count words", description="words per label")
    with pytest.raises(AssertionError, match="not in the campaign"):
        command_is_offered_everywhere(new.name, new)


def test_an_input_format_without_a_reader_here_fails_its_check():
    from artifact_lens.data.file_tables import InputFormat

    psv = InputFormat(".psv", "pipe-separated values", lambda p: pd.read_csv(p, sep="|", dtype=str))
    with pytest.raises(AssertionError, match="no writer here"):
        input_format_reads_back(psv.suffix, psv)
