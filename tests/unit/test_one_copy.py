"""What is computed in one place stays in one place (issue 54): a second copy of a rule is where a
newcomer changes one and the other keeps the old one. Each test greps the product's code for a
copy of something that has its one function."""
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _product_sources():
    for folder in ("core", "dashboard", "pages"):
        for path in (ROOT / folder).rglob("*.py"):
            yield path, path.read_text(encoding="utf-8")
    yield ROOT / "app.py", (ROOT / "app.py").read_text(encoding="utf-8")


def _copies(pattern: str, home: str) -> list:
    found = []
    for path, text in _product_sources():
        if path.relative_to(ROOT).as_posix() == home:
            continue
        found += [f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}" for m in re.finditer(pattern, text)]
    return found


def test_a_runs_kept_ids_are_read_in_one_place(toy_run):
    """`Run.kept_ids`: the export and its manifest, the certificate of a split and the evaluation of
    a run file read a split's ids from it (four copies before)."""
    assert not _copies(r"\.ids\)\[[^\]]*retained", "core/results/runs.py")
    ds, run = toy_run
    live = run.result_for(tau=run.trajectory.tau, target_size=int(run.retained.sum()) + 5)
    assert list(run.kept_ids()) == [str(i) for i, keep in zip(run.ids, run.retained) if keep]
    assert len(run.kept_ids(live)) == int(np.sum(live["retained"])) and run.kept_ids(live).dtype.kind == "U"


def test_every_command_gets_its_progress_bar_from_one_context_manager():
    """`core.cli.common.progress_bar` opens and closes every command's bar (12 commands copied the
    try/finally that closes it)."""
    assert not [c for c in _copies(r"bar\.close\(\)", "core/cli/common.py") if c.startswith("core/cli/")]
    assert not _copies(r"=\s*progress_bar\(", "core/cli/common.py")   # a bar held outside a with block


def test_every_extension_point_is_one_registry_type():
    """Model families, export and input formats, representation kinds and certificate measures are
    each a `core.base.registry.Registry`: one rule for adding an entry (a name once), written once."""
    from artifact_lens.base.registry import Registry
    import artifact_lens.certificate.measures  # noqa: F401  (registers the measures)
    from artifact_lens.certificate.registry import MEASURES
    from artifact_lens.data.file_tables import INPUT_FORMATS
    from artifact_lens.exports.writers import FORMATS   # (registers the built-in formats)
    from artifact_lens.models.families import FAMILIES
    from artifact_lens.representations import REGISTRY

    for found in (MEASURES, INPUT_FORMATS, FORMATS, FAMILIES, REGISTRY):
        assert isinstance(found, Registry) and len(found), found
        name, entry = next(iter(found.items()))
        try:
            found.add(name, entry)
        except ValueError as exc:
            assert "registered twice" in str(exc)
        else:
            raise AssertionError(f"{found.what}: a name taken twice was accepted")
    assert not _copies(r"registered twice", "core/base/registry.py")


def test_no_product_function_runs_over_80_lines_of_code():
    """Issue 54, item 7: a long function is steps without names (25 were over 80 lines, `build_parser`
    350). Lines of code, its docstring aside: a long docstring documents; it adds no step."""
    import ast

    long = set()
    for path, text in _product_sources():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                    lines -= first.end_lineno - first.lineno + 1
                if lines > 80:
                    long.add(f"{path.relative_to(ROOT).as_posix()}::{node.name}")
    assert not long, f"split these into named steps: {sorted(long)}"


def test_tfidf_and_the_truncated_svd_are_fitted_in_one_place():
    """Issue 54, item 4: cues across splits fitted a TF-IDF of its own (other tokens, no sublinear
    term frequency) and the quality context scikit-learn's SVD beside Φ's. Both use Φ's now:
    `core.representations.text.fit_tfidf` and `core.representations.svd.RandomizedSVD`."""
    assert not _copies(r"\bTfidfVectorizer\(", "core/representations/text.py")
    assert not _copies(r"\bTruncatedSVD\(", "core/representations/svd.py")


def test_cosine_neighbours_and_label_counts_are_computed_in_one_place():
    """Issue 54, item 4: `nearest` (one row's neighbours, the Map page) computed its own cosines beside
    `cosine_neighbours`; now it calls it, and nothing else normalises rows or calls scikit-learn's
    cosine. A dataset's examples per label are `Dataset.label_counts`."""
    assert not _copies(r"cosine_similarity\(|np\.linalg\.norm\(X", "core/representations/neighbours.py")
    assert not _copies(r"\.table\[[^\]]*\.label\]\.(astype\(str\)\.)?value_counts\(\)", "core/data/dataset.py")
    import inspect

    from artifact_lens.representations import neighbours
    assert "cosine_neighbours(" in inspect.getsource(neighbours.nearest)


def test_word_and_bigram_counts_are_made_in_one_place():
    """Issue 54, item 4: the z-statistics' features and the pair cue table each built their own
    bigrams; `core.text.features.ngram_matrix` is the one place (the option cue table and the
    baselines of multiple-choice items read it through `token_ngrams`)."""
    assert not _copies(r"doc\[1:\] == doc\[:-1\]", "core/text/features.py")
