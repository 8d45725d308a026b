"""Running the command line in tests."""

from __future__ import annotations

from click.testing import CliRunner


def stdout_runner() -> CliRunner:
    """A runner whose output is stdout alone: lines told on stderr (kernels compiling on a first run)
    stay out of what the command prints."""
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2 mixes stderr in by default
    except TypeError:
        return CliRunner()
