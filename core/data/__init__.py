"""Datasets: the `Dataset` (a table of labelled examples with stable ids and column roles),
the sources that turn what a curator has into one (local files, folders, the Hub, the built-in
demos), the files a load reads, and label encoding.

May import: core.base.
"""
