"""What every package stands on: errors the engine raises on purpose, the typed settings
(``ARTIFACT_LENS_*``), progress and cancellation, how many cores and how much memory work may
use, the devices arithmetic may run on (`devices`), background jobs (`jobs`) and where their
heavy steps run (`job_backends`: threads, or a Dask cluster through `cluster`), where the tool
keeps files it can recompute and the one atomic write (`paths`), the store of computed results
(`result_store.ResultStore`), stable keys (`keys`), the traffic lights' vocabulary and the
escaping of user strings for every output (`escaping`), and the one PCA of dense vectors (`pca`:
the map's reduction, images' ``pca=``, the quality context's neighbour space, AFLite's ``max_dim``).

May import: nothing else in core.
"""
