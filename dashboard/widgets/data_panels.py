"""The Data page's panels: the source form (demo, local path, upload, Hub) and loading it, the
column roles, and the representation Φ with the button that starts scoring."""
from pathlib import Path

import streamlit as st

from artifact_lens.base.bounds import DIM
from artifact_lens.base.errors import InputError
from artifact_lens.dashboard.widgets import column_mapping
from artifact_lens.dashboard.services import data_inputs, pipelines
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.state.session import Source

__all__ = ["source_panel", "roles_panel", "representation_panel"]


def source_panel(tab, sess) -> None:
    """Choose a source and load it (its columns are then mapped, `dashboard.widgets.column_mapping`)."""
    kind = st.radio("Source", ["Demo", "Local path", "Upload", "Hugging Face Hub"], horizontal=True, key="src_kind")
    formats = ", ".join(data_inputs.file_formats().values())
    with st.form("source_form"):
        if kind == "Demo":
            demos = data_inputs.demos()
            names = list(demos)
            shown = data_inputs.demo_of(sess.source.source if sess.source else "")   # the menu opens on what is loaded
            demo = st.selectbox("Demo dataset", names, index=names.index(shown) if shown in names else 0, key="demo_name",
                                help="; ".join(f"{name}: {about}" for name, about in demos.items()))
            size = st.number_input("Examples (all but digits)", 200, 200000, 3000, step=500, key="demo_size")
        elif kind == "Local path":
            path = st.text_input("File or folder", placeholder="data/snli_dev.jsonl", key="src_path",
                                 help=f"{formats}, or a save_to_disk / Hub-shaped folder.")
            st.caption("This server reads files in: " + ", ".join(str(f) for f in data_inputs.data_folders())
                       + " (an administrator sets ARTIFACT_LENS_DATA_DIRS).")
        elif kind == "Upload":
            upload = st.file_uploader(f"{formats} file", type=list(data_inputs.file_formats()), key="src_upload")
        else:
            hub = st.text_input("Hub name", placeholder="snli", key="src_hub")
            c1, c2 = st.columns(2)
            config = c1.text_input("Config (optional)", key="src_config")
            split = c2.text_input("Split (optional)", key="src_split")
        loaded = st.form_submit_button("Load", type="primary", key="load")
    if not loaded:
        return
    try:
        try:
            with st.spinner("Reading the dataset…"):
                if kind == "Demo":
                    name = f"demo:{demo}" + (f":n={int(size)}" if data_inputs.demo_sized(demo) else "")
                    source = Source(name, {}, name)
                elif kind == "Local path":
                    if not path.strip():
                        raise InputError("no path given; type a file or folder path, e.g. data/snli_dev.jsonl")
                    source = Source(data_inputs.check_local_path(path.strip()), {}, path.strip())
                elif kind == "Upload":
                    if upload is None:
                        raise InputError(f"no file chosen; pick a {formats} file to upload")
                    source = Source(str(data_inputs.save_upload(tab, upload.name, upload.getvalue())), {}, upload.name)
                else:
                    if not hub.strip():
                        raise InputError("no Hub name given; type a dataset name such as 'snli'")
                    if Path(hub.strip()).expanduser().exists():   # a local folder typed as a Hub name
                        data_inputs.check_local_path(hub.strip())
                    source = Source(hub.strip(), {"config": config.strip() or None, "split": split.strip() or None},
                                    hub.strip())
                sess.mapping = None
                column_mapping.load_or_ask(tab, source)
        except InputError as exc:
            st.error(plain(exc))
    except InputError as exc:
        st.error(plain(exc))


def roles_panel(tab, ds, on_view, can_load: bool) -> None:
    """The columns' roles, auto-detected, and (curators, owners) a form to override them."""
    roles = {c: ds.role_of(c) for c in ds.table.columns}
    title = "Column roles (auto-detected; override here)" if can_load else "Column roles (auto-detected)"
    with st.expander(title, expanded=False):
        if can_load:
            cols = list(ds.table.columns)
            with st.form("roles_form"):
                text_cols = st.multiselect("Text columns", cols, default=[c for c in ds.text if c in cols], key="role_text")
                label_col = st.selectbox("Label column", cols, index=cols.index(ds.label) if ds.label in cols else 0,
                                         key="role_label")
                none = "(none)"
                emb_col = st.selectbox("Embedding column", [none] + cols,
                                       index=(cols.index(ds.embedding) + 1) if ds.embedding in cols else 0, key="role_emb")
                img_col = st.selectbox("Image column", [none] + cols,
                                       index=(cols.index(ds.image) + 1) if ds.image in cols else 0, key="role_img")
                feat_cols = st.multiselect("Feature columns (for z-statistics)", cols,
                                           default=[c for c in ds.features if c in cols], key="role_feat")
                apply_roles = st.form_submit_button("Apply roles", key="apply_roles")
            if apply_roles:
                base = on_view or Source(ds.name, {}, ds.name)
                new_roles = dict(base.roles)
                new_roles.update(text=text_cols or None, label=label_col,
                                 embedding=None if emb_col == none else emb_col,
                                 image=None if img_col == none else img_col, features=feat_cols or None)
                try:
                    data_inputs.load_pending(tab, Source(base.source, new_roles, base.label))
                    redraw()
                except InputError as exc:
                    st.error(plain(exc))
        could = ds.feature_candidates()
        if could:
            st.caption("Could be features (their values' z-statistics against the label, on the Features page): "
                       + ", ".join(map(plain, could)) + (". Pick them under Feature columns above." if can_load else "."))
        st.dataframe({"column": list(roles), "role": [r if c not in could else "other (could be a feature)"
                                                      for c, r in roles.items()]}, hide_index=True, key="roles_table")


def representation_panel(tab, sess, ds, view_key, on_view) -> None:
    """Φ: its kind and inputs, the spec they make, and "Build Φ and score with AFLite"."""
    # preference pairs and multiple-choice items read only the kinds made for them, and the others only them
    described = data_inputs.rep_kinds(ds)
    kinds = list(described)
    default_kind = data_inputs.default_kind(ds)
    # no form: each input reruns the page, so only the chosen kind's inputs show and the spec follows them
    with st.container(border=True):
        rk = st.selectbox("Kind", kinds, index=kinds.index(default_kind),
                          format_func=lambda k: f"{k}: {described[k]}",
                          key=f"rep_kind:{view_key}")  # per dataset: the default follows its columns
        needs = data_inputs.kind_inputs(rk)
        fields, dim, fraction, path, model = ds.text, 64, 0.1, "", ""
        if "fields" in needs:
            fields = st.multiselect("Text fields (a subset gives a partial-input representation, e.g. hypothesis "
                                    "only)", ds.text, default=ds.text[-1:] if len(ds.text) > 1 else ds.text,
                                    key=f"rep_fields:{view_key}")
        c1, c2 = st.columns(2)
        if "dim" in needs:
            dim = c1.number_input("PCA dimensions" if rk == "pixels" else "Dimensions (SVD)", *DIM.range, 64,
                                  key="rep_dim")
        if "fraction" in needs:
            fraction = c2.slider("Warm-up fraction", 0.02, 0.5, 0.1, 0.01, key="rep_fraction",
                                 help="Share of examples that trains the warm-up extractor; they are excluded "
                                      "downstream.")
        if "path" in needs:
            path = st.text_input("Vector file (.npy, .npz or Parquet, one row per example)", key="rep_path")
        if "model" in needs:
            model = st.text_input("sentence-transformers model name or local folder", key="rep_model")
        custom = st.text_input("Or type a full spec (overrides the above)", key="rep_custom",
                               placeholder="warmup:fields=hypothesis,fraction=0.1")
        spec = custom.strip() or data_inputs.build_spec(rk, fields=fields, dim=dim, fraction=fraction,
                                                        path=path.strip(), model=model.strip())
        st.caption("Spec (the same text works in the CLI and from Python):")
        st.code(spec, language=None)
        go = st.button("Build Φ and score with AFLite", type="primary", key="build")
    if go:
        try:
            pipelines.start(tab, view_key, data_inputs.check_spec_paths(spec), sess.params_for(view_key), label="Φ + AFLite",
                            source=on_view, page="Data")
            redraw()
        except InputError as exc:
            st.error(plain(exc))
