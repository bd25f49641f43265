"""What the text of an example is made of, task-independent: tokens as the z-statistics read
them, the simple features of paper 004 (n-grams, lengths, lexical overlap) and the feature
matrix of a dataset, and near-duplicates by shared wording.

May import: core.base, core.data.
"""
