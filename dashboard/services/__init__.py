"""What the pages ask for and start: the current dataset, Φ and run (`current`), background jobs
(`pipelines`, `cached_jobs`, `filters`, `quality`, `evaluation`, …), the team store's reads and
writes, each checking the member's role (`team`, `creation`, `reviews`, `agreement`), the
application layer's use cases (`core.usecases`) and the pages' list (`navigation`). Never draws
(no streamlit)."""
