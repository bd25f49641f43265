"""Every use case of the application layer, once (issue 43): its functions, the kernels only they
may call, and which CLI commands and dashboard services call them. `tests/unit/test_use_cases.py`
reads this: a front end that imports an owned kernel assembles the use case itself and fails; a
listed command or service that does not call its use case fails; and every CLI command and every
dashboard action (a service function that checks a role or writes to the team store) must be
named here (a use case of one call names its kernel: there is no table of exemptions)."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UseCase", "USE_CASES"]


@dataclass(frozen=True)
class UseCase:
    name: str
    functions: tuple          #: the use case's functions, dotted (``core.usecases.certificates.certify_dataset``)
    owns: tuple = ()          #: kernels no front end may import: only the use case assembles them
    cli: tuple = ()           #: the CLI commands that call it (``certify``)
    dashboard: tuple = ()     #: the dashboard services that call it (``dashboard.services.certificates.start``)


USE_CASES = (
    UseCase("score a dataset into a run (a stored run answers; its life recorded in a workspace)",
            ("core.usecases.scoring.score_dataset", "core.usecases.scoring.stored_run", "core.usecases.scoring.keep",
             "core.usecases.scoring.run_inputs"),
            owns=("core.results.runs.fit_run", "core.dynamics.joint.joint_for"),
            cli=("aflite",), dashboard=("dashboard.services.pipelines.start", "dashboard.services.pipelines.score")),
    UseCase("certify a dataset or a run's split (on the run's Φ)",
            ("core.usecases.certificates.certify_dataset", "core.usecases.certificates.certify_split"),
            owns=("core.certificate.measures.certify",),
            cli=("certify", "gate"), dashboard=("dashboard.services.certificates.start",)),
    UseCase("export a run's split: rows, manifest, card, certificate",
            ("core.usecases.exports.export_split", "core.usecases.exports.export_saved_run",
             "core.usecases.exports.folder_files"),
            owns=("core.exports.manifest.manifest_for", "core.exports.manifest.from_manifest",
                  "core.exports.plan.with_options", "core.exports.card.card_of"),
            cli=("export", "aflite"), dashboard=("dashboard.services.exports.split", "dashboard.services.exports.folder_files",
                                                 "dashboard.services.exports.card_only")),
    UseCase("the team's agreement on a run (the blind rule inside)",
            ("core.usecases.agreement.run_agreement", "core.usecases.agreement.may_read",
             "core.usecases.agreement.find_run"),
            owns=("core.team.run_agreement.team_agreement",),
            cli=("agreement", "certify"), dashboard=("dashboard.services.agreement.of_run", "dashboard.services.agreement.hidden")),
    UseCase("send the rows that carry a new cue to the front of a run's review queue (rows checked to be the run's)",
            ("core.usecases.review_queue.send_cue_rows",),
            cli=("check",), dashboard=("dashboard.services.certificates.send_rows",)),
    UseCase("the V-usable information of a dataset (which inputs PVI reads: Φ and the dataset's partial inputs)",
            ("core.usecases.information.usable_information", "core.usecases.information.pvi_table",
             "core.usecases.information.choice_information", "core.usecases.information.choice_pvi_table"),
            owns=("core.evaluation.information.dataset_pvi", "core.evaluation.choices.choice_baselines"),
            cli=("pvi",), dashboard=("dashboard.services.information.start", "dashboard.services.information.start_items")),
    UseCase("an evaluation's report (its certificate and team review sections, each when its input exists)",
            ("core.usecases.evaluation.evaluation_report", "core.usecases.evaluation.write_report_files",
             "core.usecases.evaluation.review_summary"),
            owns=("core.exports.report.html_report", "core.exports.report.write_files"),
            cli=("evaluate",), dashboard=("dashboard.services.evaluation.report",)),
    UseCase("feedback on one new example (the context fitted once per dataset and Φ)",
            ("core.usecases.feedback.feedback_context", "core.usecases.feedback.example_feedback"),
            owns=("core.quality.context.QualityContext.fit", "core.quality.context.QualityContext.feedback"),
            cli=("feedback",), dashboard=("dashboard.services.creation.feedback",)),
    UseCase("submit an example (the store refuses a near-copy)", ("core.team.store.TeamStore.submit",),
            owns=("core.team.store.submissions.near_copy_of", "core.text.duplicates.DuplicateIndex"),
            dashboard=("dashboard.services.creation.submit",)),
    UseCase("validate a submitted example", ("core.team.store.TeamStore.validate",),
            dashboard=("dashboard.services.creation.validate",)),
    UseCase("review an example (bound to what the reviewer saw)", ("core.team.store.TeamStore.review",),
            dashboard=("dashboard.services.reviews.review",)),
    UseCase("adjudicate an example (bound to what the adjudicator saw)", ("core.team.store.TeamStore.adjudicate",),
            dashboard=("dashboard.services.reviews.adjudicate",)),
    # one call each: the kernel is the use case, and each front end that offers it calls it
    UseCase("read a dataset (its columns, roles and messages)", ("core.data.sources.load_dataset",),
            cli=("info",), dashboard=("dashboard.services.data_inputs.load_pending",)),
    UseCase("keep an uploaded file", ("core.base.paths.atomic_write",),
            dashboard=("dashboard.services.data_inputs.save_upload",)),
    UseCase("build a representation Φ", ("core.representations.represent",), cli=("represent",)),
    UseCase("the z-statistics of simple features", ("core.zstats.compute_z",), cli=("zstats",)),
    UseCase("z-filtering", ("core.zstats.z_filter",), cli=("zfilter",),
            dashboard=("dashboard.services.filters.zfilter_start",)),
    UseCase("consistency filtering", ("core.zstats.consistency.consistency_filter",), cli=("consistency",),
            dashboard=("dashboard.services.filters.consistency_start",)),
    UseCase("evaluate a run's split (the split by the ids it keeps, named by the run and τ/n)",
            ("core.usecases.evaluation.evaluate_split",), owns=("core.evaluation.suite.evaluate",), cli=("evaluate",),
            dashboard=("dashboard.services.evaluation.start",)),
    UseCase("the 2-D map of Φ", ("core.representations.projection.project",), cli=("project",)),
    UseCase("keep the computed results within a disk budget", ("core.results.stores.Results",), cli=("prune",)),
    UseCase("the quality components of a dataset", ("core.quality.quality_scores",
                                                    "core.quality.pruning.quality_components"),
            cli=("quality",), dashboard=("dashboard.services.quality.start",)),
    UseCase("plain against quality-ordered AFLite", ("core.quality.pruning.compare_pruning",),
            dashboard=("dashboard.services.quality.compare_start",)),
    UseCase("training dynamics", ("core.dynamics.cartography.dataset_dynamics",), cli=("cartography",),
            dashboard=("dashboard.services.dynamics.start",)),
    UseCase("cues across splits", ("core.dynamics.transfer.cue_transfer",), cli=("transfer",),
            dashboard=("dashboard.services.transfer.start",)),
    UseCase("serve the dashboard (from a checkout or an installed package)", ("core.usecases.serving.serve_dashboard",),
            cli=("ui",)),
    UseCase("read the documentation installed with the package", ("core.usecases.documentation.doc_pages",
                                                                   "core.usecases.documentation.doc_page"),
            cli=("docs",)),
    UseCase("compare two certificates (the gate)", ("core.certificate.gate.compare",), cli=("check",)),
    UseCase("accept a dataset version", ("core.team.store.TeamStore.save_version",),
            dashboard=("dashboard.services.creation.accepted_version",)),
    UseCase("open a run of the workspace", ("core.team.store.TeamStore.run_record",),
            dashboard=("dashboard.services.pipelines.open_team_run", "dashboard.services.pipelines.restore_link")),
    UseCase("save a run in the workspace", ("core.team.store.TeamStore.save_run",),
            dashboard=("dashboard.services.pipelines.save_to_workspace",)),
    UseCase("create a workspace", ("core.team.store.TeamStore.create_workspace",),
            dashboard=("dashboard.services.team.create_workspace",)),
    UseCase("check a member's role", ("core.team.store.TeamStore.require",), dashboard=("dashboard.services.team.require",)),
    UseCase("sign a member in (the first owner of a new store)", ("core.team.store.TeamStore.bootstrap",),
            dashboard=("dashboard.services.team.resolve",)),
    UseCase("take the sent examples off the review queue's front", ("core.team.store.TeamStore.clear_review_flags",),
            dashboard=("dashboard.services.reviews.clear_flags",)),
    *(UseCase(f"the workspace's {what}", (f"core.team.store.TeamStore.{m}",), dashboard=(f"dashboard.services.team.{m}",))
      for m, what in (("set_role", "members' roles"), ("remove_member", "members"),
                      ("set_dispute_rule", "dispute rule"), ("set_review_settings", "review settings"),
                      ("set_guidelines", "guidelines"), ("save_view", "saved views"), ("discard_run", "runs"),
                      ("delete_dataset", "datasets"))),
)
