"""Profiles: which strategy, with which parameters, plays each role at each seat.

A profile is a TOML file. Each role is a table with the strategy's ``name`` and
its parameters; a table named after a seat overrides roles for that seat only::

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
``middlehand.card_play=random`` are applied on top.
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
from .registry import StrategyError, build

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


def mixed_table(a: Profile, b: Profile, a_seats, card_play_only: bool = False) -> Profile:
    """A table where the seats in ``a_seats`` play A's strategies and the other seats B's.

    With ``card_play_only`` every seat bids, discards and declares as A does, and only the
    card play follows the seating: the classic comparison of card players.
    """
    seats = []
    for seat in range(3):
        player = a if seat in a_seats else b
        seats.append(replace(a.seats[seat], card_play=player.seats[seat].card_play) if card_play_only
                     else player.seats[seat])
    return Profile(f"{a.name} / {b.name}", "", {}, tuple(seats))


def profile_names() -> list[str]:
    folder = resources.files("strategies") / "profile_files"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def profile_description(name_or_path: str | Path) -> str:
    """The description line of a profile, without building its strategies."""
    return str(_read(name_or_path)[0].get("description", ""))


def load_profile(name_or_path: str | Path = "default", settings: list[str] | tuple = ()) -> Profile:
    """A named profile or a TOML file, with ``role=name`` / ``role.param=value`` settings applied."""
    raw, name = _read(name_or_path)
    for setting in settings:
        _apply_setting(raw, setting)
    return build_profile(name, raw)


def build_profile(name: str, raw: dict) -> Profile:
    description = str(raw.get("description", ""))
    unknown = set(raw) - set(SEAT_ROLES) - set(SEAT_NAMES) - {"description"}
    if unknown:
        raise ProfileError(f"profile {name!r}: unknown section {', '.join(sorted(unknown))}"
                           f" (roles: {', '.join(SEAT_ROLES)}; seats: {', '.join(SEAT_NAMES)})")
    spec = {seat: _seat_spec(name, raw, seat) for seat in SEAT_NAMES}
    seats = tuple(SeatStrategies(**{role: _build(name, seat, role, spec[seat][role])
                                    for role in SEAT_ROLES}) for seat in SEAT_NAMES)
    return Profile(name, description, spec, seats)


def _read(name_or_path) -> tuple[dict, str]:
    path = Path(name_or_path)
    if path.suffix == ".toml" or (str(name_or_path) not in profile_names() and path.is_file()):
        if not path.is_file():
            raise ProfileError(f"profile file {path} does not exist")
        text, name = path.read_text(encoding="utf-8"), path.stem
    else:
        name = str(name_or_path)
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
            raise ProfileError(f"profile {name!r}: {key} must be a table ([{key}]), not {raw[key]!r}")
        for role, table in raw.get(key, {}).items() if key == seat else ():
            if not isinstance(table, dict):
                raise ProfileError(f"profile {name!r}: {seat}.{role} must be a table ([{seat}.{role}])")
    spec = {}
    for role in SEAT_ROLES:
        table = copy.deepcopy(raw.get(role, {}))
        table.update(copy.deepcopy(raw.get(seat, {}).get(role, {})))
        if "name" not in table:
            raise ProfileError(f"profile {name!r}: no {role} for {seat} (add [{role}] with a name)")
        spec[role] = table
    unknown = set(raw.get(seat, {})) - set(SEAT_ROLES)
    if unknown:
        raise ProfileError(f"profile {name!r}: [{seat}] has unknown role {', '.join(sorted(unknown))}")
    return spec


def _build(profile: str, seat: str, role: str, table: dict):
    params = {k: v for k, v in table.items() if k != "name"}
    try:
        return build(role, table["name"], **params)
    except (StrategyError, TypeError, ValueError) as error:
        raise ProfileError(f"profile {profile!r}, {seat} {role}: {error}") from None


def _apply_setting(raw: dict, setting: str) -> None:
    """Apply ``[seat.]role=name`` or ``[seat.]role.param=value`` to the raw profile."""
    key, sep, value = setting.partition("=")
    parts = key.strip().split(".")
    if not sep or not all(parts):
        raise ProfileError(f"setting {setting!r} is not ROLE=NAME or ROLE.PARAM=VALUE")
    target = raw
    if parts[0] in SEAT_NAMES:
        target = raw.setdefault(parts.pop(0), {})
    if not parts or parts[0] not in SEAT_ROLES:
        raise ProfileError(f"setting {setting!r}: unknown role (roles: {', '.join(SEAT_ROLES)})")
    table = target.setdefault(parts[0], {})
    if len(parts) == 1:
        table.clear()
        table["name"] = value.strip()
    elif len(parts) == 2:
        table[parts[1]] = _parse_value(value.strip())
    else:
        raise ProfileError(f"setting {setting!r}: too many dots (ROLE.PARAM=VALUE)")


def _parse_value(text: str):
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
