"""`skatsim show`: a deal of a run printed as it was logged."""

import polars as pl
from click.testing import CliRunner

from sim.commands.cli import main
from tests.reference_run import table


def test_show_prints_the_deal_as_logged(reference):
    text = CliRunner().invoke(main, ["show", str(reference), "5"]).stdout   # a first run's compile notice is on stderr
    row = table(reference).filter(pl.col("deal_id") == 5).row(0, named=True)
    assert text.startswith("Deal 5 of")
    assert "Forehand" in text and "Auction" in text
    if not row["passed"]:
        assert text.count(" -> ") == sum(1 for c in row["tricks"] if c >= 0) // 3
        assert f"score {row['score']:+d}" in text
