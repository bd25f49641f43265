"""An artifact-aware dataset card (issue 23): a ``README.md`` (`huggingface_hub`'s `DatasetCard`)
that says how a filtered split was made and what it proves.

`card_inputs` gathers what the export manifest does not hold: examples per label before and
after filtering, and the top cues (z-statistics, paper 004) on the whole dataset and on the
retained split. `dataset_card` writes the YAML metadata (task, size category, source, tags, and
the license when it is known) and the sections: how the split was made (τ, n, k, m, t, model
family, Φ, seeds, versions, from the manifest), removals per label, the top cues before and after,
the evaluation's verdict and the team review's agreement when they exist, and the manifest file.
Every number is the manifest's (a test parses the card back and compares).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from ..base.escaping import md_code, md_text, visible_text
from ..base.keys import jsonable

__all__ = ["card_inputs", "dataset_card", "card_of", "size_category", "TOP_CUES", "HEADLINE"]

#: cues listed before and after filtering
TOP_CUES = 8
_SIZES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
          (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M")]


def size_category(n: int) -> str:
    """The Hub's size category of ``n`` rows."""
    return next((name for bound, name in _SIZES if n < bound), "n>1T")


def card_inputs(dataset, retained_ids, *, min_count: int = 5, k: int = TOP_CUES) -> dict:
    """``labels`` (per label: examples, retained, removed) and ``cues`` (``before`` and ``after``:
    the ``k`` n-gram cues of highest z, as ``feature, label, n, z``) of a filtered split."""
    from ..base.errors import InputError
    from ..zstats import compute_z

    retained_ids = pd.Index(np.asarray(retained_ids).astype(str))
    table = dataset.table
    ids = table.index.astype(str)
    kept = ids.isin(retained_ids)
    if dataset.pairs is not None:
        return _pair_inputs(dataset, ids, kept, min_count=min_count, k=k)
    labels = {}
    for label in dataset.classes:
        mask = (table[dataset.label] == label).to_numpy()
        labels[str(label)] = {"examples": int(mask.sum()), "retained": int((mask & kept).sum()),
                              "removed": int((mask & ~kept).sum())}

    def top(ds):
        try:
            z = compute_z(ds, min_count=min_count).table
        except InputError:   # too few examples or labels left to test
            return []
        z = z[z["kind"] == "ngram"].head(k)
        return [{"feature": str(r.feature), "label": str(r.label), "n": int(r.n), "z": round(float(r.z), 2)}
                for r in z.itertuples(index=False)]

    cues = {"before": top(dataset), "after": top(dataset.subset(ids[kept])) if dataset.text else []}
    if not dataset.text:
        cues["before"] = []
    return {"labels": labels, "cues": cues}


def _pair_inputs(dataset, ids, kept, *, min_count: int, k: int) -> dict:
    """`card_inputs` of preference pairs: their count (a pair's label is its side of a drawn order,
    so there is no per-label table) and the ``k`` strongest pair cues (`core.zstats.pairs`: the side
    with more of a feature, against 0.5) before and after, as ``feature, label`` (the side it
    favours), ``n`` (the pairs that differ on it) and ``z``."""
    from ..base.errors import InputError
    from ..zstats.pairs import pair_cues

    def top(ds):
        try:
            found = pair_cues(ds, min_count=max(int(min_count), 10)).table.head(k)
        except InputError:
            return []
        return [{"feature": str(r.feature), "label": str(r.favours), "n": int(r.differ), "z": round(float(r.z), 2)}
                for r in found.itertuples(index=False)]

    counts = {"examples": len(ids), "retained": int(kept.sum()), "removed": int((~kept).sum())}
    return {"labels": {"pairs": counts}, "cues": {"before": top(dataset), "after": top(dataset.subset(ids[kept]))},
            "pairs": True}


#: what an export's selection is, in the card's title ("the all split" read as a typo)
_SELECTIONS = {"retained": "the filtered split (the examples kept)", "removed": "the examples removed",
               "all": "every example, with the decisions"}


def _md(value) -> str:
    """A user string in the card's Markdown: literal text, one line of one cell (`core.base.escaping`)."""
    return md_text(value)


#: what a negative V-information means, said wherever one is shown
NO_INFORMATION = ("A negative V-information means the model predicts the labels worse than their frequencies alone, "
                  "out of sample: that input carries no information about the label a model can use here (too few "
                  "examples, or nothing to find).")


def _measure(value) -> str:
    """A certificate measure in a card cell: three decimals (a share, bits, an accuracy), a count as
    a whole number, – when absent."""
    if value is None:
        return "–"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return f"{int(value):,}"
    return f"{round(float(value), 3) + 0.0:,.3f}"   # (+ 0.0: no "-0.000")


def _num(value) -> str:
    """A manifest number in a card cell: whole numbers with thousands separators, as the manifest
    has them otherwise (τ as recorded), – when absent."""
    if value is None:
        return "–"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return f"{int(value):,}"
    return _md(value)


def _cue_table(rows) -> str:
    if not rows:
        return "No n-gram passed the minimum count."
    return "| feature | label | n | z |\n|---|---|---|---|\n" + "\n".join(
        f"| {_md(r['feature'])} | {_md(r['label'])} | {r['n']:,} | {r['z']:.2f} |" for r in rows)


#: the certificate's measures the card's front matter and table carry (its headline numbers): effect
#: sizes, not test statistics that grow with the data (the largest z is in certificate.json)
HEADLINE = ("partial_input.accuracy", "partial_input.lift", "v_information.partial", "v_information.full",
            "aflite.predictable_share", "near_duplicates.within", "mislabelled.share")


def _headline(certificate: dict) -> dict:
    """The front matter's ``artifact_certificate``: format, fingerprint and the headline measures
    (value and standard error, machine-readable)."""
    found = certificate.get("measures") or {}
    return {"format": certificate.get("certificate_format"),
            "fingerprint": (certificate.get("dataset") or {}).get("fingerprint"),
            **{name.replace(".", "_"): {"value": found[name]["value"], "stderr": found[name]["stderr"]}
               for name in HEADLINE if name in found}}


def dataset_card(manifest: dict, inputs: Optional[dict] = None, *, verdict: Optional[str] = None,
                 license: Optional[str] = None, task: str = "text-classification", certificate: Optional[dict] = None):
    """The card of an export (``manifest``: `core.exports.manifest.manifest_for`; ``inputs``: `card_inputs`;
    ``verdict``: the evaluation's sentence, `core.evaluation.verdict.verdict`; ``certificate``: the
    split's artifact certificate, `core.certificate.measures.certify`, whose headline numbers go in
    the front matter and a table)."""
    from huggingface_hub import DatasetCard, DatasetCardData

    export = manifest.get("export") or {}
    rows = int(export.get("rows") or 0)
    name = str((manifest.get("dataset") or {}).get("name") or "dataset")
    shown = visible_text(name)   # the YAML header's values: a file name's controls shown, never obeyed
    data = DatasetCardData(license=license, task_categories=[task], size_categories=[size_category(rows)],
                           source_datasets=[shown], pretty_name=f"{shown} ({visible_text(export.get('selection', 'filtered'))}, "
                                                                "Artifact Lens)",
                           tags=["artifact-lens", "aflite", "adversarial-filtering", "dataset-artifacts"],
                           **({"artifact_certificate": jsonable(_headline(certificate))} if certificate else {}))
    lines = _how_made(manifest, name, rows) + _made_notes(manifest) + _input_tables(inputs or {}) \
        + _certificate_section(certificate)
    if verdict:
        lines += ["", "## Evaluation", "", _md(verdict)]
    agreement = export.get("review_agreement")
    if agreement and agreement.get("examples_reviewed"):
        alpha = agreement.get("alpha")
        lines += ["", "## Team review", "",
                  f"{agreement.get('reviewers')} reviewers reviewed {agreement.get('examples_reviewed'):,} examples "
                  f"({agreement.get('examples_reviewed_twice_or_more'):,} twice or more); Krippendorff's α = "
                  + ("undefined" if alpha is None else f"{alpha:.3f}")
                  + (f"; the team's word vs the filter: κ = {agreement['filter_kappa']:.3f}"
                     if agreement.get("filter_kappa") is not None else "") + "."]
    lines += ["", "## Files", "", "`manifest.json` holds every parameter, the phases, the retained ids and the "
              "export's options: what reproduces this split."
              + (" `certificate.json` holds every artifact measure of the split with its uncertainty." if certificate
                 else "")]
    return DatasetCard(f"---\n{data.to_yaml()}\n---\n\n" + "\n".join(lines) + "\n")


def _how_made(manifest: dict, name: str, rows: int) -> list:
    """The card's title and its table of how the split was made (AFLite's knobs, Φ, the data)."""
    export, dataset = manifest.get("export") or {}, manifest.get("dataset") or {}
    aflite = manifest.get("aflite") or {}
    resolved, params = aflite.get("resolved") or {}, aflite.get("params") or {}
    selection = export.get("selection", "retained")
    lines = [f"# {_md(name)}: {_md(_SELECTIONS.get(selection, f'the {selection} examples'))} of an AFLite filter", "",
             "Made with Artifact Lens: AFLite (Le Bras et al. 2020) removed the examples that models on a "
             "simple representation predict too easily, so what remains is less about the dataset's artifacts.", "",
             "## How this split was made", "",
             "| | |", "|---|---|",
             f"| rows in this split | {_num(rows)} |",
             f"| selection | {_md(export.get('selection'))} |",
             f"| τ (early-stopping threshold on p̃) | {_num(export.get('tau'))} |",
             f"| n (target size) | {_num(export.get('target_size'))} |"]
    if aflite:
        lines += [f"| k (removed per phase) | {_num(resolved.get('k'))} |",
                  f"| m (models per phase) | {_num(resolved.get('m'))} |",
                  f"| t (training examples per model) | {_num(resolved.get('t'))} |",
                  f"| model family | {_md(', '.join(resolved.get('families') or [params.get('model', '')]))} |",
                  f"| strategy | {_md(resolved.get('strategy'))} |",
                  f"| phases | {_num(aflite.get('n_phases'))} |",
                  f"| removal order | {_md(aflite.get('removal_order', 'predictability'))} |",
                  f"| seed | {_num(aflite.get('seed'))} |"]
    rep = (manifest.get("representation") or {}).get("spec")
    lines += [f"| representation Φ | {md_code(rep)} |" if rep else "| representation Φ | none (no AFLite run) |",
              f"| scored examples | {_num(dataset.get('scored_examples'))} |",
              f"| warm-up examples (not scored) | {_num(dataset.get('warmup_excluded', 0))} |",
              f"| dataset fingerprint | {_md(dataset.get('fingerprint'))} |"]
    return lines


def _made_notes(manifest: dict) -> list:
    """The versions, and what the team review, the joint filter and the near-duplicate drop changed."""
    export, lines = manifest.get("export") or {}, []
    versions = manifest.get("versions") or {}
    if versions:
        lines += ["", "Versions: " + ", ".join(f"{_md(k)} {_md(v)}" for k, v in versions.items()) + "."]
    overrides = export.get("review_overrides") or []
    if overrides:
        lines += ["", f"Team review changed {sum(bool(o.get('changed')) for o in overrides):,} examples' side "
                      "(kept anyway or removed anyway; listed in manifest.json)."]
    joint = manifest.get("joint") or {}
    if joint:
        found = joint.get("found") or {}
        lines += ["", f"Joint filter: training dynamics on Φ ({_md(joint.get('model'))} model, "
                      f"{_num(joint.get('epochs'))} epochs, cross-fitted) came first; only easy-to-learn examples "
                      f"cleanlab does not flag could be removed ({_num(found.get('removable'))}). "
                      f"{_num((found.get('regions') or {}).get('ambiguous'))} ambiguous examples were protected and "
                      f"{_num(found.get('possibly_mislabelled'))} possibly mislabelled ones (hard-to-learn or flagged) "
                      "were kept for review (listed in manifest.json)."]
    dropped = (export.get("near_duplicates") or {}).get("dropped") or []
    if dropped:
        lines += ["", f"{len(dropped):,} near-duplicates were dropped (one of each group kept)."]
    return lines


def _input_tables(inputs: dict) -> list:
    """The removals per label and the cues before and after (`card_inputs`)."""
    lines = []
    if inputs.get("labels"):
        lines += ["", "## Removals per label", "", "| label | examples | retained | removed | removed share |",
                  "|---|---|---|---|---|"]
        for label, c in inputs["labels"].items():
            share = c["removed"] / c["examples"] if c["examples"] else 0.0
            lines.append(f"| {_md(label)} | {c['examples']:,} | {c['retained']:,} | {c['removed']:,} | {share:.1%} |")
    if inputs.get("cues"):
        lines += ["", "## Artifacts: the cues that give labels away", "",
                  ("The pair cues of highest |z| (the side with more of a style feature, word or bigram is the "
                   "chosen one more or less often than half the time; docs/preference-pairs.md) on the whole "
                   "dataset and on this split; label is the side a cue favours, n the pairs that differ on it."
                   if inputs.get("pairs") else
                   "The n-grams of highest z-statistic (Gardner et al. 2021; z > z* means the word alone predicts "
                   "the label beyond chance) on the whole dataset and on this split."), "",
                  "### Before filtering", "", _cue_table(inputs["cues"].get("before")), "",
                  "### After filtering", "", _cue_table(inputs["cues"].get("after"))]
    return lines


def _certificate_section(certificate: Optional[dict]) -> list:
    """The split's headline artifact measures with their standard errors."""
    lines = []
    if certificate:
        found = certificate.get("measures") or {}
        lines += ["", "## Artifact certificate", "",
                  "The split's artifact measures (`certificate.json`, `artifact-lens certify`; a dataset's CI "
                  "compares them with `artifact-lens check`).", "", "| measure | value | ± (standard error) |",
                  "|---|---|---|"]
        lines += [f"| {_md(found[name]['description'])} | {_measure(found[name]['value'])} | "
                  f"{_measure(found[name]['stderr'])} |" for name in HEADLINE if name in found]
        if any((found.get(name) or {}).get("value") is not None and round(found[name]["value"], 3) < 0
               for name in ("v_information.full", "v_information.partial")):
            lines += ["", NO_INFORMATION]
    return lines


def card_of(dataset, manifest: dict, *, verdict: Optional[str] = None, certificate: Optional[dict] = None):
    """The card of an export of ``dataset`` whose manifest is ``manifest`` (its ``retained_ids``
    are the filtered split): what every datasets folder, the Export page and a Hub push carry."""
    return dataset_card(manifest, card_inputs(dataset, manifest.get("retained_ids") or []), verdict=verdict,
                        certificate=certificate)
