"""A decision form whose save lands on what the person was shown, or nowhere.

A page is drawn again on every interaction, and what it shows can move under an open form: a
teammate decides on the queue's head, a submission is validated in another tab, a row leaves a
table whose selection is kept by position. Read after the click, the page's variables name the
*new* state, so a plain ``if st.form_submit_button(...)`` wrote a note about example 98 onto
example 99. Here the save is the button's callback, and its arguments (the example's id and the
stamp of what was shown with it) are bound when the form was drawn, that is, to what the person
saw. The store refuses the write when that has changed since (`core.team.store.Changed`); the
person's text is then kept on the page, with the id it was written for, until they dismiss it.
"""
from __future__ import annotations

from typing import Callable, Optional

import streamlit as st

from artifact_lens.base.errors import Changed, InputError
from artifact_lens.base.keys import digest
from artifact_lens.dashboard.widgets.formatting import plain, shown_cells

__all__ = ["save_button", "show_outcome", "picked"]


def save_button(label: str, *, key: str, save: Callable[..., str], args: tuple, fields: dict, about: str) -> None:
    """The form's submit button. On a click, ``save(*args, **values)`` runs before the page is
    drawn again, ``args`` as they were when this form was drawn and ``values`` read from the form's
    ``fields`` (name -> (widget key, value to reset to)); it returns what to tell the person.
    ``about`` names what the form decides on (an example's or a submission's id)."""
    st.form_submit_button(label, type="primary", key=key, on_click=_clicked, args=(key, save, args, fields, about))


def _clicked(key: str, save: Callable[..., str], args: tuple, fields: dict, about: str) -> None:
    values = {name: st.session_state.get(widget, default) for name, (widget, default) in fields.items()}
    state = st.session_state
    this = digest(repr((args, sorted(values.items()))))
    try:
        said = save(*args, **values)
    except InputError as exc:
        if not isinstance(exc, Changed):
            state[f"{key}_outcome"] = {"error": plain(exc)}   # the form keeps what was typed: fix and save again
            return
        if state.get(f"{key}_saved") == this:
            # a second click on the same form (a double-click): what changed is this click's own save,
            # which stands; saying "not saved" of it would be false
            state.pop(f"{key}_outcome", None)
            st.toast("Already saved.")
        else:
            # what was shown has changed: the form is cleared (it may now show another example) and the
            # text is kept beside it, naming the example or submission it was written for
            state[f"{key}_outcome"] = {"error": plain(exc), "kept": values, "about": about, "fields": fields}
    else:
        state.pop(f"{key}_outcome", None)
        state[f"{key}_saved"] = this   # what this form last saved, drawn as it was
        st.toast(said)   # from a callback: shown wherever the page goes next
    for widget, default in fields.values():
        state[widget] = default


def show_outcome(key: str, about: str) -> None:
    """Why the last save of the form ``key`` was refused, if it was: an error, and when what was
    shown had changed, the person's kept text. Call it before the form, which decides on ``about``
    now: when that is what the refused decision was about (shown again, as it is now), the text
    goes back into the form; otherwise it stays here, naming its example, until dismissed."""
    outcome = st.session_state.get(f"{key}_outcome")
    if not outcome:
        return
    st.error(outcome["error"])
    kept = outcome.get("kept")
    if kept is None:
        del st.session_state[f"{key}_outcome"]   # shown once; the form still holds the text
        return
    if outcome["about"] == about:
        for name, (widget, _) in outcome["fields"].items():
            st.session_state[widget] = kept[name]
        del st.session_state[f"{key}_outcome"]
        st.info("Your decision is back in the form below; read what changed and save it again if it still stands.")
        return
    st.text("Your decision, not saved:\n" + "\n".join(f"{name}: {_shown(value)}" for name, value in kept.items()))
    st.button("Dismiss", key=f"{key}_dismiss", on_click=st.session_state.pop, args=(f"{key}_outcome", None))


def _shown(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "(none)"
    return str(value) if str(value) else "(empty)"


def picked(frame, *, key: str, id_column: str) -> Optional[str]:
    """A one-row pick in ``frame``, as the id in ``id_column`` of the row the person clicked, or None.

    A table's selection is kept by row position; the table is keyed by the ids it lists, so when
    its rows change (the picked example was decided and left the list, a teammate's decision added
    one) the pick is dropped rather than moved onto the row now standing in its place."""
    ids = [str(x) for x in frame[id_column]]
    event = st.dataframe(shown_cells(frame), hide_index=True, key=f"{key}_{digest(chr(31).join(ids))}", on_select="rerun",
                         selection_mode="single-row")
    rows = event.selection.rows
    return ids[rows[0]] if rows and rows[0] < len(ids) else None
