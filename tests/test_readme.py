"""Every code block of the README runs as written, in a fresh directory: the Python blocks in
order in one namespace, and every ``quercus`` line of the shell blocks as a command (the
``make`` lines are the suite itself and the demo, run by CI and tests/cli/test_demo.py)."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[str]:
    return [code for lang, code in BLOCK.findall(README.read_text()) if lang == language]


def commands() -> list[str]:
    lines = []
    for code in blocks("sh"):
        for line in code.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("quercus "):
                lines.append(line)
            else:
                assert line.startswith("make ") or not line, f"README line not run: {line}"
    return lines


def test_the_readme_has_code_to_run():
    assert len(blocks("python")) >= 3 and len(commands()) >= 10


def test_python_blocks_run(tmp_path, monkeypatch):
    # Without a warning: the suite makes one an error (car's doors, 2 ... 5more, are labels).
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for code in blocks("python"):
        exec(compile(code, str(README), "exec"), namespace)  # noqa: S102 - the README's code


@pytest.mark.slow
def test_shell_commands_run(tmp_path):
    for line in commands():
        args = shlex.split(line)[1:]
        done = subprocess.run(
            [sys.executable, "-m", "quercus", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, (line, done.stderr)
        assert "Traceback" not in done.stderr, line
