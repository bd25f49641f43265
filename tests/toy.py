"""A small labelled dataset with one informative column and its representation, for the
store tests, the durability worker and the store benchmark (a fit takes milliseconds)."""
import numpy as np
import pandas as pd

from artifact_lens.data.dataset import Dataset


def toy_data(n: int = 300, d: int = 6, name: str = "toy"):
    """(Dataset, representation): ids e0…, labels a/b/c, X[:, 0] shifted by the label."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, 0] += y
    table = pd.DataFrame({"text": [f"t{i}" for i in range(n)], "label": np.array(["a", "b", "c"])[y]},
                         index=pd.Index([f"e{i}" for i in range(n)], name="id"))
    ds = Dataset(table=table, label="label", text=["text"], name=name)
    rep = type("Rep", (), {"X": X, "ids": table.index.to_numpy(), "excluded_ids": [], "spec": f"{name}-{d}d",
                           "info": {}})
    return ds, rep
