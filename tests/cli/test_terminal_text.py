"""Names in the data that hold terminal escape codes (a column, a category, a class) and file
names that do: what ``quercus`` prints on a terminal shows them escaped (``\\x1b``), never
obeys them. Its results keep the exact names where they go to a pipe or a file (data, read by
programs); its messages on stderr (errors, warnings, notes, progress) are escaped always."""

import io
import os
import subprocess
import sys
import warnings

import pandas as pd
import pytest

import quercus
from quercus.cli import commands, main
from quercus.cli.output import terminal_text
from quercus.cli.progress import Progress

ESC = "\x1b"
# Erase the screen, retitle the window, and a C1 CSI (what ESC [ means, in one character).
COLUMN = "wind\x1b[2J"
VALUE = "calm\x1b]0;owned\x07"
LABEL = "no\x9b31m"


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A data file whose column name, category and class label hold escape codes, and the
    ID3 model of it."""
    folder = tmp_path_factory.mktemp("hostile")
    frame = pd.DataFrame(
        {
            COLUMN: [VALUE, "gale", VALUE, "gale", VALUE, "gale"],
            "sky": ["sun", "sun", "rain", "rain", "sun", "rain"],
            "play": [LABEL, "yes", LABEL, "yes", LABEL, "yes"],
        }
    )
    data = folder / "hostile.csv"
    frame.to_csv(data, index=False)
    model = folder / "hostile.json"
    quercus.ID3Classifier().fit(frame.iloc[:, :-1], frame.iloc[:, -1]).save(model)
    return data, model


def on_terminal(monkeypatch, capsys, *args) -> tuple[int, str, str]:
    """``quercus ARGS`` in this process with its standard output a terminal: the status,
    what the terminal shows, and stderr."""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    status = main([str(arg) for arg in args])
    return status, terminal.getvalue(), capsys.readouterr().err


def assert_shown_escaped(text: str) -> None:
    assert ESC not in text and "\x9b" not in text and "\x07" not in text, repr(text)


# -- the helper ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("wind\x1b[2J", "wind\\x1b[2J"),
        ("a\x07b\x00c\x7fd", "a\\x07b\\x00c\\x7fd"),
        ("over\rwritten", "over\\x0dwritten"),
        ("csi\x9b31m", "csi\\x9b31m"),
        ("abc\u202egnp.exe", "abc\\u202egnp.exe"),  # shown reversed after it
        ("two\nlines\tand a tab, été, 樹", "two\nlines\tand a tab, été, 樹"),
    ],
)
def test_control_characters_are_shown_escaped(raw, shown):
    assert terminal_text(raw) == shown


# -- results on a terminal, and elsewhere ----------------------------------------------------


def test_fit_on_a_terminal_shows_the_names_escaped(hostile, monkeypatch, capsys):
    data, _ = hostile
    status, shown, err = on_terminal(monkeypatch, capsys, "fit", data, "--algorithm", "id3")
    assert status == 0, err
    assert_shown_escaped(shown + err)
    assert "wind\\x1b[2J = calm\\x1b]0;owned\\x07: no\\x9b31m (3)" in shown


@pytest.mark.parametrize("fmt", ["text", "rules", "dot", "json"])
def test_show_on_a_terminal_shows_the_names_escaped(hostile, monkeypatch, capsys, fmt):
    _, model = hostile
    status, shown, err = on_terminal(monkeypatch, capsys, "show", model, "--format", fmt)
    assert status == 0, err
    assert_shown_escaped(shown)
    assert "no\\x9b31m" in shown  # JSON writes ESC as \u001b itself, but not the C1 CSI


def test_evaluate_and_predict_on_a_terminal_show_the_labels_escaped(hostile, monkeypatch, capsys):
    data, model = hostile
    status, shown, err = on_terminal(monkeypatch, capsys, "evaluate", model, data)
    assert status == 0, err
    assert_shown_escaped(shown)
    assert "no\\x9b31m" in shown
    status, shown, err = on_terminal(monkeypatch, capsys, "predict", model, data, "--proba")
    assert status == 0, err
    assert_shown_escaped(shown)
    assert shown.splitlines()[0] == "prediction,P(no\\x9b31m),P(yes)"


def test_results_to_a_pipe_or_a_file_keep_the_exact_names(hostile, tmp_path, capsys):
    data, model = hostile
    assert main(["predict", str(model), str(data)]) == 0  # capsys: not a terminal
    assert capsys.readouterr().out.splitlines()[1] == LABEL
    rules = tmp_path / "rules.txt"
    assert main(["show", str(model), "--format", "rules", "-o", str(rules)]) == 0
    assert f"{COLUMN} = {VALUE}" in rules.read_text(encoding="utf-8")


# -- messages on stderr: always escaped ------------------------------------------------------


def test_an_error_naming_a_file_shows_it_escaped(tmp_path, capsys):
    missing = tmp_path / "no\x1b[2Jsuch.csv"
    assert main(["fit", str(missing)]) == 1
    err = capsys.readouterr().err
    assert_shown_escaped(err)
    assert err.startswith("quercus: error: ") and "no\\x1b[2Jsuch.csv" in err


def test_errors_and_warnings_of_any_command_are_escaped(monkeypatch, capsys):
    def warns_then_fails(args, out):
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # the suite makes warnings errors
            warnings.warn(f"column {COLUMN} is odd", UserWarning, stacklevel=1)
        raise ValueError(f"value {VALUE} is bad")

    monkeypatch.setattr(commands, "run_datasets", warns_then_fails)
    assert main(["datasets"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "quercus: warning: column wind\\x1b[2J is odd",
        "quercus: error: value calm\\x1b]0;owned\\x07 is bad",
    ]


def test_a_usage_error_shows_the_arguments_escaped(capsys):
    with pytest.raises(SystemExit) as info:
        main(["datasets", "--copy", ".", "--no\x1b[2J"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert_shown_escaped(err)
    assert "unrecognized arguments: --no\\x1b[2J" in err


def test_a_note_names_the_file_escaped(hostile, tmp_path, capsys):
    data, _ = hostile
    output = tmp_path / "m\x1b[2J.json"
    assert main(["fit", str(data), "--algorithm", "id3", "-o", str(output)]) == 0
    assert output.is_file()  # the file has the exact name
    err = capsys.readouterr().err
    assert_shown_escaped(err)
    assert f"quercus: model saved to {tmp_path}/m\\x1b[2J.json" in err


def test_progress_shows_its_text_escaped_and_still_draws():
    terminal = _Terminal()
    with Progress(stream=terminal) as progress:
        progress.update("fit: reading a\x1b[2Jb.csv")
        progress.bar(2, "cv: folds of \x1b]0;x\x07").close()
    shown = terminal.getvalue()
    assert "fit: reading a\\x1b[2Jb.csv" in shown and "cv: folds of \\x1b]0;x\\x07" in shown
    assert "\x1b[2J" not in shown and "\x07" not in shown
    assert shown.endswith("\r")  # tqdm's own control characters still erase the line


# -- on a real terminal ----------------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals are POSIX")
def test_show_on_a_pseudo_terminal(hostile):
    import pty

    _, model = hostile
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "quercus", "show", str(model)], stdout=follower, stderr=follower
    )
    os.close(follower)
    received = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other side closed: Linux says EIO
            break
        if not chunk:
            break
        received += chunk
    os.close(leader)
    assert process.wait(timeout=120) == 0
    shown = received.decode("utf-8")
    assert_shown_escaped(shown)
    assert "wind\\x1b[2J = calm\\x1b]0;owned\\x07: no\\x9b31m (3)" in shown
