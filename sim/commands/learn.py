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
@click.option("--points/--no-points", default=True, show_default=True,
              help="Keep the declarer's exact open-hand points after each card (column `points`); "
                   "--no-points keeps the game values alone, about four times faster. The pimc teacher keeps none.")
@click.option("--teacher", type=click.Choice(["open_hand", "pimc", "rollout", "pimc_play_out"]), default="open_hand",
              show_default=True,
              help="open_hand: each card's value on the real deal, every hand open; pimc: its value as the pimc "
                   "player that solves its worlds (play_out false: 10 worlds, inference) sees it from the seat's "
                   "view (its mean over its worlds); pimc_play_out: the same as the pimc player at its defaults "
                   "sees it (60 worlds, inference, each played out by the shipped learned player); "
                   "rollout: the end of the real deal when every seat then plays the profile's own card player.")
@click.option("--solve-last", type=click.IntRange(0, 9), default=0, show_default=True,
              help="With --teacher rollout: the last tricks of each play-out valued by the open-hand solver "
                   "instead of played (0: every trick played).")
@click.option("--roles", type=click.Choice(["all", "declarer", "defenders"]), default="all", show_default=True,
              help="Whose decisions are kept and valued: every seat's, the declarer's or the defenders' "
                   "(the deals are played alike; the teacher's time goes to that role's decisions alone).")
def decisions(deals, seed, profile, settings, out, jobs, chunk_size, points, teacher, solve_last, roles):
    """Play DEALS deals with a profile and write one Parquet row per card decision with a choice: the
    seat's view, the legal cards and the teacher's value of each legal card (in game terms: 0 the declared
    game lost, 1 won) and, with the open-hand teacher, the declarer's open-hand points after it. Running
    the same command again resumes it. About 11 deals a second on one core (with --no-points, which
    training by default does not need, about 40; with --teacher pimc about 3, with pimc_play_out about 8;
    with --teacher rollout and the strong profile about 400)."""
    from sim.commands.cli import _writing_run
    from sim.runs.decisions import log_decisions
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    with _writing_run(deals, out, ProfileError, StrategyError) as update:
        folder = log_decisions(deals, seed, profile, settings, out, jobs, chunk_size, progress=update,
                               notice=lambda line: click.echo(line, err=True), points=points,
                               teacher=teacher, solve_last=solve_last, roles=roles)
    click.echo(str(folder))


@click.group(name="train", short_help="Train a strategy on runs.")
def train_group() -> None:
    """Train a strategy on runs."""


@train_group.command(name="card-play", short_help="Fit the learned card player to decision runs.")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The model file to write (.npz).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
              help="Chooses the held-out deals and the network's start.")
@click.option("--points-weight", type=click.FloatRange(min=0), default=None,
              help="Weight of the declarer's open-hand points (over 120) beside the game value "
                   "[default: strategies.training.POINTS_WEIGHT].")
@click.option("--hidden-units", type=click.IntRange(min=0), default=None,
              help="Units of the network over the linear weights, 0 for none "
                   "[default: strategies.training_net.HIDDEN_UNITS].")
@click.option("--networks", type=click.IntRange(min=1), default=None,
              help="Networks fitted from different starts (seeds SEED, SEED + 1, ...) that play as one, "
                   "their scores averaged [default: strategies.training_net.NETWORKS].")
@click.option("--pimc-weight", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Weight in the fit of each decision of a run made with --teacher pimc or pimc_play_out, "
                   "beside 1 for the open-hand and the rollout teacher's.")
@click.option("--schneider", callback=lambda ctx, param, value: _schneider(value), default=None,
              metavar="WEIGHT|game_value",
              help="How schneider made or suffered counts beside the game won or lost in the open-hand and rollout "
                   "teachers' values: a share of a game from 0 to 1, or game_value, the level it adds to the "
                   "declarer's Seeger-Fabian result in the game, as pimc weighs it [default: the teachers' 0.25].")
@click.option("--weigh-by-stake", "by_stake", is_flag=True,
              help="Weigh each decision in the fit by what its game is worth between won and lost in "
                   "Seeger-Fabian terms (a grand more than a diamonds game), beside its teacher's weight.")
@click.option("--start", "start_from", type=click.Path(dir_okay=False), default=None,
              help="A model file to go on from (fine-tuning): its linear weights stay, its network's fit goes on "
                   "over RUNS at a tenth of the step size.")
def train_card_play(runs, out, seed, points_weight, hidden_units, networks, pimc_weight, schneider, by_stake,
                    start_from):
    """Fit the learned card player to RUNS (made by `skatsim decisions`) and write the model to OUT.
    Prints, on held-out deals, how often its card keeps the teacher's best value and the value it gives
    away per decision, beside the heuristic player's (for all, and for each teacher's runs apart). Each
    pass of the fit is told on stderr. Play it with --set card_play.model=OUT."""
    from sim.commands.cli import _fail
    from sim.runs.decisions import read_decisions
    from strategies.cardplay.learned import load_model, save_model
    from strategies.registry import StrategyError
    from strategies.teacher import TEACHERS
    from strategies.training import POINTS_WEIGHT, TrainingError, train
    from strategies.training_net import HIDDEN_UNITS, NETWORKS

    try:
        data = read_decisions(runs)
        start = None if start_from is None else load_model(start_from)
    except (RunError, StrategyError) as error:
        _fail(str(error))
    update, close = _training_progress()
    try:
        model, report = train(data["deal_id"], data["view"], data["legal"], data["values"], data["points"],
                              seed=seed, points_weight=POINTS_WEIGHT if points_weight is None else points_weight,
                              units=HIDDEN_UNITS if hidden_units is None else hidden_units,
                              networks=NETWORKS if networks is None else networks, teacher=data["teacher"],
                              teacher_weights=[pimc_weight if name.startswith("pimc") else 1.0 for name in TEACHERS],
                              start=start, progress=update, schneider=schneider,
                              by_stake=by_stake)
    except KeyboardInterrupt:
        close()
        _fail(f"interrupted; no model written to {out}", 130)
    except TrainingError as error:
        close()
        _fail(f"{error}; no model written to {out}")
    close()
    report["runs"] = [run_summary(r) for r in runs]
    if start_from is not None:
        report["started_from"] = {"model": Path(start_from).name, "training": start[1]}
    try:
        save_model(out, model, report)
    except OSError as error:
        _fail(f"cannot write {out}: {error.strerror or error}")
    click.echo(json.dumps(report))
    click.echo(out)


def _schneider(value):
    """The --schneider option: None, game_value or a share of a game from 0 to 1."""
    from strategies.training import GAME_VALUE

    if value is None or value == GAME_VALUE:
        return value
    try:
        weight = float(value)
    except ValueError:
        weight = -1.0
    if not 0 <= weight <= 1:
        raise click.BadParameter(f"{value!r} is neither a share of a game from 0 to 1 nor {GAME_VALUE}")
    return weight


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
