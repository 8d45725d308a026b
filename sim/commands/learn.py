"""The commands that make a learned card player: ``skatsim decisions`` and ``skatsim train card-play``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from sim.runs.folder import RunError

from .options import run_options


def run_summary(folder) -> dict:
    """What a model's training record keeps of a decision run: its folder's name, seed, deals (asked
    for, and done: a run may be read before it is complete) and profile."""
    from sim.runs.folder import read_manifest

    manifest = read_manifest(Path(folder))
    config = manifest.config
    done = sum(min(config["chunk_size"], config["deals"] - i * config["chunk_size"]) for i in manifest.parts_done)
    return {"folder": Path(folder).name, "seed": config["seed"], "deals": config["deals"], "deals_done": done,
            "profile": config.get("profile")}


@click.command(short_help="Log card decisions of simulated deals, valued by a teacher (open hand, PIMC or rollout).")
@run_options(deals=10_000, chunk_size=1000, out="Run folder [default: results/decisions-PROFILE-seedSEED-DEALS].",
             profile="A named profile or a .toml file: who bids, declares and plays the deals.",
             settings="Change the profile.", jobs="Processes [default: all cores].")
@click.option("--teacher", type=click.Choice(["open_hand", "rollout"]), default="open_hand", show_default=True,
              help="open_hand: each card's value on the real deal, every hand open; rollout: the end of the real "
                   "deal when every seat then plays the profile's own card player.")
def decisions(deals, seed, profile, settings, out, jobs, chunk_size, teacher):
    """Play DEALS deals with a profile and write one Parquet row per card decision with a choice: the
    seat's view, the legal cards and the teacher's value of each legal card (in game terms: 0 the declared
    game lost, 1 won). Running the same command again resumes it. About 40 deals a second on one core
    (with --teacher rollout and the strong profile about 400)."""
    from sim.commands.cli import _writing_run
    from sim.runs.decisions import log_decisions
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    with _writing_run(deals, out, ProfileError, StrategyError) as update:
        folder = log_decisions(deals, seed, profile, settings, out, jobs, chunk_size, progress=update,
                               notice=lambda line: click.echo(line, err=True), teacher=teacher)
    click.echo(str(folder))


@click.group(name="train", short_help="Train a strategy on runs.")
def train_group() -> None:
    """Train a strategy on runs."""


@train_group.command(name="card-play", short_help="Fit the learned card player to decision runs.")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The model file to write (.npz).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
              help="Chooses the held-out deals and the network's start.")
@click.option("--hidden-units", type=click.IntRange(min=0), default=None,
              help="Units of the network over the linear weights, 0 for none "
                   "[default: strategies.learning.network.HIDDEN_UNITS].")
@click.option("--networks", type=click.IntRange(min=1), default=None,
              help="Networks fitted from different starts (seeds SEED, SEED + 1, ...) that play as one, "
                   "their scores averaged [default: strategies.learning.network.NETWORKS].")
def train_card_play(runs, out, seed, hidden_units, networks):
    """Fit the learned card player to RUNS (made by `skatsim decisions`) and write the model to OUT.
    Prints, on held-out deals, how often its card keeps the teacher's best value and the value it gives
    away per decision, beside the heuristic player's. Each pass of the fit is told on stderr. Play it
    with --set card_play.model=OUT."""
    from sim.commands.cli import _fail
    from sim.runs.decisions import read_decisions
    from strategies.cardplay.learned import save_model
    from strategies.learning.network import HIDDEN_UNITS, NETWORKS
    from strategies.learning.training import TrainingError, train

    try:
        data = read_decisions(runs)
    except RunError as error:
        _fail(str(error))
    update, close = _training_progress()
    try:
        model, report = train(data["deal_id"], data["view"], data["legal"], data["values"], seed=seed,
                              units=HIDDEN_UNITS if hidden_units is None else hidden_units,
                              networks=NETWORKS if networks is None else networks, progress=update)
    except KeyboardInterrupt:
        close()
        _fail(f"interrupted; no model written to {out}", 130)
    except TrainingError as error:
        close()
        _fail(f"{error}; no model written to {out}")
    close()
    report["runs"] = [run_summary(r) for r in runs]
    try:
        save_model(out, model, report)
    except OSError as error:
        _fail(f"cannot write {out}: {error.strerror or error}")
    click.echo(json.dumps(report))
    click.echo(out)


def _training_progress():
    """The fit's progress on stderr: a tqdm bar of its passes on a terminal, otherwise one JSON line a
    pass; each tells the network, the pass and the validation value given away per decision."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        bars = []

        def update(network, networks, done, epochs, given_away):
            if not bars:
                bars.append(tqdm(total=networks * epochs, unit="pass", dynamic_ncols=True))
            bars[0].update(1)
            bars[0].set_postfix_str(f"network {network} of {networks}, validation gives away {given_away:.4f}",
                                    refresh=True)

        return update, lambda: [bar.close() for bar in bars]

    def report(network, networks, done, epochs, given_away):
        click.echo(json.dumps({"network": network, "networks": networks, "pass": done, "passes": epochs,
                               "validation_given_away": round(given_away, 5)}), err=True)

    return report, lambda: None
