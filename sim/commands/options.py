"""The options that every command playing a run of deals takes: how many deals, the seed, the profile
and its changes, where the run goes, and how it is split over processes and part files."""

from __future__ import annotations

import click

#: How --set reads its value (strategies.profiles._apply_setting), for the help texts.
SET_VALUES = ('"bidder.thresholds=[7, 7, 7, 7, 7, inf]". VALUE is a TOML value: a number (inf too), true or'
              ' false, a [list], a { key = value } or a "text"; anything else is the text as written.')


def plugins_option(command):
    """``--plugins FILE_OR_MODULE`` (repeatable): files or modules imported for the strategies they register,
    recorded with the profile so that every process of the run imports them (strategies.registry.load_plugin)."""
    return click.option("--plugins", multiple=True, metavar="FILE_OR_MODULE",
                        help="Import a file (my_players.py) or module for the strategies it registers;"
                             " repeatable.")(command)


def with_plugins(plugins, settings) -> tuple[str, ...]:
    """The settings with a ``plugins=SOURCE`` setting before them for each plugin."""
    return (*(f"plugins={source}" for source in plugins), *settings)


def run_options(*, deals: int, chunk_size: int, out: str, profile: str, settings: str, jobs: str):
    """``--deals`` (default ``deals``), ``--seed``, ``--profile``, ``--set``, ``--out``, ``--jobs`` and
    ``--chunk-size`` (default ``chunk_size``), with the help texts of the options that differ."""
    options = [
        click.option("--deals", type=click.IntRange(min=1), default=deals, show_default=True,
                     help="How many deals to play."),
        click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
                     help="Deal i of the run is a pure function of (seed, i)."),
        click.option("--profile", default="default", show_default=True, help=profile),
        click.option("--set", "settings", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE", help=settings),
        click.option("--out", type=click.Path(file_okay=False), help=out),
        click.option("--jobs", type=click.IntRange(min=1), help=jobs),
        click.option("--chunk-size", type=click.IntRange(min=1), default=chunk_size, show_default=True,
                     help="Deals per part file."),
    ]

    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


def dealing_options(command):
    """``--fix SEAT=CARDS`` (repeatable) and ``--where CONDITION``: deal only such deals, from the exact
    conditional distribution of the uniform deal (docs/dealing.md)."""
    command = click.option("--where", metavar="CONDITION",
                           help="Deal only deals meeting the condition, e.g. \"jacks(forehand) >= 3 and"
                                " length(forehand, 'C') >= 4\" (features jacks, aces, tens, points, length, trumps,"
                                " has, eval; see docs/dealing.md).")(command)
    return click.option("--fix", multiple=True, metavar="SEAT=CARDS",
                        help="Deal these cards to the seat (forehand, middlehand, rearhand or skat) in every deal, e.g."
                             " \"forehand=CJ SJ\"; the other cards are dealt uniformly. May be repeated.")(command)


def calibration_warning_option(command):
    """``--no-calibration-warning``: leave out the line that tells of a profile bidding with win
    probabilities fitted on another card player's play (docs/commands.md)."""
    return click.option("--no-calibration-warning", "no_calibration_warning", is_flag=True,
                        help="Leave out the warning that a profile bids with win probabilities fitted on another"
                             " card player's play than the one it plays with (never given in a card-play-only"
                             " match).")(command)
