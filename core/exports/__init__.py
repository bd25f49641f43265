"""What leaves the tool for a curator's files: the output policy (what a command may write
and the one way it writes it, `outputs`), the one CSV writer (`safe_csv`), the filtered split in
CSV, Parquet, JSONL or a ``datasets`` folder with its manifest (`writers`), the dataset card
(`card`), an evaluation's files and one-page report (`report`), the report of cues across splits
(`transfer_report`), the export's options applied in one order for the page and the CLI (`plan`),
and a new cue's rows as a Label Studio project (`label_studio`).

May import: core.base, core.data, core.text, core.zstats, core.plots, core.evaluation, core.results,
core.quality.
"""
