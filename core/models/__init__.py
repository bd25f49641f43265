"""The model families the tool trains, one registry (issue 43: an extension point is one entry).

`families.py` holds `ModelFamily` (its name, what a person reads, how it is built, whether it is
in paper 000's Table 3 by default, whether it gives probabilities, its device version) and the
built-in families; `make_model` is the one way any package builds a scikit-learn model of a
family, so one family's defaults live in one place. `on_device.py` trains the linear families'
device versions (issue 32).

The evaluation's families table, PVI, the certificate, the quality context's models, the
consistency filter, the cues across splits and AFLite's logistic/svm scorers build their
models here; the CLI's ``--families`` and ``--family`` choices and the Evaluate page's options
are read from the registry.

May import: core.base.
"""
from .families import (FAMILIES, KNN_K, RBF_EXACT_MAX, ModelFamily, OnDevice, check_families, family, make_model,
                                  names, probabilistic, register, table_names, title)

__all__ = ["ModelFamily", "OnDevice", "FAMILIES", "register", "family", "names", "table_names", "probabilistic", "title",
           "make_model", "check_families", "KNN_K", "RBF_EXACT_MAX"]
