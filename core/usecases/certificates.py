"""Certify a dataset, and certify the split a run selected (issue 34's certificate, issue 43's
one rule): `artifact-lens certify`, `artifact-lens export` (a datasets folder's
``certificate.json``), the Certificate panel and the Export page all call these.

The rule: a split's certificate is computed on the Φ of the run that selected it (as its manifest
records it), and the dataset's certificate it is compared with on the same Φ; without a run, on
the Φ asked for, else the certificate's default. So one split has one ``certificate.json``
whichever front end wrote it, and `core.certificate.gate` can compare it with the dataset's."""
from __future__ import annotations

from typing import Optional

from ..base.errors import InputError
from ..base.settings import printable
from ..certificate.measures import DEFAULTS, certify
from ..representations import default_spec

__all__ = ["certificate_representation", "certify_dataset", "certify_split"]


def certificate_representation(run=None, manifest: Optional[dict] = None, representation: Optional[str] = None,
                               dataset=None) -> str:
    """The Φ a certificate is computed on: the run's (``run``, or the ``manifest`` of a run or of an
    export, which records it), else ``representation``, else the dataset's default
    (`core.representations.default_spec`: pair-diff for preference pairs)."""
    spec = getattr(run, "representation", None) or ((manifest or {}).get("representation") or {}).get("spec")
    return str(spec or representation or (default_spec(dataset) if dataset is not None else DEFAULTS["representation"]))


def certify_dataset(dataset, *, run=None, manifest: Optional[dict] = None, representation: Optional[str] = None,
                    **settings) -> dict:
    """The certificate of ``dataset`` (`core.certificate.measures.certify` with ``settings``), on
    `certificate_representation` (``run`` or its ``manifest``: the run it will be compared with);
    multiple-choice items on their own inputs (a representation given for them is refused)."""
    if getattr(dataset, "choices", None) is not None:
        return certify(dataset, representation=representation, **settings)
    return certify(dataset, representation=certificate_representation(run, manifest, representation, dataset),
                   **settings)


def certify_split(dataset, kept_ids, *, run=None, manifest: Optional[dict] = None, **settings) -> tuple:
    """(the certificate of the rows ``kept_ids`` of ``dataset``, None) on the Φ of the run that kept
    them (``manifest``); (None, why) when the split is too small to measure (a label with fewer
    examples than folds)."""
    try:
        return certify_dataset(dataset.subset([str(i) for i in kept_ids]), run=run, manifest=manifest, **settings), None
    except InputError as exc:
        return None, printable(exc)
