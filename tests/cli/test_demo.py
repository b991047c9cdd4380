"""The command line, driven as a user drives it."""

import subprocess
import sys


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "quercus", *args], capture_output=True, text=True, timeout=120
    )


def test_demo_prints_the_worked_numbers():
    result = run("demo")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Entropy(PlayTennis) = 0.940 bits" in out
    assert "Entropy(Decision) = 1.571 bits" in out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert lines["Outlook"][1:3] == ["nominal", "0.247"]
    assert lines["Pat"][1:3] == ["nominal", "0.541"]


def test_no_command_is_a_usage_error():
    result = run()
    assert result.returncode == 2
    assert "usage: quercus" in result.stdout


def test_unknown_command_is_a_usage_error():
    result = run("fly")
    assert result.returncode == 2
    assert "invalid choice: 'fly'" in result.stderr
