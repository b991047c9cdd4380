"""The pieces of training on several machines: the mergeable summaries that bin a numeric
feature from its partitions (``summaries``, plain NumPy run inside the workers' tasks) and
the statistics providers whose rows live on a cluster's workers (``dask_statistics``).
Nothing here is imported by ``import quercus``, so the engine stays an optional extra.
"""
