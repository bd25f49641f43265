"""The one-page HTML report of artifacts across splits (`core.dynamics.transfer`, ``artifact-lens
transfer --out DIR``): the summary in words and numbers, the figure and the cues table, every value
escaped."""
from __future__ import annotations

import math

from ..plots.transfer import transfer_figure

__all__ = ["report_html"]


def report_html(t, train_name: str, eval_name: str) -> str:
    """A one-page report of a `core.dynamics.transfer.Transfer`: the summary in words and numbers, the figure, the cues table."""
    from ..base.escaping import html_text as e

    s = t.summary

    def pct(v):
        return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1%}"

    facts = [("training split", train_name), ("evaluation split", eval_name),
             ("cues that transfer (z on the evaluation split > the training split's z*)",
              f"{s['cues_transferring']} of {s['cues']}"),
             (f"accuracy on the evaluation split of a model on {s['partial_input_field']} alone",
              pct(s["partial_input_accuracy_eval"])),
             ("accuracy of a model on the top cues alone", pct(s["top_cues_accuracy_eval"])),
             ("majority label's share / chance", f"{pct(s['majority_share_eval'])} / {pct(s['chance'])}"),
             (f"predictable (p̃ ≥ {s['tau']:.2f}) on the training split / evaluation split",
              f"{pct(s['predictable_share_train'])} / {pct(s['predictable_share_eval'])}"),
             ("near-duplicate pairs across the splits", f"{s['near_duplicate_pairs']:,} "
              f"({s['eval_examples_with_a_near_duplicate_in_train']:,} evaluation examples)")]
    if s.get("labels_only_in_eval"):
        facts.append(("labels only the evaluation split has (a model trained on the training split never predicts "
                      "them: they count as errors above)", f"{', '.join(s['labels_only_in_eval'])} "
                      f"({s['eval_examples_with_a_label_only_in_eval']:,} examples)"))
    table = "".join(f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in facts)
    cues = t.cues.to_html(index=False, float_format=lambda v: f"{v:.3f}", classes="t", border=0)
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Artifact Lens: cues across splits</title>"
            "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}"
            "table.t{border-collapse:collapse;font-size:13px}table.t td,table.t th{border-bottom:1px solid #ddd;"
            "padding:3px 8px;text-align:left}</style></head><body>"
            f"<h1>Do the training split's artifacts carry over? {e(train_name)} → {e(eval_name)}</h1>"
            f"<table class='t'>{table}</table>" + transfer_figure(t).to_html(full_html=False, include_plotlyjs=True)
            + f"<h2>Cues</h2>{cues}<p><small>Written by Artifact Lens (artifact-lens transfer).</small></p>"
            "</body></html>")
