"""Reports of small runs: a run of any size gives a complete report.

Every case below must give report.html and summary.md, every table with its
columns (header row only when it has no rows), the plots that have data and no
others, and a sentence instead of each table or plot without data.
"""

import base64
import re
from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest

from analysis import analyze, compare_evaluators, contract_success, load_run, plots, thresholds
from analysis.binning import by_evaluator
from analysis.compare import COMPARISON_SCHEMA, comparisons
from analysis.evaluator_comparison import MEASURE_SCHEMAS, measure_tables, rank
from analysis.mix import ENDS_SCHEMA, MIX_SCHEMA
from analysis.page import NO_GAMES
from analysis.pairs import PAIR_SCHEMA
from analysis.thresholds import THRESHOLD_SCHEMAS, threshold_tables
from sim.runs.simulation import simulate

PNG = b"\x89PNG\r\n\x1a\n"

# --- the expected tables and their header rows ---------------------------------------------

RESULTS = ["games", "won", "schneider_count", "schwarz_count", "overbid_count", "mean_value", "oh_games", "oh_won",
           "auctions", "contested_count",
           *(f"{rate}{end}" for rate in ("win_rate", "schneider_rate", "schwarz_rate", "overbid_rate", "oh_win_rate",
                                         "contested_rate")
             for end in ("", "_lo", "_hi")),
           *(f"{mean}{end}" for mean in ("mean_score", "mean_sf") for end in ("", "_lo", "_hi", "_interval"))]
CONTRACT_HEADERS = {
    "contracts_by_game": ["run", "contract", *RESULTS],
    "contracts_by_variant": ["run", "contract", *RESULTS],
    "contracts_by_seat": ["run", "contract", "declarer", *RESULTS],
    "contracts_by_matadors": ["run", "contract", "matadors", *RESULTS],
}
GAME_MODE_HEADERS = {
    "bid_success": ["run", "contract", "bid", *RESULTS],
    "passed_in": ["run", "deals", "passed", "passed_rate", "passed_rate_lo", "passed_rate_hi"],
    "game_mix": ["run", *MIX_SCHEMA],
    "game_ends": ["run", *ENDS_SCHEMA],
}
EVALUATOR_HEADERS = {
    **{name: ["run", "evaluator", *schema] for name, schema in THRESHOLD_SCHEMAS.items()},
    "evaluators": ["run", "evaluator", *MEASURE_SCHEMAS["evaluators"], "rank"],
    "calibration": ["run", "evaluator", *MEASURE_SCHEMAS["calibration"]],
    "evaluator_pairs": ["run", *PAIR_SCHEMA],
}
COMPARISON_HEADER = {"comparison": list(COMPARISON_SCHEMA)}


def expected_headers(modes: set[str], runs: int) -> dict[str, list[str]]:
    headers = {**CONTRACT_HEADERS, **EVALUATOR_HEADERS}
    if "game" in modes:
        headers.update(GAME_MODE_HEADERS)
    if runs > 1:
        headers.update(COMPARISON_HEADER)
    return headers


# --- the sample runs and their reports ----------------------------------------------------

RUNS = {  # name: simulate's arguments
    "one": dict(deals=1, seed=0),
    "ten": dict(deals=10, seed=0),
    "ten_random": dict(deals=10, seed=0, profile="random"),
    "ten_seed1": dict(deals=10, seed=1),
    "passed": dict(deals=3, seed=690, profile="threshold"),   # all three deals passed in
    "no_null": dict(deals=40, seed=3, profile="threshold"),   # suit games and grands only
    "declare": dict(deals=1, seed=0, mode="declare"),
}
CASES = {  # name: (runs, analyze's keyword arguments)
    "1 deal": (["one"], {}),
    "10 deals": (["ten"], {}),
    "all passed in": (["passed"], {}),
    "no null games": (["no_null"], {}),
    "declare mode, 1 deal": (["declare"], {}),
    "classic evaluator only": (["ten"], {"evaluators": ["classic"]}),
    "same seed": (["ten", "ten_random"], {}),
    "different seeds": (["ten", "ten_seed1"], {}),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("small")
    return {name: simulate(**args, out=root / name, jobs=1) for name, args in RUNS.items()}


@pytest.fixture(scope="module")
def reports(runs, tmp_path_factory):
    """Each case's report, made once when a test first asks for it."""
    root, made = tmp_path_factory.mktemp("reports"), {}

    def report(case: str):
        if case not in made:
            names, options = CASES[case]
            made[case] = analyze([runs[n] for n in names], root / re.sub(r"\W+", "_", case), **options)
        return made[case]
    return report


def frame(folder) -> pl.DataFrame:
    return pl.read_parquet(list(folder.glob("part-*.parquet")))


class Page(HTMLParser):
    """Image sources, section headings, the rows of each table and the 'missing' sentences of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.images, self.headings, self.table_rows, self.missing = [], [], [], []
        self._heading = self._missing = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        elif tag == "h2":
            self._heading = True
            self.headings.append("")
        elif tag == "table":
            self.table_rows.append(0)
        elif tag == "tr":
            self.table_rows[-1] += 1  # the header row counts too
        elif tag == "p" and attrs.get("class") == "missing":
            self._missing = True
            self.missing.append("")

    def handle_endtag(self, tag):
        self._heading = self._heading and tag != "h2"
        self._missing = self._missing and tag != "p"

    def handle_data(self, data):
        if self._heading:
            self.headings[-1] += data
        if self._missing:
            self.missing[-1] += data


# --- every case ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_the_report_is_complete_and_its_images_resolve(case, reports, runs):
    report = reports(case)
    names, _ = CASES[case]
    page = Page(report.read_text(encoding="utf-8"))
    expected = ["Runs", "Contract success", "Bidding thresholds", "Evaluator comparison", "Methods"]
    if any(load_run(runs[n]).mode == "game" for n in names):
        expected.append("Bid success")
    if len(names) > 1:
        expected.append("Strategy comparison")
    assert set(expected) <= set(page.headings)
    for source in page.images:
        assert source.startswith("data:image/png;base64,")
        assert base64.b64decode(source.split(",", 1)[1]).startswith(PNG)
    plotted = sorted((report.parent / "plots").glob("*.png"))
    assert len(plotted) == len(page.images)  # no plot without data is written, every plot is shown
    assert all(path.read_bytes().startswith(PNG) for path in plotted)


@pytest.mark.parametrize("case", CASES)
def test_a_table_or_plot_without_data_is_one_sentence(case, reports):
    page = Page(reports(case).read_text(encoding="utf-8"))
    assert all(rows > 1 for rows in page.table_rows)  # no table of a header alone
    assert page.missing  # these runs are too small for some section
    for sentence in page.missing:
        assert sentence.strip().endswith(".") and sentence.count(". ") == 0


@pytest.mark.parametrize("case", CASES)
def test_the_summary_states_the_passed_in_rate(case, reports, runs):
    summary = (reports(case).parent / "summary.md").read_text(encoding="utf-8")
    assert "## Passed-in rate" in summary
    for name in CASES[case][0]:
        run = load_run(runs[name])
        if run.mode == "declare":
            assert "Not measured: declare-mode runs have no auction" in summary
        else:
            passed = int(frame(runs[name])["passed"].sum())
            rate = f"{100 * passed / run.deals:.1f}%"
            deals = f"{run.deals} deal{'' if run.deals == 1 else 's'}"
            assert re.search(rf"^- {name}: {re.escape(rate)} \(.+\) of {deals}$", summary, re.M), summary
    assert "(none)" not in summary


@pytest.mark.parametrize("case", CASES)
def test_the_tables_folder_has_each_table_with_its_header(case, reports, runs):
    names, _ = CASES[case]
    folder = reports(case).parent / "tables"
    headers = expected_headers({load_run(runs[n]).mode for n in names}, len(names))
    assert sorted(p.stem for p in folder.glob("*.csv")) == sorted(headers)
    assert sorted(p.stem for p in folder.glob("*.parquet")) == sorted(headers)
    for name, header in headers.items():
        lines = (folder / f"{name}.csv").read_text(encoding="utf-8").splitlines()
        assert lines[0].split(",") == header, name
        assert pl.read_parquet(folder / f"{name}.parquet").columns == header, name
        assert pl.read_parquet(folder / f"{name}.parquet").height == len(lines) - 1, name


# --- what each case shows -------------------------------------------------------------------


def test_a_run_where_every_deal_was_passed_in(reports, runs):
    assert frame(runs["passed"])["passed"].all(), "seed 690 no longer passes every deal: pick another seed"
    report = reports("all passed in")
    tables = report.parent / "tables"
    assert pl.read_parquet(tables / "passed_in.parquet").row(0, named=True)["passed_rate"] == 1.0
    for name in [*CONTRACT_HEADERS, "bid_success", *EVALUATOR_HEADERS]:
        assert pl.read_parquet(tables / f"{name}.parquet").height == 0, name
    assert NO_GAMES in report.read_text(encoding="utf-8")
    assert not list((report.parent / "plots").glob("*.png"))
    summary = (report.parent / "summary.md").read_text(encoding="utf-8")
    assert "- passed: 100.0% (" in summary and "No game was declared" in summary


def test_a_run_without_null_games(reports, runs):
    assert not (frame(runs["no_null"])["game"].cast(pl.String) == "null").any()
    tables = reports("no null games").parent / "tables"
    assert "null" not in pl.read_parquet(tables / "contracts_by_game.parquet")["contract"].to_list()
    measured = pl.read_parquet(tables / "evaluators.parquet")
    assert measured.height and "null" not in measured["group"].to_list()
    assert (pl.read_parquet(tables / "threshold_curves.parquet")["game"] != "null").all()


def test_a_one_deal_run_shows_its_one_game(reports, runs):
    tables = reports("1 deal").parent / "tables"
    by_game = pl.read_parquet(tables / "contracts_by_game.parquet")
    assert by_game.filter(pl.col("contract") == "all games")["games"].to_list() == [1]
    measured = pl.read_parquet(tables / "evaluators.parquet")
    assert measured["rank"].is_null().all()  # one game: won or lost, so no AUC to rank by
    summary = (reports("1 deal").parent / "summary.md").read_text(encoding="utf-8")
    assert "None yet: no game group has both a won and a lost game." in summary


def test_a_declare_run_of_one_deal(reports):
    report = reports("declare mode, 1 deal")
    by_game = pl.read_parquet(report.parent / "tables" / "contracts_by_game.parquet")
    assert by_game.filter(pl.col("contract") == "all games")["games"].to_list() == [18]  # 3 seats x 6 games
    assert "Bid success" not in Page(report.read_text(encoding="utf-8")).headings


def test_only_the_evaluators_asked_for(reports):
    tables = reports("classic evaluator only").parent / "tables"
    for name in EVALUATOR_HEADERS:
        assert set(pl.read_parquet(tables / f"{name}.parquet")["evaluator"].to_list()) <= {"classic"}
    assert set(pl.read_parquet(tables / "evaluators.parquet")["evaluator"].to_list()) == {"classic"}


def test_two_tiny_runs_of_the_same_seed_are_compared(reports):
    report = reports("same seed")
    compared = pl.read_parquet(report.parent / "tables" / "comparison.parquet")
    assert compared.select("run_a", "run_b").unique().rows() == [("ten", "ten_random")]
    assert "passed-in rate" in compared["metric"].to_list()
    assert (report.parent / "plots" / "comparison.png").exists()
    assert "## Paired comparison" in (report.parent / "summary.md").read_text(encoding="utf-8")


def test_two_tiny_runs_of_different_seeds_get_a_note(reports):
    report = reports("different seeds")
    assert pl.read_parquet(report.parent / "tables" / "comparison.parquet").height == 0
    note = "cannot compare ten and ten_seed1 deal for deal: their seeds differ"
    assert note in (report.parent / "summary.md").read_text(encoding="utf-8")
    assert note in report.read_text(encoding="utf-8")
    assert not (report.parent / "plots" / "comparison.png").exists()


# --- the builders underneath ------------------------------------------------------------------


@pytest.fixture(scope="module")
def cube(runs):
    """The classic evaluator cube of the 10-deal run."""
    from analysis.binning import evaluator_cube, grids
    from analysis.games import games

    run = load_run(runs["ten"])
    grid = grids(run)["classic"]
    return evaluator_cube(games(run, ["classic"]), "classic", grid).collect(), grid


@pytest.mark.parametrize("build, schemas", [
    (lambda cube, grid: threshold_tables(cube, grid, min_rows=1, shipped={"clubs": 4.0}), THRESHOLD_SCHEMAS),
    (measure_tables, MEASURE_SCHEMAS)], ids=["thresholds", "evaluators"])
def test_evaluator_tables_keep_their_columns_without_games(cube, build, schemas):
    full, grid = cube
    tables, empty = build(full, grid), build(full.clear(), grid)
    for name, schema in schemas.items():
        assert tables[name].height and dict(tables[name].schema) == schema, name
        assert empty[name].height == 0 and dict(empty[name].schema) == schema, name


def test_no_evaluator_gives_each_evaluator_table_without_rows():
    tables = by_evaluator({}, None, {**THRESHOLD_SCHEMAS, **MEASURE_SCHEMAS})
    assert set(tables) == {*THRESHOLD_SCHEMAS, *MEASURE_SCHEMAS}
    assert all(t.height == 0 and t.columns[0] == "evaluator" for t in tables.values())
    assert rank(tables["evaluators"]).columns[-1] == "rank"


@pytest.mark.parametrize("name", ["passed", "one"])
def test_the_notebook_functions_take_tiny_runs(runs, name):
    run = load_run(runs[name])
    contracts = contract_success(run)
    assert contracts["passed_in"]["deals"].to_list() == [run.deals]
    assert list(contracts["contracts_by_game"].columns) == CONTRACT_HEADERS["contracts_by_game"][1:]
    for tables, schemas in ((thresholds(run), THRESHOLD_SCHEMAS),
                            (thresholds(run, ["nonexistent"]), THRESHOLD_SCHEMAS),
                            (compare_evaluators(run), MEASURE_SCHEMAS)):
        for key, schema in schemas.items():
            assert tables[key].columns[:len(schema) + 1] == ["evaluator", *schema], key


def test_one_run_is_compared_with_nothing(runs):
    table, notes = comparisons([load_run(runs["ten"])])
    assert table.height == 0 and dict(table.schema) == COMPARISON_SCHEMA and notes == []


def test_an_evaluator_without_an_auc_gets_no_rank():
    table = pl.DataFrame({"group": ["grand"] * 3 + ["suit games"] * 2, "evaluator": list("abcab"),
                          "auc": [np.nan, 0.6, 0.7, np.nan, np.nan]})
    ranked = rank(table)
    assert ranked.filter(pl.col("group") == "grand")["evaluator"].to_list() == ["c", "b", "a"]
    assert ranked["rank"].to_list() == [1, 2, None, None, None]


def test_plots_without_data_are_not_drawn(tmp_path):
    games = pl.DataFrame({"run": ["r"], "contract": ["all games"], "bid": [18], "games": [3],
                          "matadors": [1], "win_rate": [1.0], "win_rate_lo": [0.4], "win_rate_hi": [1.0]})
    assert plots.bid_success(games, tmp_path / "bids.png") is None
    assert plots.by_matadors(games.with_columns(contract=pl.lit("grand")), tmp_path / "m.png") is None
    curves = pl.DataFrame({"variant": ["all"], "seats": ["all"], "rows": [3], "game": ["grand"]})
    assert plots.threshold_curves(curves, curves, "classic", run="r", path=tmp_path / "t.png", min_rows=50) is None
    ranking = pl.DataFrame({"run": ["r"], "group": ["grand"], "evaluator": ["classic"], "auc": [np.nan],
                            "auc_lo": [np.nan], "auc_hi": [np.nan]})
    assert plots.evaluator_ranking(ranking, tmp_path / "e.png") is None
    calibration = pl.DataFrame({"group": ["grand"], "games": [3], "evaluator": ["classic"]})
    assert plots.calibration(calibration, "r", tmp_path / "c.png", min_rows=50) is None
    assert plots.grouped_bars(games.clear(), "contract", "win_rate", tmp_path / "g.png", "t", "y") is None
    assert not list(tmp_path.iterdir())
