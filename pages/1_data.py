"""Data: choose the source, map the columns, choose the representation Φ, start scoring."""
import streamlit as st

import app_state as S
from core.errors import InputError

ss = st.session_state
reg = S.registry()
st.title("Data")
S.page_setup()
st.caption("Load a labelled dataset, check its columns and labels, then build a representation Φ and score it with AFLite.")

# ---------------------------------------------------------------- source
kind = st.radio("Source", ["Demo", "Local path", "Upload", "Hugging Face Hub"], horizontal=True, key="src_kind")
with st.form("source_form"):
    if kind == "Demo":
        demo = st.selectbox("Demo dataset", ["nli", "circles", "digits"], key="demo_name",
                            help="nli: synthetic premise/hypothesis pairs with planted artifacts; circles: paper 000's "
                                 "synthetic experiment; digits: scikit-learn's 8×8 images.")
        size = st.number_input("Examples (nli, circles)", 200, 200000, 3000, step=500, key="demo_size")
    elif kind == "Local path":
        path = st.text_input("File or folder", placeholder="../shared/data/snli_dev.jsonl", key="src_path",
                             help="CSV, TSV, JSONL/JSON, Parquet, or a save_to_disk / Hub-shaped folder.")
    elif kind == "Upload":
        upload = st.file_uploader("CSV, TSV, JSONL or Parquet file", type=["csv", "tsv", "jsonl", "json", "parquet"],
                                  key="src_upload")
    else:
        hub = st.text_input("Hub name", placeholder="snli", key="src_hub")
        c1, c2 = st.columns(2)
        config = c1.text_input("Config (optional)", key="src_config")
        split = c2.text_input("Split (optional)", key="src_split")
    loaded = st.form_submit_button("Load", type="primary")

if loaded:
    try:
        with st.spinner("Reading the dataset…"):
            if kind == "Demo":
                source = f"demo:{demo}" + (f":n={int(size)}" if demo in ("nli", "circles") else "")
                S.load_into_pending(source, {}, label=source)
            elif kind == "Local path":
                if not path.strip():
                    raise InputError("no path given; type a file or folder path, e.g. ../shared/data/snli_dev.jsonl")
                S.load_into_pending(path.strip(), {}, label=path.strip())
            elif kind == "Upload":
                if upload is None:
                    raise InputError("no file chosen; pick a CSV, TSV, JSONL or Parquet file to upload")
                saved = S.save_upload(upload.name, upload.getvalue())
                S.load_into_pending(str(saved), {}, label=upload.name)
            else:
                if not hub.strip():
                    raise InputError("no Hub name given; type a dataset name such as 'snli'")
                roles = {"config": config.strip() or None, "split": split.strip() or None}
                S.load_into_pending(hub.strip(), roles, label=hub.strip())
    except InputError as exc:
        st.error(S.plain(exc))

# ---------------------------------------------------------------- the dataset on view
pending_key = ss.get("pending_ds_key") or ss.ds_key
ds = reg.dataset(pending_key)
is_current = pending_key == ss.ds_key
label = ss.get("pending_source", {}).get("label", "") if not is_current else (ss.get("source_label") or ds.name)
st.subheader("Current dataset" if is_current else "Loaded dataset (not scored yet)")
st.text(str(label or ds.name))  # a user-given name: shown as text
for message in ds.messages:
    st.info(S.plain(message))  # written by core.sources
c1, c2, c3 = st.columns(3)
c1.metric("Examples", f"{len(ds):,}")
c2.metric("Labels", len(ds.classes))
c3.metric("Dropped rows", sum(ds.dropped.values()) if ds.dropped else 0)

roles = {c: ds.role_of(c) for c in ds.table.columns}
with st.expander("Column roles (auto-detected; override here)", expanded=False):
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
        apply_roles = st.form_submit_button("Apply roles")
    if apply_roles:
        src = ss.get("pending_source") if not is_current else None
        source = src["source"] if src else (ss.get("source_label") or ds.name)
        new_roles = dict(ss.get("pending_roles", {}) if src else {})
        new_roles.update(text=text_cols or None, label=label_col,
                         embedding=None if emb_col == none else emb_col,
                         image=None if img_col == none else img_col, features=feat_cols or None)
        try:
            S.load_into_pending(source, new_roles, label=str(source))
            st.rerun()
        except InputError as exc:
            st.error(S.plain(exc))
    st.dataframe({"column": list(roles), "role": list(roles.values())}, hide_index=True)

left, right = st.columns([3, 1])
with left:
    shown = ds.table.drop(columns=[c for c in (ds.embedding, ds.image) if c], errors="ignore").head(500)
    st.dataframe(shown, height=320)  # text is shown as text, never rendered
    st.caption(f"First {len(shown):,} of {len(ds):,} rows.")
with right:
    counts = ds.label_counts()
    st.bar_chart(counts.rename("examples"))
    st.dataframe(counts.rename("examples").to_frame(), key="label_counts")

# ---------------------------------------------------------------- representation
st.subheader("Representation Φ")
kinds = list(S.REP_KINDS)
default_kind = "pixels" if ds.image and not ds.text else ("embedding" if ds.embedding and not ds.text else "tfidf-svd")
with st.form("rep_form"):
    rk = st.selectbox("Kind", kinds, index=kinds.index(default_kind), format_func=lambda k: f"{k}: {S.REP_KINDS[k]}",
                      key=f"rep_kind:{pending_key}")  # per dataset: the default follows its columns
    fields = st.multiselect("Text fields (choose a subset for a partial-input representation, e.g. hypothesis only)",
                            ds.text, default=ds.text[-1:] if len(ds.text) > 1 else ds.text, key=f"rep_fields:{pending_key}")
    c1, c2 = st.columns(2)
    dim = c1.number_input("Dimensions (TF-IDF/SVD, warm-up input, pixel PCA)", 2, 1024, 64, key="rep_dim")
    fraction = c2.slider("Warm-up fraction", 0.02, 0.5, 0.1, 0.01, key="rep_fraction",
                         help="Share of examples that trains the warm-up extractor; they are excluded downstream.")
    path = st.text_input("Vector file (kind 'file')", key="rep_path")
    model = st.text_input("sentence-transformers model name or local folder (kind 'sbert')", key="rep_model")
    custom = st.text_input("Or type a full spec (overrides the above)", key="rep_custom",
                           placeholder="warmup:fields=hypothesis,fraction=0.1")
    go = st.form_submit_button("Build Φ and score with AFLite", type="primary")
spec = custom.strip() or S.build_spec(rk, fields=fields, dim=dim, fraction=fraction, path=path.strip(),
                                      model=model.strip())
st.caption("Spec: ")
st.code(spec, language=None)
if go:
    from core.representations import parse_spec

    try:
        parse_spec(spec)
        S.start_pipeline(pending_key, spec, dict(ss.params), label="Φ + AFLite",
                         source_label=None if is_current else str(label))
        st.rerun()
    except InputError as exc:
        st.error(S.plain(exc))
job = S.current_job()
if job is not None and not job.done:
    st.info("Scoring in the background (progress and Cancel in the sidebar). "
            "The previous dataset and run stay in use until it finishes.")
