"""Model and ensemble files: a fitted estimator saved and loaded without pickle.

``model_file`` (one tree as JSON) and ``ensemble_file`` (many trees: a zip of JSON metadata
and NumPy arrays; ``forest_file`` gives it a forest's own fields) write and read their
formats from a fitted estimator's attributes; the estimators' ``save`` calls them.
``loader`` (``quercus.load``) sits above the estimators and forests and builds them from a
file. This package imports none of its modules here, so that saving does not import the
loader.

Beneath the file modules, each module has one job: ``model_document`` makes and reads a tree
estimator's JSON document (``model_file`` reads and writes it as a file); ``document`` holds
what both formats' documents share (values in JSON, schema, classes, parameters, the format
and JSON Schema checks); ``checks`` checks a file's tree arrays; ``tables`` names the
category tables' forms across format versions and converts them; ``errors`` holds
:class:`~quercus.persist.errors.ModelError`. ``model_view`` reads a model file for ``quercus
show`` without building the estimator.
"""
