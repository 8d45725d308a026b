"""The commands that fit strategies on runs: ``calibrate`` (a profile that bids and declares by
expected score, fitted on declare-mode runs), ``decisions`` (card decisions valued by a teacher) and
``train card-play`` (the learned card player fitted on them)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sim.rules.games import GAME_NAMES
from sim.runs import RunError

from .options import dealing_options, plugins_option, run_options, with_plugins
from .terminal import fail, progress, tell, writing_run


@click.command(short_help="Fit win probabilities on declare-mode runs; write a profile that bids by expected score.")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The profile to write (.toml).")
@click.option("--rounds", type=click.IntRange(0, 20), default=0, show_default=True,
              help="Refit on fresh declare-mode runs of the new profile this many times.")
@click.option("--deals", type=click.IntRange(min=100), default=100_000, show_default=True,
              help="Deals of each refit round's run.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 21), default=1, show_default=True,
              help="Round k's run uses seed + k.")
@click.option("--margin", type=click.FloatRange(-200, 200), default=0.0, show_default=True,
              help="Bid while the best expected result beats passing by this many points.")
@click.option("--objective", default="own", show_default=True, metavar="own|table|WEIGHT",
              help="What a game is worth against passing: the declarer's own score (own), the side's against the "
                   "table (table: a lost game costs the defenders' 40 more), or a weight between them (0 to 1).")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes for the rounds' runs [default: all cores].")
def calibrate(runs, out, rounds, deals, seed, margin, objective, jobs):
    """Fit the win, schneider and schwarz probabilities of every game on RUNS (declare-mode runs of every
    variant: skatsim simulate --mode declare --variants all) and write a profile whose bidder and
    declarer choose by expected Seeger-Fabian score. Prints each fit's Brier scores on held-out deals."""
    from sim.runs.calibrating import calibrate as fit_profile
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    weight = _objective_weight(objective)
    try:
        summaries = fit_profile(runs, out, rounds=rounds, deals=deals, seed=seed, margin=margin, objective=weight,
                                jobs=jobs)
    except (RunError, ProfileError, StrategyError) as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {error.filename or out}: {error.strerror or error}")
    for summary in summaries:
        click.echo(json.dumps(summary))
    click.echo(out)


def _objective_weight(objective: str) -> float:
    """The weight of ``--objective``: a name of :data:`strategies.expected.OBJECTIVES` or a number from 0 to 1."""
    from strategies.expected import OBJECTIVES

    if objective in OBJECTIVES:
        return OBJECTIVES[objective]
    try:
        weight = float(objective)
    except ValueError:
        weight = -1.0
    if not 0 <= weight <= 1:
        fail(f"--objective must be own, table or a weight from 0 to 1, not {objective!r}")
    return weight


@click.command(short_help="Log card decisions of simulated deals, valued by a teacher (open hand, PIMC or rollout).")
@run_options(deals=10_000, chunk_size=1000, out="Run folder [default: results/decisions-PROFILE-seedSEED-DEALS].",
             profile="A named profile or a .toml file: who bids, declares and plays the deals.",
             settings="Change the profile.", jobs="Processes [default: all cores].")
@click.option("--teacher", type=click.Choice(["open_hand", "rollout", "pimc"]), default="open_hand", show_default=True,
              help="open_hand: each card's value on the real deal, every hand open; rollout: the end of the real "
                   "deal when every seat then plays the profile's own card player; pimc: the pimc player's mean "
                   "over worlds drawn from the seat's view.")
@click.option("--teacher-model", default="", help="With --teacher pimc: the model its worlds are played out with, "
              "a file or a shipped model's name [default: the shipped model].")
@click.option("--game", type=click.Choice(GAME_NAMES), default=None,
              help="Log only the games declared as this type (the other deals are dealt, bid and declared alike, "
                   "and not played) [default: every game].")
@dealing_options
@plugins_option
def decisions(deals, seed, profile, settings, out, jobs, chunk_size, teacher, teacher_model, game, fix, where, plugins):
    """Play DEALS deals with a profile and write one Parquet row per card decision with a choice: the
    seat's view, the legal cards and the teacher's value of each legal card (in game terms: 0 the declared
    game lost, 1 won). Running the same command again resumes it. Some tens of deals a second on one core
    (about a thousand with --teacher rollout and the learned player, about ten with --teacher pimc;
    docs/speed.md). With --game only the games declared as that type are played and logged."""
    from sim.runs.decisions import log_decisions
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    with writing_run(deals, out, ProfileError, StrategyError) as update:
        folder = log_decisions(deals, seed=seed, profile=profile, settings=with_plugins(plugins, settings), out=out,
                               jobs=jobs,
                               chunk_size=chunk_size, progress=update, notice=tell, teacher=teacher, fix=fix,
                               where=where, teacher_model=teacher_model, game=game)
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
@click.option("--null-over", default=None,
              help="Fit the null games' decisions alone, into weights and hidden units of their own, and write "
                   "them over this model (a file or a shipped model's name), which keeps its own for suit and "
                   "grand.")
def train_card_play(runs, out, seed, hidden_units, networks, null_over):
    """Fit the learned card player to RUNS (made by `skatsim decisions`) and write the model to OUT.
    Prints, on held-out deals, how often its card keeps the teacher's best value and the value it gives
    away per decision, beside the heuristic player's. Each pass of the fit is told on stderr. Play it
    with --set card_play.model=OUT."""
    from sim.rules.games import NULL
    from sim.rules.view import VIEW
    from sim.runs.decisions import read_decisions
    from strategies.cardplay.learned import load_model, model_path, save_model
    from strategies.learning.network import HIDDEN_UNITS, NETWORKS, null_network_over
    from strategies.learning.training import TrainingError, train
    from strategies.registry import StrategyError

    try:
        data = read_decisions(runs)
    except RunError as error:
        fail(str(error))
    if null_over is not None:
        try:
            base, base_record = load_model(model_path(null_over))
        except StrategyError as error:
            fail(str(error))
        nulls = data["view"][:, VIEW.game] == NULL
        if not nulls.any():
            fail("--null-over fits null games' decisions, and the runs hold none")
        data = {name: column[nulls] for name, column in data.items()}
    update, close = _training_progress()
    try:
        model, report = train(data["deal_id"], data["view"], data["legal"], data["values"], seed=seed,
                              units=HIDDEN_UNITS if hidden_units is None else hidden_units,
                              networks=NETWORKS if networks is None else networks, progress=update)
    except KeyboardInterrupt:
        close()
        fail(f"interrupted; no model written to {out}", 130)
    except TrainingError as error:
        close()
        fail(f"{error}; no model written to {out}")
    close()
    report["runs"] = [run_summary(r) for r in runs]
    if null_over is not None:
        model = null_network_over(base, model)
        report["null_over"] = {"model": null_over, "file": model_path(null_over).name, "training": base_record}
    try:
        save_model(out, model, report)
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror or error}")
    click.echo(json.dumps(report))
    click.echo(out)


def run_summary(folder) -> dict:
    """What a model's training record keeps of a decision run: its folder's name, seed, deals (asked
    for, and done: a run may be read before it is complete) and profile."""
    from sim.runs.folder import read_manifest

    manifest = read_manifest(Path(folder))
    config = manifest.config
    done = sum(min(config["chunk_size"], config["deals"] - i * config["chunk_size"]) for i in manifest.parts_done)
    return {"folder": Path(folder).name, "seed": config["seed"], "deals": config["deals"], "deals_done": done,
            "profile": config.get("profile")}


def _training_progress():
    """The fit's progress on stderr: a bar of its passes on a terminal, otherwise one JSON line a pass;
    each tells the network, the pass and the validation value given away per decision."""
    def new_bar(tqdm, network, networks, done, epochs, given_away):
        return tqdm(total=networks * epochs, unit="pass", dynamic_ncols=True)

    def move_bar(bar, network, networks, done, epochs, given_away):
        bar.update(1)
        bar.set_postfix_str(f"network {network} of {networks}, validation gives away {given_away:.4f}", refresh=True)

    def line(network, networks, done, epochs, given_away):
        return {"network": network, "networks": networks, "pass": done, "passes": epochs,
                "validation_given_away": round(given_away, 5)}

    return progress(new_bar, move_bar, line)
