"""The dashboard's pages, in menu order. `app.py` registers exactly these; a test fails
when a file in ``pages/`` is missing here. Adding a page: one layout file in ``pages/``
that starts with `dashboard.widgets.page.start_page`, one line here, one AppTest."""
from pathlib import Path

#: the folder that holds ``pages/`` and ``assets/``: the checkout's root, or the installed package
#: (``artifact_lens/``, where the wheel puts them beside ``dashboard/``)
HOME = Path(__file__).resolve().parents[2]

#: (file, title, Material icon); the first page opens by default.
PAGES = [
    ("pages/1_data.py", "Data", ":material/database:"),
    ("pages/2_filter.py", "Filter", ":material/filter_alt:"),
    ("pages/3_predictability.py", "Predictability", ":material/bar_chart:"),
    ("pages/4_map.py", "Map", ":material/scatter_plot:"),
    ("pages/5_features.py", "Features", ":material/text_fields:"),
    ("pages/6_examples.py", "Examples", ":material/table_rows:"),
    ("pages/7_export.py", "Export", ":material/download:"),
    ("pages/8_review.py", "Review", ":material/rate_review:"),
    ("pages/9_team.py", "Team", ":material/group:"),
    ("pages/10_evaluate.py", "Evaluate", ":material/fact_check:"),
    ("pages/11_create.py", "Create", ":material/edit_note:"),
    ("pages/12_validate.py", "Validate", ":material/task_alt:"),
    ("pages/13_dynamics.py", "Dynamics", ":material/insights:"),
]


#: the pages that do not read multiple-choice items yet (their models read the label as a class), by
#: title, with why: on an items run, `dashboard.widgets.page.start_page` says so in one line and stops
NOT_FOR_ITEMS = {
    "Create": "it writes new labelled examples with feedback on their label",
    "Validate": "it reviews examples written on the Create page",
    "Dynamics": "its models read the label as a class",
}


def page_file(path: str) -> str:
    """A page of `PAGES` as an absolute file, which `st.Page` and `st.switch_page` take from any main script
    (``app.py`` in a checkout, ``dashboard/app.py`` installed)."""
    return str(HOME / path)


def asset(name: str) -> str:
    """A file of ``assets/`` (the logo), absolute: the server's working folder may be any folder."""
    return str(HOME / "assets" / name)


def not_for_items(title: str, ds):
    """The line a page says on multiple-choice items it does not read (`NOT_FOR_ITEMS`), or None."""
    if getattr(ds, "choices", None) is None or title not in NOT_FOR_ITEMS:
        return None
    return f"{title} does not apply to multiple-choice items yet: {NOT_FOR_ITEMS[title]}."


def configuration_error(app_arguments=()):
    """What is wrong with the server's settings or the app's own arguments (``streamlit run app.py --
    --owner EMAIL``, handed in by app.py and kept for the sign-in): one line naming the variable or
    flag and the fix, any password hidden; None when nothing is. The app checks it before any page runs."""
    from artifact_lens.base.errors import InputError
    from artifact_lens.base.settings import printable, settings
    from artifact_lens.dashboard.process import arguments

    try:
        settings()
        arguments.set_app_arguments(list(app_arguments))
    except InputError as exc:
        return f"The server's configuration cannot be used: {printable(exc)} Fix the setting and restart the server."
    return None
