"""Model files as an attacker or a careless user makes them: bombs that ask for memory the
file does not hold, fields of the wrong type or range, and saves that go wrong. Every one
is a ModelError (or an OSError) naming the file and the field, within a small budget."""

import dataclasses
import io
import json
import os
import struct
import time
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

import quercus
from quercus import ModelError
from quercus._files import remove_leftovers
from quercus.persist.loader import model_from_dict
from quercus.persist.model_file import model_to_dict
from quercus.splitting.category_sets import table_sizes

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


@pytest.fixture(scope="module")
def playtennis():
    frame = quercus.datasets.load("playtennis")
    return frame.iloc[:, :-1], frame.iloc[:, -1]


@pytest.fixture(scope="module")
def forest_file(tmp_path_factory, playtennis):
    X, y = playtennis
    path = tmp_path_factory.mktemp("forest") / "f.qf"
    quercus.RandomForestClassifier(5, random_state=0).fit(X, y).save(path)
    return path


def entries(path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write_zip(path, members: dict, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def refused_within_budget(path, match, megabytes=32, seconds=5.0) -> ModelError:
    """``quercus.load(path)`` is a ModelError naming the file, allocating at most
    ``megabytes`` and taking at most ``seconds`` (generous: these take milliseconds)."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(ModelError, match=match) as info:
            quercus.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < seconds
    assert peak < megabytes * 2**20, f"{peak / 2**20:.0f} MiB allocated"
    assert str(path) in str(info.value)
    return info.value


# -- bombs -----------------------------------------------------------------------------------


def test_a_compressed_entry_is_refused_before_it_is_inflated(tmp_path, forest_file):
    members = entries(forest_file)
    # 256 MiB of zeros deflate to a quarter of a megabyte: the old loader inflated it all.
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (2**25,)}
    )
    members["arrays/threshold.npy"] = header.getvalue() + bytes(2**28)
    path = write_zip(tmp_path / "bomb.qf", members, compression=zipfile.ZIP_DEFLATED)
    assert path.stat().st_size < 2**20
    refused_within_budget(path, "is compressed; quercus writes none")


def test_metadata_that_announces_more_than_the_file_holds(tmp_path, forest_file):
    members = entries(forest_file)
    meta = json.loads(members["ensemble.json"])
    n = 10**9  # a billion nodes, consistently announced for every per-node array
    for key, (dtype, shape) in meta["arrays"].items():
        if key in ("children", "cat_table", "tree_weights") or key.endswith("_offsets"):
            continue
        meta["arrays"][key] = [dtype, [n, *shape[1:]]]
    members["ensemble.json"] = json.dumps(meta)
    path = write_zip(tmp_path / "announce.qf", members)
    refused_within_budget(path, r"entry 'arrays/\w+\.npy': its header does not match the metadata")


def test_an_array_header_that_lies_about_its_shape(tmp_path, forest_file):
    members = entries(forest_file)
    data = members["arrays/impurity.npy"]
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (10**10,)}
    )
    real = np.load(io.BytesIO(data))
    members["arrays/impurity.npy"] = header.getvalue() + real.tobytes()
    path = write_zip(tmp_path / "header.qf", members)
    refused_within_budget(path, "its header does not match the metadata")


def test_a_central_directory_that_claims_a_huge_entry(tmp_path, forest_file):
    raw = bytearray(forest_file.read_bytes())
    # The central directory's sizes of the first entry: claim 40 GB, stored.
    at = raw.find(b"PK\x01\x02")
    struct.pack_into("<II", raw, at + 20, 40 * 10**9 % 2**32, 40 * 10**9 % 2**32)
    path = tmp_path / "claims.qf"
    path.write_bytes(bytes(raw))
    refused_within_budget(path, "claim more bytes than the file has|truncated or corrupt")


def test_extra_and_duplicate_entries(tmp_path, forest_file):
    members = entries(forest_file)
    path = write_zip(tmp_path / "extra.qf", {**members, "arrays/payload.npy": b"x" * 100})
    refused_within_budget(path, "do not match the arrays ensemble.json lists")
    with zipfile.ZipFile(tmp_path / "twice.qf", "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("ensemble.json", members["ensemble.json"])
    refused_within_budget(tmp_path / "twice.qf", "an entry name appears twice")


def test_a_json_model_with_a_huge_integer(tmp_path):
    path = tmp_path / "digits.json"
    path.write_text('{"format": "quercus-model", "format_version": ' + "9" * 100_000 + "}")
    error = refused_within_budget(path, "holds a value no model file has")
    assert "digits" in str(error)


def test_a_label_dtype_that_would_allocate_gigabytes(tmp_path, playtennis):
    doc = model_to_dict(quercus.ID3Classifier().fit(*playtennis))
    doc["classes"]["dtype"] = "<U100000000"  # 400 MB for each label
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(doc))
    refused_within_budget(path, "field classes.dtype: dtype '<U100000000' is wider")
    doc["params"]["max_bins"] = {"array": [1], "dtype": "V1000000000"}
    path.write_text(json.dumps(doc))
    refused_within_budget(path, "a tagged array: dtype 'V1000000000' is not a dtype")


# -- fields of the wrong type or range -------------------------------------------------------


def edited(tmp_path, doc, change, name="m.json"):
    doc = json.loads(json.dumps(doc))
    change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def id3_doc(playtennis):
    return model_to_dict(quercus.ID3Classifier().fit(*playtennis))


def _pad_children(d):
    d["tree"]["children"] += [0] * 3_000_000


def _negative_counts(d):
    d["tree"]["value"][1] = [-4.0, 8.0]


@pytest.mark.parametrize(
    "change, match",
    [
        (_pad_children, "field tree: children has 3000007 entries, but the splits have 7"),
        (_negative_counts, "field tree: a node has a negative weight or class count"),
        (
            lambda d: d["params"].update(max_depth="3"),
            "field params.max_depth: max_depth must be an integer >= 0 or None, got '3'",
        ),
        (
            lambda d: d["params"].update(criterion="chaos"),
            "field params.criterion: criterion must be one of 'gini', 'entropy'",
        ),
        (
            lambda d: d["params"].update(random_state=-5),
            r"field params.random_state: random_state must be None, an integer in \[0, 2\*\*32\)",
        ),
        (
            lambda d: d["training"].update(n_samples=15),
            "field training.n_samples: not the root's n_node_samples",
        ),
        (
            lambda d: d["training"].update(n_samples="14"),
            "field training.n_samples: '14' is not of type 'integer'",
        ),
        (
            lambda d: d["tree"]["n_node_samples"].__setitem__(3, -2),
            "field tree: a node has a negative number of samples",
        ),
        (
            lambda d: d["fitted"].update(max_features_=9),
            "field fitted.max_features_: more than the number of features",
        ),
        (lambda d: d.update(created=["today"]), "field created: .* is not of type 'string'"),
        (lambda d: d.update(extra=1), r"field the document: Additional properties .*'extra'"),
        (
            lambda d: d["schema"]["features"][0].update(name=""),
            r"field schema.features\[0\].name: '' should be non-empty",
        ),
        (
            lambda d: d["tree"].update(regression="no"),
            "field tree.regression: 'no' is not of type 'boolean'",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else getattr(v, "__name__", "edit"),
)
def test_fields_of_the_wrong_type_or_range(tmp_path, id3_doc, change, match):
    path = edited(tmp_path, id3_doc, change)
    refused_within_budget(path, match, megabytes=1024, seconds=30)


def test_an_old_files_unused_category_entries_are_dropped_on_load(tmp_path, playtennis):
    # Pruning leaves the category entries of removed splits behind; files written before
    # the writer compacted them still load, with the table compacted.
    X, y = playtennis
    model = quercus.C45Classifier().fit(X, y)
    doc = model_to_dict(model)
    used = len(doc["tree"]["cat_table"])
    doc["tree"]["cat_table"] += [0, 1, 0]
    loaded = quercus.load(edited(tmp_path, doc, lambda d: None))
    assert len(loaded.tree_.cat_table) == used
    assert np.array_equal(loaded.predict(X), model.predict(X))


def test_a_pruned_tree_is_saved_with_a_compact_category_table():
    """Pruning leaves the tables of the splits it removed behind; the file keeps one table
    (a header, then a word per 32 categories or a list of codes) per subset split, and no
    table for a multiway one."""
    table = quercus.read_table(quercus.datasets.path("car"), nominal=["doors", "persons"])
    X, y = table.X, table.y
    model = quercus.CARTClassifier(ccp_alpha=0.01).fit(X, y)
    assert len(model.tree_.cat_table) > 0
    doc = model_to_dict(model)
    tree = doc["tree"]
    subsets = [i for i, k in enumerate(tree["kind"]) if k == 3]
    features = doc["schema"]["features"]
    n_categories = [len(features[tree["feature"][i]]["categories"]) for i in subsets]
    sizes = table_sizes(
        np.array(tree["cat_table"]), [tree["cat_start"][i] for i in subsets], n_categories
    )
    assert subsets and len(tree["cat_table"]) == sum(sizes) < len(model.tree_.cat_table)
    loaded = model_from_dict(doc)
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


# -- the same bytes for the same model -------------------------------------------------------


def _models(playtennis):
    X, y = playtennis
    return [
        quercus.C45Classifier().fit(X, y),
        quercus.C45RulesClassifier().fit(X, y),
        quercus.RandomForestClassifier(4, random_state=3).fit(X, y),
    ]


@pytest.mark.parametrize("which", [0, 1, 2], ids=["tree", "rules", "forest"])
def test_the_same_model_gives_the_same_bytes(tmp_path, playtennis, monkeypatch, which):
    first, second = _models(playtennis)[which], _models(playtennis)[which]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    a = first.save(tmp_path / "a.model").read_bytes()
    time.sleep(1.1)  # a different second, as a wall-clock date would show
    b = second.save(tmp_path / "b.model").read_bytes()
    assert a == b
    assert b"2023-11-14T22:13:20+00:00" in a
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    c = first.save(tmp_path / "c.model").read_bytes()
    assert len(c) == len(a) and c != a
    if which == 2:  # a zip: the metadata's checksum changes with the date
        c, a = _members(c), _members(a)
        assert c.keys() == a.keys()
        c, a = b"".join(c.values()), b"".join(a.values())
    assert c.replace(_created(c), _created(a)) == a  # only the date differs


def _members(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _created(data: bytes) -> bytes:
    at = data.index(b'"created": "') + len(b'"created": "')
    return data[at : data.index(b'"', at)]


def test_a_malformed_source_date_epoch_is_an_error(tmp_path, playtennis, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(ValueError, match="SOURCE_DATE_EPOCH='yesterday' is not a number"):
        quercus.ID3Classifier().fit(*playtennis).save(tmp_path / "m.json")
    assert list(tmp_path.iterdir()) == []


# -- saving where it cannot be saved ---------------------------------------------------------


@pytest.fixture(scope="module", params=["tree", "forest"])
def fitted(request, playtennis):
    if request.param == "tree":
        return quercus.ID3Classifier().fit(*playtennis)
    return quercus.RandomForestClassifier(3, random_state=0).fit(*playtennis)


def test_saving_into_a_missing_directory_names_the_path(tmp_path, fitted):
    target = tmp_path / "no" / "such" / "m.model"
    with pytest.raises(FileNotFoundError) as info:
        fitted.save(target)
    assert str(info.value) == (f"cannot write {target}: directory {target.parent} does not exist")
    assert ".tmp" not in str(info.value)


def test_saving_onto_a_directory_names_the_path(tmp_path, fitted):
    with pytest.raises(IsADirectoryError) as info:
        fitted.save(tmp_path)
    assert str(info.value) == f"cannot write {tmp_path}: it is a directory"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_saving_into_a_read_only_directory(tmp_path, fitted):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(PermissionError, match=f"cannot write {tmp_path / 'm'}: directory"):
            fitted.save(tmp_path / "m")
    finally:
        tmp_path.chmod(0o700)


def _age(path, seconds):
    then = time.time() - seconds
    os.utime(path, (then, then))


@pytest.mark.skipif(fcntl is None, reason="leftovers are told by file locks")
def test_a_killed_saves_leftovers_are_removed_by_the_next_save(tmp_path, fitted):
    leftover = tmp_path / ".m.model.0123456789ab.tmp"
    other_name = tmp_path / ".predictions.csv.fedcba987654.tmp"
    fresh = tmp_path / ".m.model.aaaaaaaaaaaa.tmp"  # a writer may not have locked it yet
    alive = tmp_path / ".m.model.bbbbbbbbbbbb.tmp"  # a writer holds its lock
    mine = tmp_path / ".notes.txt.tmp"  # not of our pattern: the user's
    for path in (leftover, other_name, fresh, alive, mine):
        path.write_bytes(b"half a model")
    for path in (leftover, other_name, alive, mine):
        _age(path, 60)
    with open(alive, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        fitted.save(tmp_path / "m.model")
        names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["m.model", fresh.name, alive.name, mine.name])
    assert remove_leftovers(tmp_path) == [alive]  # its writer is gone now


def test_a_save_that_fails_midway_leaves_nothing(tmp_path, fitted, monkeypatch):
    import quercus._files as files

    def no_space(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", no_space)
    with pytest.raises(OSError, match="No space left"):
        fitted.save(tmp_path / "m.model")
    assert list(tmp_path.iterdir()) == []


def test_zlib_is_not_needed_to_read_a_forest(forest_file, monkeypatch):
    # Every entry is stored: reading never inflates anything.
    monkeypatch.setattr(zlib, "decompressobj", None)
    assert quercus.load(forest_file).n_estimators == 5


def test_the_schema_is_valid_json_schema_and_describes_what_quercus_writes(playtennis):
    from importlib import resources

    from jsonschema import Draft202012Validator

    from quercus.persist.document import check_document
    from quercus.persist.ensemble_file import ensemble_to_dict
    from quercus.persist.forest_file import FOREST

    text = resources.files("quercus.persist").joinpath("schemas/model-files-v1.json").read_text()
    Draft202012Validator.check_schema(json.loads(text))
    for model in _models(playtennis)[:2]:
        check_document(model_to_dict(model), "model")
    check_document(ensemble_to_dict(_models(playtennis)[2], FOREST)[0], "ensemble")


def test_the_schema_names_the_feature_kinds_quercus_has():
    from importlib import resources

    from quercus._config import FEATURE_KIND_NAMES

    text = resources.files("quercus.persist").joinpath("schemas/model-files-v1.json").read_text()
    feature = json.loads(text)["$defs"]["schema"]["properties"]["features"]["items"]
    assert feature["properties"]["kind"]["enum"] == list(FEATURE_KIND_NAMES)


def test_a_central_directory_at_an_impossible_offset(tmp_path, forest_file):
    raw = bytearray(forest_file.read_bytes())
    end = raw.rfind(b"PK\x05\x06")
    struct.pack_into("<I", raw, end + 16, 2**31)  # where the central directory starts
    path = tmp_path / "offset.qf"
    path.write_bytes(bytes(raw))
    refused_within_budget(path, "is truncated or corrupt")


def test_a_tree_with_statistics_that_are_not_finite_is_not_saved(tmp_path):
    """Input checks keep a fit from overflowing; a tree whose statistics are NaN or
    infinite all the same (built or changed by hand) is refused by save, naming the node,
    not written as a file that loading refuses."""
    X, y = quercus.datasets.load("playtennis").iloc[:, :-1], [0, 1] * 7
    model = quercus.DecisionTreeClassifier().fit(X, y)
    value = model.tree_.value.copy()
    value[1, 0] = np.nan
    model.tree_ = dataclasses.replace(model.tree_, value=value)
    with pytest.raises(ValueError, match="node 1's value is not finite: the model is not saved"):
        model.save(tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()
    forest = quercus.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    forest.trees_.merged.weighted_n_node_samples[forest.trees_.node_offsets[1]] = np.inf
    with pytest.raises(ValueError, match="tree 1, node 0's weighted_n_node_samples is not finite"):
        forest.save(tmp_path / "f.qf")
    assert not (tmp_path / "f.qf").exists()
