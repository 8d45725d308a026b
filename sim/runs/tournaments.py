"""A tournament: several profiles, every pair in a duplicate match on the same deals (``play_tournament``).

Each pair of players plays a duplicate match (:func:`sim.runs.matches.match_profiles`) of the
same deals into its own run folder under the tournament's folder, so a tournament resumes as a
match does (and grows with more deals). :func:`analysis.rank_tournament` ranks the players on
those matches and writes the tables, as :func:`analysis.match_result` gives one match's result::

    from analysis import rank_tournament
    from sim.runs.tournaments import play_tournament
    played = play_tournament(["default", "threshold", "random"], deals=2000, seed=1, out="results/cup")
    print(rank_tournament(played).standings)   # also written to results/cup/standings.csv

A player is a profile name or TOML file, optionally followed by settings, each after an ``@``:
``default@card_play=pimc@card_play.worlds=8``. With ``card_play_only`` every seat of every match
bids, discards and declares as the first player does, and only the card play differs.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from pathlib import Path

from sim.rules.cards import SEAT_NAMES
from sim.runs import RunError
from sim.runs.atomic import make_folder
from sim.runs.conditional import dealing_suffix, run_dealing
from sim.runs.folder import default_folder, settings_suffix
from sim.runs.matches import match_profiles, match_warning
from strategies.profiles import Profile, build_profile, load_profile


@dataclass(frozen=True)
class PlayedTournament:
    """A tournament whose matches are played: ``matches`` holds the run folder of every pair of
    ``players`` by their positions (i, j), i < j."""
    folder: Path
    players: tuple[str, ...]
    _: KW_ONLY
    deals: int
    card_play_only: bool
    matches: dict[tuple[int, int], Path]


def read_player(text: str) -> tuple[str, list[str]]:
    """``PROFILE[@SETTING...]`` as the profile and its settings."""
    profile, *settings = text.split("@")
    if not profile.strip() or not all(s.strip() for s in settings):
        raise RunError(f"player {text!r} is not PROFILE or PROFILE@ROLE=NAME@ROLE.PARAM=VALUE")
    return profile.strip(), [s.strip() for s in settings]


def load_players(players, settings=(), card_play_only: bool = False) -> list[Profile]:
    """Each player's profile, named as the player is written; in a card-play-only tournament every
    profile bids, discards and declares as the first one does."""
    if len(players) < 2:
        raise RunError("a tournament needs two players or more")
    twice = next((p for i, p in enumerate(players) if p in players[:i]), None)
    if twice is not None:
        raise RunError(f"player {twice!r} is named twice")
    loaded = []
    for player in players:
        profile, own = read_player(player)
        loaded.append(load_profile(profile, [*settings, *own]))
    if card_play_only:
        loaded = [build_profile(p.name, bidding_as(loaded[0].spec, p.spec)) for p in loaded]
    return [Profile(player, p.description, p.spec, p.seats) for player, p in zip(players, loaded)]


def bidding_as(first: dict, spec: dict) -> dict:
    """The profile ``spec`` (spelled out) bidding, discarding and declaring as ``first`` does: ``first``'s seats
    with the card play of ``spec``, and the plugins of both, which register what either plays."""
    raw = {seat: {**first[seat], "card_play": spec[seat]["card_play"]} for seat in SEAT_NAMES}
    plugins = list(dict.fromkeys([*first.get("plugins", []), *spec.get("plugins", [])]))
    return {**raw, "plugins": plugins} if plugins else raw


def pair_folder(folder: Path, a: str, b: str) -> Path:
    """The run folder of the match between players ``a`` and ``b`` in the tournament's ``folder``."""
    return Path(folder) / f"{settings_suffix([a])[1:]}-vs-{settings_suffix([b])[1:]}"


def play_tournament(players, *, deals: int = 2000, seed: int = 0, card_play_only: bool = False, settings=(),
                    out=None, jobs: int | None = None, chunk_size: int = 500, progress=None, notice=None,
                    fix=(), where: str | None = None, calibration_warning: bool = True) -> PlayedTournament:
    """Play every pair of ``players`` (profile names or files, with ``@`` settings) in a duplicate
    match of ``deals`` deals (only deals with the cards ``fix`` fixed that meet ``where``, as
    :func:`sim.runs.simulation.simulate`), each into its own run folder in the tournament's folder
    ``out`` (None: one under ``results/`` named by the players, seed, deals and settings); returns the
    matches played. Running it again resumes the matches not finished. If a player bids with win
    probabilities fitted on another card player's play than its own, ``notice`` is told so in one line
    once the first match's folder takes its run, unless ``calibration_warning`` is False or the tournament is
    ``card_play_only``."""
    players = tuple(players)
    profiles = load_players(players, settings, card_play_only)
    dealing = run_dealing(fix, where)
    kind = "tournament-card-play" if card_play_only else "tournament"
    named = settings_suffix(settings) + dealing_suffix(dealing)
    folder = Path(out) if out is not None else default_folder(f"{kind}{settings_suffix(players)}", seed=seed,
                                                              deals=deals, settings=named)
    make_folder(folder)
    pairs = [(i, j) for i in range(len(players)) for j in range(i + 1, len(players))]
    warning = match_warning(profiles, card_play_only) if calibration_warning else None
    folders = {}
    for k, (i, j) in enumerate(pairs):
        folders[i, j] = match_profiles(profiles[i], profiles[j], deals=deals, seed=seed, card_play_only=card_play_only,
                                       out=pair_folder(folder, players[i], players[j]), jobs=jobs,
                                       chunk_size=chunk_size, notice=notice, dealing=dealing,
                                       warning=warning if k == 0 else None,
                                       progress=_of_all(progress, before=k * deals, total=len(pairs) * deals))
    return PlayedTournament(folder, players, deals=deals, card_play_only=card_play_only, matches=folders)


def _of_all(progress, *, before: int, total: int):
    """The progress of one match told as that of the whole tournament: ``before`` deals of the matches
    before it done, ``total`` in all."""
    if progress is None:
        return None
    return lambda done, _, rate, **named: progress(before + done, total, rate, **named)
