"""The learners: growing a tree on binned rows.

``grower`` turns growth parameters into the kernels' settings and calls a grower: the
compiled one (``_grow``, the loop over its parts ``_settings``, ``_draws``, ``_buffers``,
``_search``, ``_apply`` and ``_histogram_pool``, its node records in ``_records``; a
tree's subtrees on threads: ``threads``) or the level-wise one (``levelwise``) over a
statistics provider (``statistics``). ``rows`` is the seam with the ensembles: training
rows, in this process or on a Dask cluster, that grow the trees they are asked for."""
