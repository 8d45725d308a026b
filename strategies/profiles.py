"""Profiles: which strategy, with which parameters, plays each role at each seat.

A profile is a TOML file. Each role is a section with the strategy's ``name`` and
its parameters; a section named after a seat overrides roles for that seat only::

    description = "A sensible club player at every seat."

    [bidder]
    name = "threshold"
    evaluator = "default"
    aggressiveness = 0.0

    [discarder]
    name = "rules"

    [declarer]
    name = "best_margin"

    [card_play]
    name = "heuristic"

    [rearhand.card_play]      # rearhand alone plays random cards
    name = "random"

Named profiles ship in ``strategies/profile_files/``; ``--profile NAME`` picks
one, ``--profile path.toml`` reads a file. Command-line settings such as
``card_play=random``, ``bidder.aggressiveness=1.5`` or
``middlehand.card_play=random`` are applied on top. A strategy of one's own is named
``FILE.py:NAME`` or ``MODULE:NAME``, and ``plugins = ["my_players.py"]`` (or the setting
``plugins=my_players.py``) imports files or modules for what they register
(:mod:`strategies.registry`).
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from sim.rules.cards import SEAT_NAMES

from . import bidding, cardplay, declaring, discarding, evaluators, expected  # noqa: F401  (register the built-ins)
from .registry import StrategyError, build, canonical_name, canonical_source, load_plugin, lookup, settable_parameters

#: The roles a profile sets at every seat (evaluators are chosen by the bidder).
SEAT_ROLES = ("bidder", "discarder", "declarer", "card_play")


class ProfileError(ValueError):
    """A profile that cannot be read or names strategies that do not exist."""


@dataclass(frozen=True)
class SeatStrategies:
    bidder: Any
    discarder: Any
    declarer: Any
    card_play: Any


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    spec: dict            # the full settings, each seat's roles spelled out (for run manifests)
    seats: tuple[SeatStrategies, SeatStrategies, SeatStrategies]


def mixed_seating(a: Profile, b: Profile, *, a_seats, card_play_only: bool = False) -> Profile:
    """A seating where the seats in ``a_seats`` play A's strategies and the other seats B's.

    With ``card_play_only`` every seat bids, discards and declares as A does, and only the
    card play follows the seating: the classic comparison of card players.
    """
    seats = []
    for seat in range(3):
        player = a if seat in a_seats else b
        seats.append(replace(a.seats[seat], card_play=player.seats[seat].card_play) if card_play_only
                     else player.seats[seat])
    return Profile(f"{a.name} / {b.name}", "", {}, tuple(seats))


def fitted_for_another_card_player(profile: Profile) -> str | None:
    """One line if a seat of ``profile`` bids with win probabilities fitted on another card player's play
    than the one it plays with (the model's recorded ``card_play``, :class:`strategies.calibration.Model`),
    else None."""
    seats, fitted = [], None
    for seat in SEAT_NAMES:
        model = profile.spec.get(seat, {}).get("bidder", {}).get("model")
        recorded = model.get("card_play") if isinstance(model, dict) else None
        if recorded is not None and _spelled_out(recorded) != _spelled_out(profile.spec[seat]["card_play"]):
            seats.append(seat)
            fitted = recorded
    if not seats:
        return None
    return (f"profile {profile.name!r}: {', '.join(seats)} bid with win probabilities fitted on the play of"
            f" {_card_player_words(fitted)}, not of the card player they play with; refit them with"
            " skatsim calibrate on declare-mode runs of this profile")


def _spelled_out(section: dict) -> dict:
    """A card player's section with every parameter it leaves at its default written out."""
    try:
        parameters = settable_parameters(lookup("card_play", section.get("name")))
    except StrategyError:
        return dict(section)
    return {**{name: p.default for name, p in parameters.items()}, **section}


def _card_player_words(section: dict) -> str:
    settings = ", ".join(f"{k}={v!r}" for k, v in section.items() if k != "name" and v not in ("", None))
    return f"{section.get('name')}" + (f" ({settings})" if settings else "")


#: Named profiles that were shipped once, and what plays as they did.
GONE = {
    "strong": "the default profile plays the learned card player now (its bidding fitted on its own play)",
    "calibrated": "it was the club profile's twin; use club",
}


def profile_names() -> list[str]:
    folder = resources.files("strategies") / "profile_files"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def profile_description(name_or_path: str | Path) -> str:
    """The description line of a profile, without building its strategies."""
    return str(_read(name_or_path)[0].get("description", ""))


def load_profile(name_or_path: str | Path = "default", settings: list[str] | tuple = ()) -> Profile:
    """A named profile or a TOML file, with ``role=name`` / ``role.param=value`` settings applied.

    A bidder's ``thresholds`` belong to the evaluator they were written for: a setting that
    changes a seat's evaluator gives that seat the new evaluator's own thresholds, unless a
    setting gives the thresholds too.
    """
    raw, name = _read(name_or_path)
    written = copy.deepcopy(raw)
    changed = [_apply_setting(raw, setting) for setting in settings]
    given = {seat for seat in SEAT_NAMES for where, key in changed
             if key == ("bidder", "thresholds") and where in (None, seat)}
    own = {seat for seat in SEAT_NAMES
           if seat not in given and _evaluator_at(written, seat) != _evaluator_at(raw, seat)}
    return build_profile(name, raw, own_thresholds=own)


def build_profile(name: str, raw: dict, own_thresholds=()) -> Profile:
    """The profile of ``raw`` (a profile's tables, or a manifest's spec of every seat); the bidders of
    the seats in ``own_thresholds`` use their evaluator's own thresholds."""
    description = str(raw.get("description", ""))
    plugins = _plugins(name, raw)
    unknown = set(raw) - set(SEAT_ROLES) - set(SEAT_NAMES) - {"description", "plugins"}
    if unknown:
        raise ProfileError(f"profile {name!r}: unknown section {', '.join(sorted(unknown))}"
                           f" (roles: {', '.join(SEAT_ROLES)}; seats: {', '.join(SEAT_NAMES)})")
    spec = {seat: _seat_spec(name, raw, seat) for seat in SEAT_NAMES}
    if plugins:
        spec["plugins"] = plugins
    for seat in own_thresholds:
        spec[seat]["bidder"].pop("thresholds", None)
    seats = tuple(SeatStrategies(**{role: _build(name, seat, role, spec[seat][role])
                                    for role in SEAT_ROLES}) for seat in SEAT_NAMES)
    return Profile(name, description, spec, seats)


def _plugins(name: str, raw: dict) -> list[str]:
    """Import the profile's plugins (files or modules, :func:`strategies.registry.load_plugin`); their
    canonical sources."""
    plugins = raw.get("plugins", [])
    if isinstance(plugins, str) or not all(isinstance(p, str) for p in plugins):
        raise ProfileError(f"profile {name!r}: plugins must be a list of files or modules, not {plugins!r}")
    try:
        for source in plugins:
            load_plugin(source)
    except StrategyError as error:
        raise ProfileError(f"profile {name!r}, plugins: {error}") from None
    return [canonical_source(p) for p in plugins]


def _read(name_or_path) -> tuple[dict, str]:
    path = Path(name_or_path)
    if path.suffix == ".toml" or (str(name_or_path) not in profile_names() and path.is_file()):
        if not path.is_file():
            raise ProfileError(f"profile file {path} does not exist")
        text, name = path.read_text(encoding="utf-8"), path.stem
    else:
        name = str(name_or_path)
        if name in GONE:
            raise ProfileError(f"profile {name!r} is gone: {GONE[name]}")
        if name not in profile_names():
            raise ProfileError(f"unknown profile {name!r} (named profiles: {', '.join(profile_names())};"
                               " or give a path to a .toml file)")
        text = (resources.files("strategies") / "profile_files" / f"{name}.toml").read_text(encoding="utf-8")
    try:
        return tomllib.loads(text), name
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"profile {name!r} is not valid TOML: {error}") from None


def _seat_spec(name: str, raw: dict, seat: str) -> dict:
    for key in (seat, *SEAT_ROLES):
        if not isinstance(raw.get(key, {}), dict):
            raise ProfileError(f"profile {name!r}: {key} must be a section ([{key}]), not {raw[key]!r}")
        for role, section in raw.get(key, {}).items() if key == seat else ():
            if not isinstance(section, dict):
                raise ProfileError(f"profile {name!r}: {seat}.{role} must be a section ([{seat}.{role}])")
    spec = {}
    for role in SEAT_ROLES:
        section = copy.deepcopy(raw.get(role, {}))
        mine = copy.deepcopy(raw.get(seat, {}).get(role, {}))
        if role == "bidder" and _other_evaluator(section, mine):
            section.pop("thresholds", None)  # written for an evaluator this seat does not use
        section.update(mine)
        if "name" not in section:
            raise ProfileError(f"profile {name!r}: no {role} for {seat} (add [{role}] with a name)")
        section["name"] = canonical_name(str(section["name"]))
        spec[role] = section
    unknown = set(raw.get(seat, {})) - set(SEAT_ROLES)
    if unknown:
        raise ProfileError(f"profile {name!r}: [{seat}] has unknown role {', '.join(sorted(unknown))}")
    return spec


def _evaluator(section: dict):
    """The evaluator a bidder's section uses: its own ``evaluator``, or the bidder's default one."""
    if "evaluator" in section:
        return section["evaluator"]
    try:
        parameter = settable_parameters(lookup("bidder", section.get("name"))).get("evaluator")
    except StrategyError:
        return None
    return None if parameter is None else parameter.default


def _other_evaluator(section: dict, mine: dict) -> bool:
    """Whether a seat's bidder section ``mine`` names another evaluator than the profile's bidder
    ``section`` uses, without thresholds of its own."""
    return "evaluator" in mine and "thresholds" not in mine and \
        _evaluator({"name": section.get("name"), **mine}) != _evaluator(section)


def _evaluator_at(raw: dict, seat: str):
    """The bidder and evaluator of ``seat`` in a profile's sections (before they are checked)."""
    section = {}
    for part in (raw.get("bidder"), raw.get(seat, {}).get("bidder") if isinstance(raw.get(seat), dict) else None):
        if isinstance(part, dict):
            section.update(part)
    return section.get("name"), _evaluator(section)


def _build(profile: str, seat: str, role: str, section: dict):
    params = {k: v for k, v in section.items() if k != "name"}
    try:
        return build(role, section["name"], **params)
    except (StrategyError, TypeError, ValueError) as error:
        raise ProfileError(f"profile {profile!r}, {seat} {role}: {error}") from None


def _apply_setting(raw: dict, setting: str) -> tuple[str | None, tuple[str, ...]]:
    """Apply ``[seat.]role=name`` or ``[seat.]role.param=value`` to the raw profile; returns the seat
    (None: every seat) and the (role, param) or (role,) it set.

    VALUE is read as a TOML value: ``10``, ``1.5``, ``true``, ``inf``, a list ``[7, 7, 7, 7, 7, inf]``,
    a section ``{ top_trump = 1 }``, a quoted text; anything else is the text as written.
    """
    key, sep, value = setting.partition("=")
    parts = key.strip().split(".")
    if not sep or not all(parts):
        raise ProfileError(f"setting {setting!r} is not ROLE=NAME or ROLE.PARAM=VALUE")
    if parts == ["plugins"]:      # plugins=FILE_OR_MODULE: one more plugin
        raw["plugins"] = [*raw.get("plugins", []), value.strip()]
        return None, ("plugins",)
    target, seat = raw, None
    if parts[0] in SEAT_NAMES:
        seat = parts.pop(0)
        target = raw.setdefault(seat, {})
        if not isinstance(target, dict):
            raise ProfileError(f"setting {setting!r}: the profile's {seat} is not a section")
    if not parts or parts[0] not in SEAT_ROLES:
        raise ProfileError(f"setting {setting!r}: unknown role (roles: {', '.join(SEAT_ROLES)})")
    section = target.setdefault(parts[0], {})
    if not isinstance(section, dict):
        raise ProfileError(f"setting {setting!r}: the profile's {parts[0]} is not a section")
    if len(parts) == 1:
        section.clear()
        section["name"] = value.strip()
    elif len(parts) == 2:
        section[parts[1]] = _parse_value(value.strip())
    else:
        raise ProfileError(f"setting {setting!r}: too many dots (ROLE.PARAM=VALUE)")
    return seat, tuple(parts)


def _parse_value(text: str):
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
