"""Fuzzing every input a user hands skatsim: game records, profiles, command-line options,
manifests and part files.

Structure-aware mutations of valid inputs, drawn by hypothesis with the project's fixed
(derandomized) profile, so CI tries the same cases every time. The invariant for every
case: the input is accepted and handled, or refused with one line (or, under
``--keep-going``, one error object) naming the problem and a non-zero exit; never a
traceback, and nothing else lost or changed.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.commands.cli import main
from sim.rules.records import FIELDS, RecordError, parse_record, replay
from sim.runs import RunError
from sim.runs.folder import read_manifest
from sim.runs.simulation import simulate
from sim.solver.open_hand import solve_record
from strategies.profiles import ProfileError, load_profile
from strategies.registry import ROLES, lookup, names, settable_parameters
from tests import reference as ref

ROOT = Path(__file__).resolve().parents[2]
GOOD_LINES = (ROOT / "examples" / "games.jsonl").read_text().splitlines()
GOOD_RECORDS = [json.loads(line) for line in GOOD_LINES]

# --- values a field or parameter may be given ---------------------------------------------

ODD_TEXT = st.sampled_from(["", " ", "\x00", "\u202e", "\U0001f0a1", "CJ\x00SJ", "é" * 3, "\ufeffCJ", "x" * 5000,
                            "\n", "pass\r\n", "CJ SJ HJ DJ CA C10 CK CQ C9 C8 C7"])
NUMBERS = st.one_of(st.integers(-(10**30), 10**30), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, -1, 17, 19, 265, 2**63, 10**400]))


def nested(depth: int):
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


ANY_VALUE = st.one_of(st.none(), st.booleans(), NUMBERS, ODD_TEXT, st.text(max_size=30),
                      st.lists(st.one_of(st.text(max_size=4), st.integers(-5, 300)), max_size=12),
                      st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
                      st.sampled_from([nested(60), {"a": nested(40)}]))


# --- game records --------------------------------------------------------------------------


@st.composite
def mutated_records(draw) -> tuple[str, bool]:
    """A valid record with one structural change, as a line of text, and whether the change surely
    breaks the record format or a rule (see :func:`breaks_the_record`)."""
    original = draw(st.sampled_from(GOOD_RECORDS))
    record = copy.deepcopy(original)
    kind = draw(st.sampled_from(["wrong value", "missing", "extra", "card", "call"]))
    field = draw(st.sampled_from(FIELDS))
    if kind == "wrong value":
        record[field] = draw(ANY_VALUE)
    elif kind == "missing":
        record.pop(field, None)
    elif kind == "extra":
        field = draw(st.text(min_size=1, max_size=20))
        record[field] = draw(ANY_VALUE)
    elif kind == "card" and record.get("play"):
        cards = record["play"].split() if isinstance(record["play"], str) else list(record["play"])
        cards[draw(st.integers(0, len(cards) - 1))] = draw(st.one_of(ODD_TEXT, st.text(max_size=3)))
        record["play"] = cards
    elif kind == "call":
        record["auction"] = draw(st.lists(st.one_of(st.sampled_from(["yes", "pass", 18, 20, 19, 264, 300]),
                                                    ANY_VALUE), max_size=8))
    return json.dumps(record, allow_nan=True), breaks_the_record(original, record)


BIDS = {value for value in ref.all_game_values() if value >= 18}
PLAYED_FIELDS = ("declarer", "bid", "game", "play")


def breaks_the_record(original: dict, record: dict) -> bool:
    """Whether the record format (sim.rules.records) or a rule surely refuses ``record``, a changed copy of
    the valid ``original``: an unknown field, a field a played game needs missing, a value of the wrong
    kind, a card text that names no card, a card of a complete play changed to another. A change this
    cannot judge (another valid game, a flag turned) counts as not breaking it."""
    played = not original.get("auction") or any(call != "pass" for call in original["auction"])
    needed = ("hands", "skat", *(PLAYED_FIELDS if played else ()), *(("discard",) if played and not
                                                                      original.get("hand") else ()))
    if set(record) - set(FIELDS) or any(record.get(name) is None for name in needed):
        return True
    for name, value in record.items():
        if value is not None and value != original.get(name) and wrong_kind(name, value, original):
            return True
    play, before = record.get("play"), original.get("play")
    if isinstance(play, list) and before is not None and play != before:
        cards = ref.spelled_cards(play)
        if cards is None or None in cards:
            return True
        complete = len(cards) == 30 and original.get("ended") is None
        return complete and cards != ref.spelled_cards(before)
    return False


def wrong_kind(name: str, value, original: dict) -> bool:
    """Whether ``value`` is of a kind field ``name`` never takes (in a record like ``original``)."""
    if name in ("hands", "skat", "discard", "play"):
        sizes = {"skat": 2, "discard": 2}
        if name == "hands":
            return not (isinstance(value, list) and len(value) == 3 and all(cards_of_size(h, 10) for h in value))
        if name == "discard" and original.get("hand"):
            return True  # a hand game has no discard
        cards = ref.spelled_cards(value)
        return cards is None or None in cards or (name in sizes and not cards_of_size(value, sizes[name]))
    if name in ("hand", "schneider", "schwarz", "ouvert"):
        return not isinstance(value, bool)
    if name == "declarer":
        return ref.named(value, ref.SEAT_NAMES) is None
    if name == "game":
        return ref.named(value, ref.GAME_NAMES) is None
    if name == "bid":
        return not isinstance(value, int) or isinstance(value, bool) or value not in BIDS
    if name == "auction":
        return not isinstance(value, list) or not all(
            (isinstance(c, str) and c.strip().lower() in ("yes", "pass"))
            or (isinstance(c, int) and not isinstance(c, bool) and c in BIDS) for c in value)
    if name == "id":
        return not isinstance(value, (str, int, float)) or isinstance(value, bool) or value != value
    if name == "ended":
        return value not in ("resigned", "claimed", "timeout", "left")
    return name == "ended_by" and original.get("ended") is None  # ended_by without ended


def cards_of_size(value, size: int) -> bool:
    cards = ref.spelled_cards(value)
    return cards is not None and None not in cards and len(set(cards)) == len(cards) == size


@st.composite
def mangled_lines(draw) -> str:
    """A valid line cut, spliced, doubled or wrapped at the text level."""
    line = draw(st.sampled_from(GOOD_LINES))
    kind = draw(st.sampled_from(["cut", "insert", "duplicate key", "wrap", "deep", "long"]))
    at = draw(st.integers(0, len(line)))
    if kind == "cut":
        return line[:at]
    if kind == "insert":
        return line[:at] + draw(st.one_of(ODD_TEXT, st.text(max_size=5))) + line[at:]
    if kind == "duplicate key":
        return line[:-1] + ', "bid": 18}'
    if kind == "wrap":
        return "[" + line + "]"
    if kind == "deep":
        depth = draw(st.sampled_from([100, 2000, 20_000]))
        return '{"id": ' + "[" * depth + "]" * depth + "}"
    return line[:-1] + ', "id": "' + "y" * draw(st.sampled_from([10_000, 150_000])) + '"}'


def check_one_line(line: str, breaks: bool = False) -> None:
    """The record replays, or RecordError names the problem in one line. A record that surely breaks the
    format must be refused, and one that replays must agree with the card play of the reference rules."""
    try:
        result = replay(parse_record(line))
    except RecordError as error:
        assert str(error) and "\n" not in str(error) and len(str(error)) < 600
        return
    assert not breaks, f"an illegal record was accepted: {line[:300]}"
    record = json.loads(line)
    if not result["passed_in"]:
        expected = ref.record_card_play(record)  # ValueError: a card the rules refuse was accepted
        assert list(result["trick_winners"]) == expected["trick_winners"]
        assert result["declarer_points"] == expected["declarer_points"]
        assert result["declarer"] == ref.named(record["declarer"], ref.SEAT_NAMES)
        assert result["game"] == ref.GAME_NAMES[ref.named(record["game"], ref.GAME_NAMES)]


@settings(max_examples=800, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_records())
def test_mutated_records_replay_or_fail_in_one_line(case):
    check_one_line(*case)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mangled_lines())
def test_mangled_lines_replay_or_fail_in_one_line(line):
    check_one_line(line)


@pytest.mark.parametrize("change", [
    {"play": None}, {"hands": ["CJ"] * 3}, {"bid": 19}, {"bid": True}, {"game": "nul"}, {"declarer": 3},
    {"hand": "yes"}, {"extra": 1}, {"ended_by": "forehand"}, {"auction": [18, "maybe"]}])
def test_the_oracle_of_the_fuzz_tests_knows_an_illegal_record(change):
    """The fuzz tests can fail: these changes break a valid record, and the oracle says so."""
    original = GOOD_RECORDS[0]
    record = {**copy.deepcopy(original), **change}
    assert breaks_the_record(original, record)
    with pytest.raises(RecordError):
        replay(parse_record(json.dumps(record)))
    assert not breaks_the_record(original, copy.deepcopy(original))


def test_the_reference_card_play_refuses_a_card_that_does_not_follow_suit():
    record = copy.deepcopy(GOOD_RECORDS[0])
    cards = record["play"].split()
    cards[1], cards[4] = cards[4], cards[1]  # middlehand's first two cards swapped
    record["play"] = cards
    with pytest.raises(ValueError, match="may not be played"):
        ref.record_card_play(record)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(mutated_records(), mangled_lines()))
def test_mutated_records_solve_or_fail_in_one_line(line):
    """`skatsim solve` reads records as replay does (bid and play optional): an answer or one line."""
    line = line[0] if isinstance(line, tuple) else line
    try:
        answer = solve_record(parse_record(line))
    except RecordError as error:
        assert str(error) and "\n" not in str(error) and len(str(error)) < 600
    else:
        assert answer["passed_in"] or answer["declarer_wins"] in (True, False)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(st.lists(st.one_of(mutated_records(), mangled_lines()), min_size=1, max_size=6))
def test_replay_keep_going_answers_every_line_once(tmp_path_factory, lines):
    """Bad lines among good ones: one result or error object per line, in order, the good ones scored."""
    source = tmp_path_factory.mktemp("fuzz") / "games.jsonl"
    lines = [line[0] if isinstance(line, tuple) else line for line in lines]
    # a line break inserted into a line makes two lines of the file: keep each case on its line
    lines = [line.replace("\r", " ").replace("\n", " ") for line in lines]
    lines = [line for line in lines if line.strip()] + [GOOD_LINES[0]]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(source), "--keep-going"])
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == len(lines)
    assert out[-1]["id"] == json.loads(GOOD_LINES[0])["id"] and "error" not in out[-1]
    failed = [r for r in out if "error" in r]
    assert result.exit_code == (1 if failed else 0)
    assert all(r["line"] == i + 1 for i, r in enumerate(out) if "error" in r)
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == len(failed) + bool(failed)


# --- profiles ------------------------------------------------------------------------------


def every_parameter() -> list[tuple[str, str, str]]:
    """(role, strategy, parameter) of every parameter of every registered strategy but evaluators
    (whose parameters a profile sets through the bidder's evaluator_params)."""
    return [(role, name, parameter) for role in ROLES if role != "evaluator" for name in names(role)
            for parameter in settable_parameters(lookup(role, name))]


EVALUATOR_PARAMETERS = [(name, parameter) for name in names("evaluator")
                        for parameter in settable_parameters(lookup("evaluator", name))]


def toml_text(value) -> str:
    """A value as TOML writes it, near enough: JSON with TOML's nan and inf (a null stays "null")."""
    return json.dumps(value, allow_nan=True).replace("NaN", "nan").replace("Infinity", "inf")


def admissible(value) -> bool:
    return value is None or not isinstance(value, float) or math.isfinite(value)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(st.sampled_from(every_parameter()), ANY_VALUE)
def test_any_value_of_any_strategy_parameter_is_taken_or_refused_in_one_line(where, value):
    role, name, parameter = where
    settings_ = [f"{role}={name}"] if role != "card_play" else [f"card_play={name}"]
    settings_.append(f"{role}.{parameter}={toml_text(value)}")
    try:
        profile = load_profile("default", settings_)
    except ProfileError as error:
        assert "\n" not in str(error) and f"{role}" in str(error)
        return
    assert admissible(value)  # NaN never gets through
    assert within_range(lookup(role, name).ranges.get(parameter), value), f"{role}.{parameter}={value!r} taken"
    assert all(profile.spec[seat][role][parameter] == value for seat in profile.spec)  # the value given is used


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(EVALUATOR_PARAMETERS), ANY_VALUE)
def test_any_evaluator_parameter_value_is_taken_or_refused_in_one_line(where, value):
    name, parameter = where
    table = f"{{ {parameter} = {toml_text(value)} }}"
    try:
        profile = load_profile("threshold", [f"bidder.evaluator={name}", f"bidder.evaluator_params={table}"])
    except ProfileError as error:
        assert "\n" not in str(error)
        return
    assert admissible(value)
    assert within_range(lookup("evaluator", name).ranges.get(parameter), value), f"{name}.{parameter}={value!r}"
    assert profile.spec["forehand"]["bidder"]["evaluator_params"][parameter] == value


def within_range(bounds, value) -> bool:
    """Whether ``value`` lies in a parameter's declared range (low, high, count, inf), worked out here
    rather than by the registry's own check; True for a parameter without a range."""
    if bounds is None:
        return True
    values = value if bounds.count is not None else [value]
    if bounds.count is not None and (not isinstance(value, list) or len(value) != bounds.count):
        return False
    return all(isinstance(v, (int, float)) and not isinstance(v, bool)
               and ((bounds.allow_inf and v == math.inf) or bounds.low <= v <= bounds.high) for v in values)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["bidder", "card_play", "forehand", "dealer", "description", "x.y"]),
                       ANY_VALUE, max_size=3))
def test_odd_profile_files_are_refused_in_one_line(tmp_path_factory, sections):
    """None of these files names a strategy for each of the four roles (at most three keys, none a role table
    with a name), so every one must be refused, whatever its values."""
    path = tmp_path_factory.mktemp("profiles") / "odd.toml"
    lines = [f"{key} = {toml_text(value)}" for key, value in sections.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ProfileError) as error:
        load_profile(path)
    assert "\n" not in str(error.value)


# --- command-line options ---------------------------------------------------------------------

BAD_OPTION_VALUES = {
    "--deals": ["0", "-5", "x", "1e3", "", str(2**70)],
    "--seed": ["-1", str(2**64), "seven", "1.5"],
    "--chunk-size": ["0", "-1", "big"],
    "--jobs": ["0", "-2", "many"],
    "--mode": ["play", "", "GAME"],
    "--profile": ["nope", "/no/such.toml", ""],
    "--set": ["card_play", "nope=1", "bidder.aggressiveness=nan", "forehand.card_play.x.y=1", "=", "card_play=clever"],
    "--backend": ["threads"],
}


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(BAD_OPTION_VALUES)), st.data())
def test_bad_simulate_options_get_one_line_and_no_run(tmp_path_factory, option, data):
    value = data.draw(st.sampled_from(BAD_OPTION_VALUES[option]))
    out = tmp_path_factory.mktemp("cli") / "run"
    args = ["simulate", "--deals", "20", "--profile", "random", "--out", str(out), "--jobs", "1", option, value]
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (1, 2), result.output
    assert isinstance(result.exception, SystemExit)
    assert result.output.strip().count("\n") == 0 and result.output.startswith("skatsim")
    assert not list(out.glob("part-*")) if out.exists() else True


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["show", "verify", "analyze", "replay", "solve", "strategies", "nope"]),
       st.lists(st.sampled_from(["--repair", "--out", "-1", "x", "--jobs", "0", "/nowhere", "--keep-going",
                                 "--trace", "3"]), max_size=4))
def test_other_commands_with_odd_arguments_never_trace_back(tmp_path_factory, command, extra):
    folder = tmp_path_factory.mktemp("cli")
    args = [command, *[str(folder / "missing") if a == "/nowhere" else a for a in extra]]
    result = CliRunner().invoke(main, args, input="")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    if result.exit_code:
        assert "Traceback" not in result.output and result.output.strip().count("\n") == 0


# --- manifests and part files -----------------------------------------------------------------


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "whole"
    simulate(600, seed=5, profile="random", out=folder, jobs=1, chunk_size=200)
    return folder


def copy_run(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    for path in source.iterdir():
        (target / path.name).write_bytes(path.read_bytes())
    return target


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["cut", "drop key", "wrong type", "garbage", "parts", "not an object"]), st.data())
def test_damaged_manifests_are_named_in_one_line(whole_run, tmp_path_factory, damage, data):
    folder = copy_run(whole_run, tmp_path_factory.mktemp("manifests") / "run")
    manifest = json.loads((folder / "manifest.json").read_text())
    if damage == "cut":
        text = (folder / "manifest.json").read_text()
        text = text[: data.draw(st.integers(0, len(text) - 2))]
    elif damage == "garbage":
        text = data.draw(st.sampled_from(["", "\x00\xff", "[1, 2]", "null", "{" * 3000]))
    elif damage == "not an object":
        text = json.dumps(data.draw(st.sampled_from([[manifest], "manifest", 3])))
    else:
        key = data.draw(st.sampled_from(["deals", "seed", "mode", "chunk_size", "schema_version", "evaluators"]))
        if damage == "drop key":
            manifest["config"].pop(key)
        elif damage == "wrong type":
            manifest["config"][key] = data.draw(ANY_VALUE)
        else:
            manifest["parts"] = data.draw(st.one_of(ANY_VALUE, st.just({"99": {}}), st.just({"x": 1})))
        text = json.dumps(manifest)
    (folder / "manifest.json").write_text(text, encoding="utf-8", errors="surrogateescape")
    parts_before = {p.name: p.read_bytes() for p in folder.glob("part-*")}
    try:
        read_manifest(folder)
        readable = True
    except RunError as error:
        assert "\n" not in str(error) and "manifest.json" in str(error)
        readable = False
    runner = CliRunner()
    for command in (["verify", str(folder)], ["show", str(folder), "3"],
                    ["analyze", str(folder), "--out", str(folder.parent / "report")]):
        result = runner.invoke(main, command)
        assert result.exception is None or isinstance(result.exception, SystemExit), (command, result.output)
        if result.exit_code:
            assert result.output.strip().count("\n") == 0 and "Traceback" not in result.output
        else:
            assert readable
    assert {p.name: p.read_bytes() for p in folder.glob("part-*")} == parts_before


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["truncate", "flip", "empty", "delete", "swap", "append"]), st.integers(0, 2))
def test_damaged_parts_are_found_named_and_made_again(whole_run, tmp_path_factory, damage, index):
    folder = copy_run(whole_run, tmp_path_factory.mktemp("parts") / "run")
    part = folder / f"part-{index:05d}.parquet"
    other = folder / f"part-{(index + 1) % 3:05d}.parquet"
    data = part.read_bytes()
    if damage == "truncate":
        part.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        flipped = bytearray(data)
        flipped[len(data) // 2] ^= 0x5A
        part.write_bytes(bytes(flipped))
    elif damage == "empty":
        part.write_bytes(b"")
    elif damage == "delete":
        part.unlink()
    elif damage == "swap":
        part.write_bytes(other.read_bytes())
    else:
        part.write_bytes(data + b"PAR1")
    untouched = {p.name: p.read_bytes() for p in folder.glob("part-*") if p != part}
    runner = CliRunner()
    found = runner.invoke(main, ["verify", str(folder)])
    assert found.exit_code == 1 and part.name in found.output and "Traceback" not in found.output
    for command in (["analyze", str(folder), "--out", str(folder.parent / "report")],
                    ["show", str(folder), str(index * 200 + 7)]):
        result = runner.invoke(main, command)
        if damage == "flip" and result.exit_code == 0:
            continue  # a flipped byte the cheap checks cannot see is found by verify (above)
        assert result.exit_code == 1 and result.output.strip().count("\n") == 0
        assert part.name in result.output and "--repair" in result.output
    repaired = runner.invoke(main, ["verify", str(folder), "--repair", "--jobs", "1"])
    assert repaired.exit_code == 0, repaired.output
    assert {p.name: p.read_bytes() for p in folder.glob("part-*") if p != part} == untouched
    assert pl.read_parquet(folder / "part-*.parquet").sort("deal_id").equals(
        pl.read_parquet(whole_run / "part-*.parquet").sort("deal_id"))


# --- archive lines ----------------------------------------------------------------------------

ISS_LINES = [line for line in (ROOT / "examples" / "iss.txt").read_text().splitlines() if line.startswith("(;")]


@st.composite
def mutated_archive_lines(draw) -> str:
    """A valid ISS record line cut, spliced with odd text, with a field emptied or doubled."""
    line = draw(st.sampled_from(ISS_LINES))
    kind = draw(st.sampled_from(["cut", "insert", "field", "double", "swap"]))
    at = draw(st.integers(0, len(line)))
    if kind == "cut":
        return line[:at]
    if kind == "insert":
        return line[:at] + draw(st.one_of(ODD_TEXT, st.text(max_size=6))) + line[at:]
    if kind == "field":
        label = draw(st.sampled_from(["MV", "R", "DT", "P0", "ID"]))
        start = line.find(f"{label}[")
        end = line.find("]", start)
        return line[:start + len(label) + 1] + draw(st.text(max_size=12)) + line[end:]
    if kind == "double":
        return line.replace("R[", "R[d:0 R[", 1)
    words = line.split(" ")
    i, j = draw(st.integers(0, len(words) - 1)), draw(st.integers(0, len(words) - 1))
    words[i], words[j] = words[j], words[i]
    return " ".join(words)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_archive_lines())
def test_mutated_archive_lines_are_read_or_refused_in_one_line(line):
    from sim.imports.iss.notation import IssError
    from sim.imports.iss.record import check_line

    try:
        check_line(line)
    except IssError as error:
        assert str(error) and "\n" not in str(error) and len(str(error)) < 600


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(st.lists(mutated_archive_lines(), min_size=1, max_size=8))
def test_an_archive_with_bad_lines_imports_every_good_line_and_reports_each_bad_one(tmp_path_factory, bad):
    """Lines that are no record (no "(;") are ignored; every record line is imported or reported."""
    from sim.imports.iss.archive import import_archives
    from sim.imports.iss.notation import is_record_line

    folder = tmp_path_factory.mktemp("archive")
    # a line break inserted into a line makes two lines of the file: keep each case on its line
    lines = [*(line.replace("\r", " ").replace("\n", " ") for line in bad), *ISS_LINES]
    (folder / "games.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = [i + 1 for i, line in enumerate(lines) if is_record_line(line)]
    valid = [number for number in records if _valid(lines[number - 1])]
    report = import_archives([folder / "games.txt"], folder / "run", jobs=1)
    assert report.games == len(valid) and report.bad_lines == len(records) - len(valid)
    problems = [json.loads(line) for line in (folder / "run" / "errors.jsonl").read_text().splitlines()]
    assert [p["line"] for p in problems if p["kind"] == "bad line"] == [n for n in records if n not in valid]
    assert all("\n" not in p["problem"] and len(p["problem"]) < 600 for p in problems)


def _valid(line: str) -> bool:
    from sim.imports.iss.notation import IssError
    from sim.imports.iss.record import check_line

    try:
        check_line(line)
        return True
    except IssError:
        return False
