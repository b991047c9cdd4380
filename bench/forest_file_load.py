"""Loading forest files: the time, the peak memory and the first prediction, the current
code beside older commits (``--baseline REV``).

Run from the repository root, on a quiet machine (Linux: it reads /proc/self/status):

    .venv/bin/python bench/forest_file_load.py [--baseline REV] [--stumps 1000000]
        [--rows 100000] [--timeout 900]

Two files are written once, by the current code, as version 2 of the forest file format
(neither has a nominal split, so that its arrays are those of version 3 too, and the older
commits compared read it):

- ``stumps``: a valid forest of ``--stumps`` one-node trees (a one-tree forest's arrays
  repeated): the most trees a file of its size can hold;
- ``forest``: a default ``RandomForestClassifier`` (100 trees) fitted on ``--rows`` rows
  of a generated table of 20 numeric columns (a fixed seed).

Each cell runs in a fresh process with the quercus of its row: it imports quercus and
loads a one-tree forest first (so the cell times the load, not the imports), then loads the
file and predicts 1,000 rows. Peak MiB is the peak RSS of the step less the RSS before it
(the kernel's peak mark reset at each step). The table goes to stdout as markdown;
progress to stderr.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import zipfile
from pathlib import Path

from baseline import child_env, imported_from, sources
from cells import last_error_line, markdown_table, run_json

FILES = ("stumps", "forest")


def make_table(rows: int, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, 20))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=rows) > 0).astype(np.int64)
    return X, y


def write_stumps(path: Path, n_trees: int) -> None:
    """A forest file of ``n_trees`` one-node trees, made from a one-tree forest's file."""
    import numpy as np

    import quercus

    X, y = make_table(200)
    forest = quercus.RandomForestClassifier(1, min_samples_split=10**6, random_state=0)
    buffer = io.BytesIO()
    forest.fit(X, y).save(buffer)
    with zipfile.ZipFile(buffer) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    meta = json.loads(entries.pop("forest.json"))
    meta["training"]["n_trees"] = meta["params"]["n_estimators"] = n_trees
    meta["training"]["seeds"] *= n_trees
    arrays = {}
    for name, data in entries.items():
        key = name.removeprefix("arrays/").removesuffix(".npy")
        array = np.load(io.BytesIO(data))
        if key.endswith("_offsets"):
            array = np.arange(n_trees + 1) * array[1]
        elif len(array):
            array = np.repeat(array, n_trees, axis=0)
        meta["arrays"][key][1] = list(array.shape)
        arrays[name] = array
    write_archive(path, meta, arrays)


def write_archive(path: Path, meta: dict, arrays: dict) -> None:
    """A forest file of ``meta`` and ``arrays`` (entry name -> array), as format version 2:
    with no nominal split, its arrays are the same in both versions."""
    import numpy as np

    assert len(arrays["arrays/cat_table.npy"]) == 0, "a nominal split: not a version 2 file"
    meta["format_version"] = 2
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("forest.json", json.dumps(meta))
        for name, array in arrays.items():
            out = io.BytesIO()
            np.lib.format.write_array(out, array, allow_pickle=False)
            archive.writestr(name, out.getvalue())


def write_forest(path: Path, rows: int) -> None:
    import numpy as np

    import quercus

    X, y = make_table(rows)
    buffer = io.BytesIO()
    quercus.RandomForestClassifier(random_state=0).fit(X, y).save(buffer)
    with zipfile.ZipFile(buffer) as archive:
        meta = json.loads(archive.read("forest.json"))
        arrays = {
            info.filename: np.load(io.BytesIO(archive.read(info)))
            for info in archive.infolist()
            if info.filename != "forest.json"
        }
    write_archive(path, meta, arrays)


def run_cell(path: Path, warm_path: Path) -> dict:
    from machine import measured_step

    import quercus

    X, _ = make_table(1_000, seed=1)
    quercus.load(warm_path).predict(X)  # imports and kernels, outside the steps timed

    model, load_s, load_mib = measured_step(lambda: quercus.load(path))
    _, predict_s, predict_mib = measured_step(lambda: model.predict_proba(X))
    return {
        "quercus_file": quercus.__file__,
        "trees": len(model.estimators_),
        "load_s": load_s,
        "load_mib": load_mib,
        "predict_s": predict_s,
        "predict_mib": predict_mib,
    }


def row(name: str, path: Path, warm: Path, source, timeout: float) -> list[str]:
    cmd = [sys.executable, __file__, "--cell", str(path), "--warm", str(warm)]
    ran = run_json(cmd, timeout, env=child_env(source))
    size = f"{path.stat().st_size / 2**20:,.1f}"
    if ran.result is None:
        why = f"over {timeout:.0f} s" if ran.timed_out else last_error_line(ran)
        return [name, source.name, size, why, "", "", "", ""]
    r = ran.result
    wrong = imported_from(source, r["quercus_file"])
    if wrong:
        raise SystemExit(wrong)
    print(f"{name} {source.name}: {json.dumps(r)}", file=sys.stderr)
    return [
        name,
        source.name,
        size,
        f"{r['trees']:,}",
        f"{r['load_s']:.2f}",
        f"{r['load_mib']:,.0f}",
        f"{r['predict_s']:.3f}",
        f"{r['predict_mib']:,.0f}",
    ]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", action="append", default=[], metavar="REV")
    parser.add_argument("--stumps", type=int, default=1_000_000)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per cell")
    parser.add_argument("--cell", help=argparse.SUPPRESS)
    parser.add_argument("--warm", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cell:
        print(json.dumps(run_cell(Path(args.cell), Path(args.warm))), flush=True)
        return
    runs = sources(args.baseline)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        print("writing the files", file=sys.stderr)
        write_stumps(folder / "warm.qf", 1)
        write_stumps(folder / "stumps.qf", args.stumps)
        write_forest(folder / "forest.qf", args.rows)
        print(
            f"# stumps: {args.stumps:,} one-node trees; forest: 100 trees on {args.rows:,} x 20\n"
        )
        header = ["file", "quercus", "file MiB", "trees", "load s", "load peak MiB"]
        header += ["predict 1,000 rows s", "predict peak MiB"]
        rows = [
            row(name, folder / f"{name}.qf", folder / "warm.qf", source, args.timeout)
            for name in FILES
            for source in runs
        ]
        print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
