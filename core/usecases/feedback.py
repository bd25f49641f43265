"""Feedback on one new example (paper 002 §3.2; issue 11): ``artifact-lens feedback`` and the Create
page fit the same context and give the same feedback. The context is fitted once per dataset and Φ
(`feedback_context`: the dashboard keeps it for every creator, the CLI for its one example); the
feedback is `example_feedback`'s dict, which a submission stores and a validator is shown again."""
from __future__ import annotations

from ..quality import QualityContext

__all__ = ["feedback_context", "example_feedback"]


def feedback_context(dataset, representation, *, progress=None, cancel=None, **knobs) -> QualityContext:
    """The fitted context of ``dataset`` on Φ ``representation`` (built; ``knobs``: `QualityContext.fit`'s
    min_count, alpha, nn_dim, weights, thresholds, max_chars, cache_dir)."""
    return QualityContext.fit(dataset, representation.spec, representation=representation, progress=progress,
                              cancel=cancel, **knobs)


def example_feedback(context: QualityContext, example) -> dict:
    """The feedback on ``example`` (a dict of the dataset's text fields and label, or its JSON): its
    lights, label-tied words, partial-input and Φ predictions, neighbours and suggestions.
    InputError naming what is wrong with the example."""
    return context.feedback(example).to_dict()
