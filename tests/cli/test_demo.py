"""The command line, driven as a user drives it."""

from _helpers import run_cli


def test_demo_prints_the_worked_numbers():
    result = run_cli("demo")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Entropy(PlayTennis) = 0.940 bits" in out
    assert "Entropy(Decision) = 1.571 bits" in out
    lines = {}
    for line in out.splitlines():
        if line.strip():  # the first line of each first word: the gain tables come first
            lines.setdefault(line.split()[0], line.split())
    assert lines["Outlook"][1:3] == ["nominal", "0.247"]
    assert lines["Pat"][1:3] == ["nominal", "0.541"]
    # The ID3 tree of PlayTennis and its rules
    assert "Outlook = Overcast: Yes (4)\n" in out
    assert "|   Wind = Strong: No (2)\n" in out
    assert "IF Outlook = Sunny AND Humidity = High THEN No" in out
    # C4.5 on the Car Evaluation data, cross-validated
    car = out[out.index("== car: 1,728 cars") :]
    accuracy = float(car.split("accuracy ")[1].split()[0])
    assert 0.90 < accuracy < 0.96
    assert "leaves" in car
    oob = float(car.split("out-of-bag accuracy ")[1].split(";")[0])
    assert oob > accuracy  # the forest beats the single tree on car


def test_no_command_is_a_usage_error():
    result = run_cli()
    assert result.returncode == 2
    assert "usage: quercus" in result.stdout


def test_unknown_command_is_a_usage_error():
    result = run_cli("fly")
    assert result.returncode == 2
    assert "invalid choice: 'fly'" in result.stderr
