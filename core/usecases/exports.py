"""Export a run's split (issues 14 and 43): the rows at τ/n with the team's review overrides
applied, their manifest and the export's options, and what a datasets folder (or a Hub push)
carries beside them: the card and the split's certificate. ``artifact-lens export`` and the
Export page call these, so the same choices write the same file, manifest, card and
``certificate.json``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import pandas as pd

from ..exports import manifest as manifests
from ..exports.plan import with_options
from ..exports.writers import export_frame
from .certificates import certify_split

__all__ = ["SplitExport", "FolderFiles", "export_split", "export_saved_run", "folder_files", "write_export"]


@dataclass
class SplitExport:
    """The rows an export writes and what it says about them."""

    frame: pd.DataFrame        # the rows (row references: the file is written from it when asked)
    manifest: dict
    summary: str               # "τ = …, n = …: kept … of …"
    tau: Optional[float] = None
    n: Optional[int] = None
    overrides: Optional[list] = None   # the team's review overrides applied (None: no team review)


@dataclass
class FolderFiles:
    """What a datasets folder and a Hub push carry beside the rows."""

    card: object                      # the dataset card (`core.exports.card.card_of`: str() is its README.md)
    certificate: Optional[dict]       # the split's certificate; None when it cannot be measured (``note`` says why)
    note: Optional[str] = None
    croissant: Optional[dict] = None  # its Croissant metadata but the files (`core.exports.croissant`)

    def files(self) -> dict:
        """The files beside the rows and the card (`core.exports.writers.write_file`'s ``files``):
        ``certificate.json`` when there is one, and ``croissant.json``, made from the written folder."""
        from ..certificate.schema import certificate_bytes
        from ..exports.croissant import FILE_NAME, croissant_bytes

        out = {"certificate.json": certificate_bytes(self.certificate)} if self.certificate else {}
        if self.croissant is not None:
            meta = self.croissant
            out[FILE_NAME] = lambda folder: croissant_bytes(meta, folder)
        return out


def export_split(dataset, run, *, which: str, fmt: str, include_arrays: bool, tau=None, target_size=None, live=None,
                 standing: Optional[pd.DataFrame] = None, dataset_name: Optional[str] = None,
                 extra: Optional[dict] = None, quality=None, quality_note=None, duplicate_pairs=None) -> SplitExport:
    """The split ``run`` selects at τ/n (default the run's; ``live``: `Run.result_for` at them, when
    the caller has it), with the team's word ``standing`` (`core.team.review.standing`) overriding
    the filter where a reviewer said "keep anyway" or "remove anyway", its manifest (``extra`` added
    to its export record) and the export's options (`core.exports.plan.with_options`). Without a
    run (None), the whole dataset."""
    from ..team.review import reviewed_result

    if run is None:
        frame = export_frame(dataset, None, which=which, include_arrays=include_arrays)
        manifest = manifests.manifest_for(None, which=which, fmt=fmt, rows=len(frame), dataset=dataset,
                                          dataset_name=dataset_name, include_arrays=include_arrays, extra=extra)
        return SplitExport(frame=with_options(frame, manifest, quality=quality, quality_note=quality_note,
                                              duplicate_pairs=duplicate_pairs), manifest=manifest, summary="")
    if live is None:   # InputError for a τ or n the trajectory cannot answer (a refit is needed) names the bound
        live = run.result_for(tau=tau, target_size=target_size)
    tau_ = run.trajectory.tau if tau is None else float(tau)
    n_ = run.trajectory.n if target_size is None else run.trajectory.clamp(tau_, target_size)[1]
    overrides = None
    if standing is not None:
        live, overrides = reviewed_result(run, live, standing)
        extra = {"review_overrides": overrides, **(extra or {})}
    frame = export_frame(dataset, run, live=live, which=which, include_arrays=include_arrays)
    retained = run.kept_ids(live)
    manifest = manifests.manifest_for(run, which=which, fmt=fmt, rows=len(frame), tau=float(tau_), target_size=int(n_),
                                      dataset=dataset, dataset_name=dataset_name, retained_ids=retained,
                                      include_arrays=include_arrays, extra=extra)
    frame = with_options(frame, manifest, quality=quality, quality_note=quality_note, duplicate_pairs=duplicate_pairs)
    return SplitExport(frame=frame, manifest=manifest, tau=float(tau_), n=int(n_), overrides=overrides,
                       summary=manifests.summary_line(tau_, n_, len(run.ids), len(retained)))


def export_saved_run(dataset, run_path, *, which: str = "retained", fmt: str = "csv", tau=None, target_size=None,
                     include_arrays: bool = True, extra: Optional[dict] = None, quality=None, quality_note=None,
                     duplicate_pairs=None) -> SplitExport:
    """`export_split` of what a CLI ``--run`` names: a run ``.npz`` (any τ/n its trajectory answers)
    or the JSON manifest of ``artifact-lens aflite --manifest`` (the run as fitted). The run must
    have been made on ``dataset`` (same fingerprint)."""
    from ..exports.writers import FORMATS, SELECTIONS, _check_choice
    from ..results.run_arguments import read_run_argument

    _check_choice("which", which, SELECTIONS)
    _check_choice("format", fmt, FORMATS)
    kind, found = read_run_argument(run_path, dataset)
    if kind == "run":
        return export_split(dataset, found, which=which, fmt=fmt, include_arrays=include_arrays, tau=tau,
                            target_size=target_size, extra=extra, quality=quality, quality_note=quality_note,
                            duplicate_pairs=duplicate_pairs)
    frame, manifest, summary = manifests.from_manifest(dataset, found, which=which, fmt=fmt, tau=tau,
                                                       target_size=target_size, include_arrays=include_arrays,
                                                       extra=extra)
    frame = with_options(frame, manifest, quality=quality, quality_note=quality_note, duplicate_pairs=duplicate_pairs)
    return SplitExport(frame=frame, manifest=manifest, summary=summary, tau=manifest["export"].get("tau"),
                       n=manifest["export"].get("target_size"))


def folder_files(dataset, split: SplitExport, *, certificate: bool = True, verdict: Optional[str] = None,
                 cache_dir=None) -> FolderFiles:
    """The card and the certificate of the exported rows (`core.usecases.certificates.certify_split`:
    the Φ of the run that selected them), as a datasets folder and a Hub push carry them."""
    from ..exports.card import card_of
    from ..exports.croissant import croissant_metadata

    found, why = certify_split(dataset, split.frame["id"].astype(str), manifest=split.manifest,
                               cache_dir=cache_dir) if certificate \
        else (None, None)
    name = str(split.manifest.get("dataset", {}).get("name") or dataset.name or "dataset")
    return FolderFiles(card=card_of(dataset, split.manifest, verdict=verdict, certificate=found), certificate=found,
                       note=why and f"no certificate.json: {why}",
                       croissant=croissant_metadata(split.frame, split.manifest, name=name, certificate=found))


def write_export(dataset, split: SplitExport, path, fmt: str, *, certificate: bool = True, carry: bool = False,
                 cache_dir=None, progress=None, cancel=None) -> Optional[FolderFiles]:
    """Write ``split`` to ``path`` (a new path the output policy handed out) in ``fmt``: its rows,
    and for a datasets folder its manifest, card, ``croissant.json`` and (``certificate``) the
    split's certificate. The folder's files, also computed for another format with ``carry`` (a Hub
    push carries them), or None. ``artifact-lens export`` and ``aflite --export`` write through it."""
    from ..exports.formats import FORMATS
    from ..exports.writers import write_new

    carried = folder_files(dataset, split, certificate=certificate, cache_dir=cache_dir) \
        if FORMATS[fmt].folder or carry else None
    folder = FORMATS[fmt].folder and carried is not None
    write_new(split.frame, path, fmt, manifest=split.manifest, card=carried.card if folder else None,
              files=carried.files() if folder else None, progress=progress, cancel=cancel)
    return carried
