"""Model and forest files: a fitted estimator saved and loaded without pickle.

``model_file`` (one tree as JSON) and ``forest_file`` (a zip of JSON metadata and NumPy
arrays) write and read their formats from a fitted estimator's attributes; the estimators'
``save`` calls them. ``loader`` (``quercus.load``) sits above the estimators and forests and
builds them from a file. This package imports none of its modules here, so that saving does
not import the loader.
"""
