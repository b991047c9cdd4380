"""Checks that tests in several folders share (imported as ``_helpers``: pytest puts this
folder on the path): the comparison of two fitted trees, and the command line run in a
subprocess, as a user runs it."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np

# Every array of a tree (quercus.tree.Tree), in the order of its fields.
TREE_FIELDS = (
    "kind",
    "feature",
    "threshold",
    "child_start",
    "n_children",
    "children",
    "cat_start",
    "cat_table",
    "missing_child",
    "value",
    "impurity",
    "n_node_samples",
    "weighted_n_node_samples",
    "depth",
)


def assert_same_tree(a, b, *, skip=(), close=(), rtol=0.0, atol=0.0):
    """Trees ``a`` and ``b`` are the same: node count, ``regression`` and ``fractional``,
    and every array of :data:`TREE_FIELDS` but those in ``skip``, of the same dtype and
    equal element for element (NaN equals NaN). The arrays named in ``close`` are only
    equal within ``rtol`` and ``atol`` (``numpy.testing.assert_allclose``)."""
    unknown = {*skip, *close} - set(TREE_FIELDS)
    assert not unknown, f"not arrays of a tree: {sorted(unknown)}"
    assert a.node_count == b.node_count, (a.node_count, b.node_count)
    assert a.regression == b.regression
    assert a.fractional == b.fractional
    for name in TREE_FIELDS:
        if name in skip:
            continue
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, (name, x.dtype, y.dtype)
        if name in close:
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=name)
        else:
            np.testing.assert_array_equal(x, y, err_msg=name)


def run_cli(*args, cwd=None, env=None, stdout=subprocess.PIPE, text=True):
    """``python -m quercus ARGS`` (each argument through ``str``) in a subprocess, stderr
    captured: the ``CompletedProcess``. ``env`` holds variables set on top of this
    process's environment; ``stdout`` is where the output goes (captured by default);
    ``text=False`` gives bytes."""
    return subprocess.run(
        [sys.executable, "-m", "quercus", *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=text,
        cwd=cwd,
        env=None if env is None else {**os.environ, **env},
        timeout=600,
    )


def in_process(*argv):
    """``quercus ARGV`` (each argument through ``str``) run in this process, as
    :func:`quercus.cli.main`: ``(exit status, stdout, stderr)``, which
    :func:`one_line_error` takes too. Quicker than :func:`run_cli`: the kernels and the
    modules are loaded once for every run of a test session."""
    import contextlib
    import io

    from quercus.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([*map(str, argv)])
    return status, out.getvalue(), err.getvalue()


def one_line_error(result, status=1):
    """The error message of a failed ``quercus`` run, the last line of its stderr.

    ``result`` is a ``CompletedProcess`` (:func:`run_cli`) or the ``(status, stdout,
    stderr)`` of a run in this process. Checks: the run ended with ``status``, printed no
    traceback, and its message is ``quercus[ COMMAND]: error: ...``; a runtime error
    (status 1) printed that one line (a usage error, status 2, prints the usage first)."""
    if isinstance(result, tuple):
        returncode, stdout, stderr = result
    else:
        returncode, stdout, stderr = result.returncode, result.stdout, result.stderr
    assert returncode == status, (stdout, stderr)
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert lines and re.match(r"quercus( [\w-]+)?: error: ", lines[-1]), stderr
    if status == 1:
        assert len(lines) == 1, stderr
        assert lines[0].startswith("quercus: error: "), stderr
    return lines[-1]
