"""Files of an evaluation: JSON and CSV tables, every figure as PNG (or HTML), and a one-page HTML
report to attach to a data card (self-contained: images inlined, every value escaped, no network).

* `render_png`: plotly figures to PNG bytes through kaleido (which drives a local
  Chrome/Chromium; ``pip install -e .[report]``); None and a note when it cannot.
* `html_report`: the one-page report.
* `write_files`: everything above into one folder.
"""
from __future__ import annotations

import base64
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from ..base.escaping import html_text
from ..evaluation.verdict import tolerance_text, verdict
from .manifest import dataset_label, file_name
from .safe_csv import write_csv

__all__ = ["render_png", "html_report", "report_name", "write_files", "family_wide", "TABLE_FILES"]

#: table name -> CSV file
TABLE_FILES = {"families": "families.csv", "partial_input": "partial_input.csv", "knn": "knn_distances.csv",
               "phases": "phases.csv", "coarse": "coarse_action.csv", "difficulty": "difficulty.csv",
               "difficulty_hist": "difficulty_histogram.csv", "synthetic": "synthetic.csv",
               "training_sets": "training_sets.csv"}


# ---------------------------------------------------------------------- figures
def render_png(figs: dict, *, width: int = 1000, height: Optional[int] = None) -> tuple:
    """(name -> PNG bytes, note): None and a note naming the cause when no static renderer works here."""
    if not figs:
        return {}, ""
    try:
        import kaleido  # noqa: F401
        import plotly.io as pio
    except ImportError:
        return None, ("static PNG figures need kaleido (pip install -e .[report]) and a local Chrome or "
                      "Chromium; wrote interactive HTML figures instead")
    try:
        out = {}
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            names = list(figs)
            files = [str(Path(tmp) / f"{n}.png") for n in names]
            pio.write_images([figs[n] for n in names], files, width=width,
                             height=[figs[n].layout.height or 400 for n in names] if height is None else height)
            for n, f in zip(names, files):
                out[n] = Path(f).read_bytes()
        return out, ""
    except Exception as exc:   # kaleido raises its own errors when no browser can start
        return None, (f"static PNG figures could not be rendered here ({type(exc).__name__}: {str(exc)[:120]}); "
                      "wrote interactive HTML figures instead")


# ---------------------------------------------------------------------- tables for people
def family_wide(frame: pd.DataFrame, ci: bool = True) -> pd.DataFrame:
    """Paper 000 Table 3 layout: one row per family, one column per (evaluation split, training
    set); cells ``accuracy [95 % interval] (Δ to full)`` as text."""
    if frame is None or not len(frame):
        return pd.DataFrame()

    def cell(r):
        if not np.isfinite(r["accuracy"]):
            return "n/a"
        s = f"{r['accuracy']:.3f}"
        if ci and np.isfinite(r.get("ci_low", np.nan)):
            s += f" [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        if r["train_set"] != "full" and np.isfinite(r.get("delta_full", np.nan)):
            s += f" (Δ {r['delta_full']:+.3f})"
        return s

    data = frame.assign(cell=frame.apply(cell, axis=1), column=frame["eval_set"] + " · " + frame["train_set"])
    wide = data.pivot(index="family", columns="column", values="cell")
    order = list(dict.fromkeys(data["column"]))
    return wide.reindex(index=list(dict.fromkeys(data["family"])), columns=order)


def _table_html(frame: pd.DataFrame, floats: str = "{:.3f}") -> str:
    """A table as HTML with one header row and no row numbers (a meaningful index, such as
    the family of `family_wide`, becomes the first column)."""
    if frame is None or not len(frame):
        return "<p><em>nothing to show</em></p>"
    named = any(name is not None for name in frame.index.names)
    shown = (frame.reset_index() if named else frame.reset_index(drop=True)).rename_axis(columns=None)
    for c in shown.columns:
        if pd.api.types.is_float_dtype(shown[c]):
            shown[c] = shown[c].map(lambda v: "" if pd.isna(v) else floats.format(v))
    return shown.to_html(escape=True, border=0, classes="t", na_rep="", index=False)


def report_name(ev) -> str:
    """The report's file name after the dataset and the τ/n it evaluated, e.g.
    ``snli_dev-evaluation-tau0.75-n2952.html`` (never a server path)."""
    ctx = ev.context or {}
    stem = file_name(str(ctx.get("dataset") or "dataset"), "evaluation", "csv")[: -len(".csv")]
    tau, n = ctx.get("tau"), ctx.get("n")
    return stem + (f"-tau{float(tau):.2f}-n{int(n)}" if tau is not None and n is not None else "") + ".html"


def html_report(ev, images: Optional[dict] = None, review: Optional[dict] = None,
                certificate: Optional[pd.DataFrame] = None) -> str:
    """The one-page report of an `core.evaluation.Evaluation`. ``images``: name -> PNG bytes
    (inlined as data URIs); without them the figures are inline plotly HTML (plotly.js
    included once, so the page works offline). ``review``: the team's agreement on the run
    (`core.usecases.evaluation.review_summary`: α, examples reviewed, the filter's κ), when it has reviews.
    ``certificate``: the gate's comparison of the dataset's and the split's artifact certificates
    (`core.certificate.gate.compare`, with its verdict in ``attrs``), when they were computed at the
    evaluation's τ/n."""
    from ..evaluation.plots import figures

    e = html_text
    ctx, s, t = ev.context, ev.summary, ev.tables
    figs = figures(ev)
    first = [True]

    def fig(name):
        if name not in figs:
            return ""
        if images and name in images:
            data = base64.b64encode(images[name]).decode()
            return f'<img alt="{e(name)}" src="data:image/png;base64,{data}">'
        out = figs[name].to_html(full_html=False, include_plotlyjs=first[0], default_width="100%")
        first[0] = False
        return out

    facts = [("dataset", dataset_label(ctx.get("dataset", ""))), ("run", ctx.get("run_key")), ("representation Φ", ctx.get("representation")),
             ("τ", ctx.get("tau")), ("n", ctx.get("n")), ("scored examples", ctx.get("N")),
             ("retained", ctx.get("retained")), ("held-out share", ev.options.get("eval_share")),
             ("filtered evaluation split", ctx.get("eval_filter")), ("seed", ev.options.get("seed"))]
    said = verdict(ev)
    parts = [f"<h1>Evaluation of a filtered split: {e(dataset_label(ctx.get('dataset', '')))}</h1>",
             *([f"<p class='verdict'><b>{e(said)}</b></p>"] if said else []),
             "<table class='t'>" + "".join(f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in facts
                                           if v is not None) + "</table>"]
    parts.append("<h2>Model families (paper 000 Table 3)</h2><p>Accuracy on the i.i.d. held-out split and on "
                 "that split filtered by AFLite, for models trained on the full training split, its AFLite-retained "
                 "part, a random subset of the same size"
                 + (" (stratified by label)" if ev.options.get("stratified") else "")
                 + " and the single-model filter's subset of the same size; [95 % bootstrap interval], (Δ to full).</p>")
    parts.append(_table_html(family_wide(t.get("families"))) + fig("families"))
    if "partial_input" in t:
        parts.append(f"<h2>Partial input: {e(str(ctx.get('partial_representation')))}</h2>")
        parts.append(_table_html(family_wide(t["partial_input"])) + fig("partial_input"))
    parts.append("<h2>KNN distances (paper 003 Table 3)</h2>" + _table_html(t.get("knn")) + fig("knn"))
    parts.append("<h2>Representation bias per phase</h2>" + fig("phases"))
    parts.append("<h2>Coarse action (paper 002 Algorithm 1, lines 2–9)</h2>"
                 f"<p>Held-out accuracy of {e(str(s.get('coarse_family')))} stops improving ("
                 f"{e(tolerance_text(s.get('coarse_tolerance')))}) at <b>{s.get('coarse_fraction', 0):.0%}</b> of the data: "
                 f"suggested target size n = <b>{e(str(s.get('coarse_n')))}</b>.</p>"
                 + _table_html(t.get("coarse")) + fig("coarse"))
    if "difficulty" in t:
        p = s.get("difficulty_p_value")
        parts.append(f"<h2>External difficulty: {e(str(s.get('difficulty_column')))}</h2>"
                     + (f"<p>Permutation p-value (retained vs removed mean): {p:.4g}</p>" if p is not None and np.isfinite(p) else "")
                     + _table_html(t["difficulty"]) + fig("difficulty"))
    if "synthetic" in t:
        parts.append("<h2>Synthetic circles (paper 000 §3, Fig. 2)</h2>" + _table_html(t["synthetic"])
                     + fig("synthetic_accuracy") + fig("synthetic_scatter"))
    if certificate is not None and len(certificate):
        broken = certificate.attrs["verdict"].failed   # `core.certificate.gate.verdict`
        parts.append("<h2>Artifact certificate</h2><p>The split's artifact measures against the whole dataset's, "
                     "each with its uncertainty (artifact-lens certify and check): "
                     + (f"<b>worse beyond their uncertainty: {e(', '.join(broken))}</b>" if broken else
                        "none is worse beyond its uncertainty") + ".</p>" + _table_html(certificate, "{:.4g}"))
    if review and review.get("examples_reviewed"):
        parts.append("<h2>Team review</h2>" + _review_html(review))
    if ev.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in ev.notes) + "</ul>")
    style = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table.t{border-collapse:collapse;font-size:13px;margin:.5em 0}"
             "table.t td,table.t th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left}"
             "img{max-width:100%}")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Artifact Lens evaluation</title>"
            f"<style>{style}</style></head><body>" + "\n".join(parts)
            + "<p><small>Written by Artifact Lens (artifact-lens evaluate).</small></p></body></html>")


def _review_html(review: dict) -> str:
    """The team's agreement in a few facts (numbers formatted here, every text escaped)."""
    def num(v, fmt="{:.3f}"):
        return "–" if v is None else fmt.format(v)

    low, high = review.get("alpha_interval") or (None, None)
    at = review.get("at") or {}
    facts = [("Krippendorff's α (keep/remove)", num(review.get("alpha")) + ("" if low is None else
                                                                             f" [{low:.3f}, {high:.3f}]")),
             ("reviewers", review.get("reviewers")), ("examples reviewed", review.get("examples_reviewed")),
             ("reviewed twice or more", review.get("examples_reviewed_twice_or_more")),
             ("team vs filter: κ", num(review.get("filter_kappa"))),
             ("team vs filter: agreement", num(review.get("filter_agreement"), "{:.1%}")),
             ("at τ, n", f"{at.get('tau', 0):.2f}, {at.get('n', 0):,}"), ("disputes", review.get("dispute_rule"))]
    best = review.get("supported")
    if best:
        facts.append(("the τ/n the team supports", f"τ = {best['tau']:.2f}, n = {best['n']:,} "
                                                   f"(agreement {best['agreement']:.1%})"))
    return "<table class='t'>" + "".join(f"<tr><th>{html_text(k)}</th><td>{html_text(v)}</td></tr>"
                                         for k, v in facts) + "</table>"


# ---------------------------------------------------------------------- one folder
def write_files(ev, folder, *, figure_format: str = "png", review: Optional[dict] = None,
                certificate: Optional[pd.DataFrame] = None) -> list:
    """Write ``evaluation.json``, the CSV tables, the figures (``png``, ``html`` or ``none``) and
    ``report.html`` (with ``review`` and ``certificate`` as in `html_report`) into ``folder``
    (created); returns notes (e.g. PNG not available)."""
    from ..evaluation.plots import figures

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    notes = []
    (folder / "evaluation.json").write_text(ev.to_json())
    for name, file in TABLE_FILES.items():
        if name in ev.tables:
            write_csv(ev.tables[name], folder / file, float_format="%.6g")
    if "families" in ev.tables:
        write_csv(family_wide(ev.tables["families"]).reset_index(), folder / "families_table.csv")
    if "partial_input" in ev.tables:
        write_csv(family_wide(ev.tables["partial_input"]).reset_index(), folder / "partial_input_table.csv")
    figs = figures(ev)
    images = None
    if figure_format == "png":
        images, note = render_png(figs)
        if images is None:
            notes.append(note)
            figure_format = "html"
        else:
            for name, data in images.items():
                (folder / f"{name}.png").write_bytes(data)
    if figure_format == "html":
        for name, f in figs.items():
            f.write_html(folder / f"{name}.html", include_plotlyjs="directory", full_html=True)   # + plotly.min.js
    (folder / "report.html").write_text(html_report(ev, images, review=review, certificate=certificate))
    return notes
