"""The commands that play deals: ``simulate`` (a run of a profile), ``match`` (two profiles, every
deal played six times), ``tournament`` (every pair of several), ``hand`` (what one hand is worth),
and ``strategies`` (who may play them).

The commands import the layers they need (strategies, runs, analysis) when they run, so that
``skatsim --help`` starts in a fraction of a second.
"""

from __future__ import annotations

import json

import click

from .options import SET_VALUES, calibration_warning_option, dealing_options, plugins_option, run_options, with_plugins
from .terminal import fail, tell, writing_run


@click.command(short_help="Play a run of deals with a profile and write them to Parquet.")
@run_options(deals=1_000_000, chunk_size=100_000,
             out="Run folder [default: results/PROFILE-MODE-seedSEED-DEALS, then the --set settings]."
                 " A finished run asked for with more --deals grows.",
             profile="A named profile (see `skatsim strategies`) or a .toml file.",
             settings="Change the profile, e.g. card_play=random, bidder.margin=10, middlehand.card_play=random, "
                      + SET_VALUES + " May be repeated.",
             jobs="Processes or Dask workers [default: all cores].")
@click.option("--log-tricks", is_flag=True, help="Also log the cards in the order played.")
@click.option("--mode", type=click.Choice(["game", "declare"]), default="game", show_default=True,
              help="game: whole deals; declare: every seat declares every game type (counterfactual).")
@click.option("--variants", type=click.Choice(["profile", "all"]), default="profile", show_default=True,
              help="declare mode: each game as the profile declares it, or every variant (pick-up and hand;"
                   " null plain, hand, ouvert, ouvert hand).")
@click.option("--open-hand", is_flag=True,
              help="Also solve every declared game open-handed from its first lead (columns oh_declarer_points,"
                   " oh_won); far slower than playing.")
@click.option("--seat-scores", is_flag=True,
              help="game mode: also log every seat's evaluator scores for every game (eval_NAME_SEAT_GAME), not"
                   " only the declarer's; they follow from the logged hands and double a run's size.")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local processes, or a Dask cluster (a new local one unless --scheduler).")
@click.option("--scheduler", metavar="ADDRESS", help="Address of a running Dask scheduler (implies --backend dask).")
@dealing_options
@plugins_option
@calibration_warning_option
def simulate(deals, seed, profile, settings, out, jobs, chunk_size, log_tricks, mode, variants, open_hand,
             seat_scores, backend, scheduler, fix, where, plugins, no_calibration_warning):
    """Play DEALS deals with a profile and write one Parquet row per deal to a run folder.

    Running the same command again resumes an interrupted run, and with more --deals
    grows a finished one (deal i depends on the seed and i alone); the output is the
    same for any --jobs, --chunk-size and backend.
    """
    from sim.runs.simulation import simulate as run_profile
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    with writing_run(deals, out, ProfileError, StrategyError) as update:
        folder = run_profile(deals, seed=seed, profile=profile, settings=with_plugins(plugins, settings), out=out,
                             jobs=jobs,
                             chunk_size=chunk_size, log_tricks=log_tricks, mode=mode, backend=backend,
                             scheduler=scheduler, progress=update, notice=tell, variants=variants,
                             open_hand=open_hand, seat_scores=seat_scores, fix=fix, where=where,
                             calibration_warning=not no_calibration_warning)
    click.echo(str(folder))


@click.command(short_help="A duplicate match between two profiles: which is stronger, with its interval.")
@click.argument("a")
@click.argument("b")
@click.option("--deals", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Deals; each is played six times (every seat, A alone against two B and B alone against two A).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True, help="Seed of the deals.")
@click.option("--card-play-only", is_flag=True,
              help="Bid, discard and declare as A at every seat: only the card play is compared.")
@click.option("--set", "settings", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE",
              help="Change both profiles (as simulate --set).")
@click.option("--set-a", "settings_a", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE", help="Change profile A.")
@click.option("--set-b", "settings_b", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE", help="Change profile B.")
@click.option("--out", type=click.Path(file_okay=False), help="Run folder [default: results/match-A-B-seedS-N].")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes [default: all cores].")
@click.option("--chunk-size", type=click.IntRange(min=1), default=500, show_default=True, help="Deals per part file.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@dealing_options
@plugins_option
@calibration_warning_option
def match(a, b, deals, seed, card_play_only, settings, settings_a, settings_b, out, jobs, chunk_size, as_json, fix,
          where, plugins, no_calibration_warning):
    """Play a duplicate match between profiles A and B (names or TOML files) and print Seeger-Fabian
    points per game for each, their difference A - B with a 95% interval over deals, the same by
    declarer and defender play and by game type, and each side's declarer win rate.

    Two card players are compared on the same auctions and declarations with
    `skatsim match club club --card-play-only --set-a card_play=X --set-b card_play=Y`.

    The run is written like any run (resumable; `skatsim analyze` reports it).
    """
    from analysis import AnalysisError, load_run, match_result, match_splits
    from analysis.match import match_table
    from sim.runs.matches import match as play_match
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    with writing_run(deals, out, ProfileError, StrategyError, AnalysisError) as update:
        folder = play_match(a, b, deals=deals, seed=seed, settings=with_plugins(plugins, settings),
                            settings_a=settings_a, settings_b=settings_b, card_play_only=card_play_only, out=out,
                            jobs=jobs, chunk_size=chunk_size, progress=update, notice=tell, fix=fix, where=where,
                            calibration_warning=not no_calibration_warning)
        run = load_run(folder)
        result, splits = match_result(run), match_splits(run)
    row = result.row(0, named=True)
    if as_json:
        click.echo(json.dumps({**row, "folder": str(folder), "splits": splits.to_dicts()}))
    else:
        click.echo(match_table(run))


@click.command(short_help="Every pair of several profiles in a duplicate match: a table, a ranking and a plot.")
@click.argument("players", nargs=-1, required=True, metavar="PLAYER PLAYER [PLAYER ...]")
@click.option("--deals", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Deals of every match; each is played six times (as skatsim match does).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed of the deals (the same deals in every match).")
@click.option("--card-play-only", is_flag=True,
              help="Bid, discard and declare as the first player at every seat of every match: only the card"
                   " play is compared.")
@click.option("--set", "settings", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE",
              help="Change every player's profile (as simulate --set).")
@click.option("--out", type=click.Path(file_okay=False),
              help="Tournament folder, one match run folder per pair in it"
                   " [default: results/tournament-PLAYERS-seedS-N].")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes [default: all cores].")
@click.option("--chunk-size", type=click.IntRange(min=1), default=500, show_default=True, help="Deals per part file.")
@click.option("--json", "as_json", is_flag=True, help="Print the standings and the matches as one JSON object.")
@dealing_options
@plugins_option
@calibration_warning_option
def tournament(players, deals, seed, card_play_only, settings, out, jobs, chunk_size, as_json, fix, where, plugins,
               no_calibration_warning):
    """Play every pair of PLAYERS in a duplicate match on the same deals and print each player's
    Seeger-Fabian points per game and its points less its opponents' ("against the field"), each
    with a 95% interval over deals, ranked; then every match's A - B. A PLAYER is a profile name or
    .toml file, with settings after @: default@card_play=pimc@card_play.worlds=8.

    Writes standings.csv, pairs.csv, tournament.png and summary.md to the tournament folder; running the same
    command again resumes the matches not finished (and grows them with more --deals).
    """
    from analysis import AnalysisError, rank_tournament
    from analysis.tournament import tournament_table
    from sim.commands.results import tournament_json
    from sim.runs.tournaments import play_tournament
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    matches = len(players) * (len(players) - 1) // 2
    with writing_run(matches * deals, out, ProfileError, StrategyError, AnalysisError) as update:
        played = play_tournament(players, deals=deals, seed=seed, card_play_only=card_play_only,
                                 settings=with_plugins(plugins, settings),
                                 out=out, jobs=jobs, chunk_size=chunk_size, progress=update, notice=tell, fix=fix,
                                 where=where, calibration_warning=not no_calibration_warning)
        result = rank_tournament(played)
    click.echo(tournament_json(result) if as_json else tournament_table(result))


@click.command(short_help="What one hand is worth: every game played out over many deals of the unseen cards.")
@click.argument("cards", metavar='"CJ SJ HA H10 ..."')
@click.option("--seat", type=click.Choice(["forehand", "middlehand", "rearhand"]), default="forehand",
              show_default=True, help="The seat that holds the hand.")
@click.option("--skat", help="The skat, if known (two cards).")
@click.option("--deals", type=click.IntRange(1, 1_000_000), default=2000, show_default=True,
              help="Deals of the unseen cards.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True, help="Seed of those deals.")
@click.option("--profile", default="default", show_default=True,
              help="Whose discards and card play (at every seat) decide the games.")
@click.option("--set", "settings", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE",
              help="Change the profile (as simulate --set).")
@click.option("--where", metavar="CONDITION",
              help="Deal the unseen cards only as the condition says, e.g. \"jacks(middlehand) == 0\" (as simulate"
                   " --where).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: the hand, seat, skat, condition, profile, settings, deals and seed asked"
                   " about, the advice, and games (one entry per game variant).")
@plugins_option
def hand(cards, seat, skat, deals, seed, profile, settings, where, as_json, plugins):
    """For the ten CARDS at a seat, deal the unseen cards many times, play every game in every
    variant with the profile's players, and print each one's win rate (95% interval), expected
    Seeger-Fabian score at 18, schneider rate and the highest bid worth making; then the advice."""
    from sim.runs.compiling import compiles_told
    from sim.runs.hands import HandError, advice, judge_hand, read_hand
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    try:
        held, at, known = read_hand(cards, seat, skat)
        with compiles_told(tell):
            table = judge_hand(held, at, known, deals=deals, seed=seed, profile=profile,
                               settings=with_plugins(plugins, settings), where=where)
    except (HandError, ProfileError, StrategyError) as error:
        fail(str(error))
    if as_json:
        from sim.rules.cards import SEAT_NAMES, format_hand

        asked = {"hand": format_hand(held), "seat": SEAT_NAMES[at], "skat": format_hand(known) if known else None,
                 "where": where, "profile": profile, "settings": list(settings), "deals": deals, "seed": seed}
        click.echo(json.dumps({**asked, "advice": advice(table), "games": table.to_dicts()}))
        return
    click.echo(f"{'game':<26}{'wins (95% interval)':>24}{'expected SF':>13}{'schneider':>11}{'bid up to':>11}")
    for row in table.iter_rows(named=True):
        rate = f"{100 * row['win_rate']:.1f}% ({100 * row['win_rate_lo']:.1f}-{100 * row['win_rate_hi']:.1f})"
        click.echo(f"{row['game']:<26}{rate:>24}{row['expected_sf']:>+13.1f}{100 * row['schneider_rate']:>10.1f}%"
                   f"{row['bid_up_to'] or '-':>11}")
    click.echo(advice(table))


@click.command(short_help="List the strategies and named profiles.")
@click.option("--markdown", is_flag=True, help="Each strategy's parameters as the docs' Markdown tables.")
def strategies(markdown):
    """List every registered strategy by role with the first sentence of its docstring and its parameters
    (default, the values it takes and what it does), and the named profiles."""
    import inspect

    from strategies.parameters import first_sentence, markdown_table
    from strategies.profiles import profile_description, profile_names
    from strategies.registry import ROLES, lookup, names, plain_text

    for role in ROLES:
        click.echo(f"{role}:" if not markdown else f"## {role}")
        for name in names(role):
            strategy = lookup(role, name)
            summary = first_sentence(inspect.getdoc(strategy.factory))
            if markdown:
                click.echo(f"\n`{name}`: {summary}\n\n{markdown_table(strategy.parameters)}\n")
                continue
            click.echo(f"  {name:<14} {summary}")
            for parameter in strategy.parameters:
                click.echo(f"      {plain_text(parameter.describe())}")
    if markdown:
        return
    click.echo("profiles:")
    for name in profile_names():
        click.echo(f"  {name:<14} {profile_description(name)}")
