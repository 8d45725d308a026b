"""A command given what it cannot use (a profile that does not exist, a folder that holds no run): one
line that says so, and exit code 1."""

from click.testing import CliRunner

from sim.commands.cli import main


def test_cli_errors_are_one_line(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["simulate", "--deals", "10", "--profile", "nope", "--out", str(tmp_path / "r")])
    assert result.exit_code == 1 and result.output.strip().count("\n") == 0
    assert "unknown profile 'nope'" in result.output
    result = runner.invoke(main, ["show", str(tmp_path), "3"])
    assert result.exit_code == 1 and "not a run folder" in result.output
