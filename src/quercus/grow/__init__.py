"""The learners' side of growing trees: the training rows an ensemble grows its trees on
(:mod:`quercus.grow.rows`), in this process or on a Dask cluster."""
