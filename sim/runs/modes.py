"""The modes of the runs that skatsim's players make, as a manifest records them: the play that made a
run, rebuilt from the description in its manifest (each play's ``from_description``, the inverse of
its ``description``), and a damaged run made whole again by it."""

from __future__ import annotations

from pathlib import Path

from sim.runs import RunError
from sim.runs.compiling import check_kernel_cache
from sim.runs.decisions import DecisionDeals
from sim.runs.folder import older_run, read_manifest
from sim.runs.lock import holding
from sim.runs.matches import MatchDeals
from sim.runs.runner import RunConfig, run
from sim.runs.schema import SIMULATION
from sim.runs.simulation import ProfileDeals

#: The play of each mode of run.
PLAYS = {"game": ProfileDeals, "declare": ProfileDeals, "match": MatchDeals, "decisions": DecisionDeals}


def play_of(folder) -> tuple[ProfileDeals | MatchDeals | DecisionDeals, RunConfig]:
    """The play and the settings that made the run in ``folder`` (a simulation, a match or a run of
    card decisions), from its manifest."""
    config = read_manifest(folder).config
    made_by = PLAYS.get(config["mode"]) if config.get("source", SIMULATION) == SIMULATION else None
    if made_by is None:
        raise RunError(f"{folder} was not made by `skatsim simulate`, `skatsim match` or `skatsim decisions`;"
                       " run the command that made it again")
    play = made_by.from_description(config)
    return play, RunConfig(config["deals"], config["seed"], play.description(), mode=config["mode"],
                           chunk_size=config["chunk_size"])


def repair(folder, *, jobs: int | None = None, progress=None) -> dict[int, str]:
    """Check every part of the run in ``folder`` byte by byte and play the damaged ones again.

    Returns the parts that were damaged, with what was wrong. The parts are made again
    from the seed and the manifest's profile, which gives the identical data; a run
    whose strategies or evaluators changed since is refused rather than mixed, and a folder another
    command writes is left alone (RunError naming it).
    """
    check_kernel_cache()
    read_manifest(folder)   # a folder that holds no run is named as such, and not written
    with holding(Path(folder)):
        return _repair_held(folder, jobs=jobs, progress=progress)


def _repair_held(folder, *, jobs, progress) -> dict[int, str]:
    """:func:`repair` of the run in ``folder``, which this command holds."""
    manifest = read_manifest(folder)
    damaged = manifest.damaged_parts(folder, deep=True)
    if not damaged:
        return damaged
    if manifest.config.get("source", SIMULATION) != SIMULATION:
        manifest.drop_parts(damaged)
        manifest.save(folder)
        raise RunError(f"{folder}: dropped {len(damaged)} damaged part(s) of an imported run; run the same"
                       " `skatsim import` command again to import them again")
    older = older_run(Path(folder), manifest.config, "repair")
    if older:
        raise RunError(older)
    play, config = play_of(folder)
    if config.identity() != manifest.config:
        raise RunError(f"{folder} was made with strategies or evaluators that have changed since;"
                       " its parts cannot be made again identically")
    manifest.drop_parts(damaged)
    manifest.save(folder)
    run(play, config, folder, jobs=jobs, progress=progress)
    return damaged
