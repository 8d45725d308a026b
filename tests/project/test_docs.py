"""The documents point at files that exist, import what exists and describe the profiles as they ship."""

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NAMED_FILE = re.compile(r"\b(?:sim|strategies|analysis|scripts|tests|examples)/[\w/]*\.(?:py|md|jsonl|toml|txt)\b")


#: Files a worked example tells the reader to write (docs/writing-strategies.md: a new card player).
WRITTEN_BY_THE_READER = {"strategies/cardplay/lowest.py"}


def test_every_file_a_document_names_exists():
    missing = {f"{doc.name}: {name}" for doc in DOCUMENTS for name in NAMED_FILE.findall(doc.read_text())
               if not (ROOT / name).exists() and name not in WRITTEN_BY_THE_READER}
    assert not missing, sorted(missing)


def test_every_name_a_python_example_imports_from_the_toolkit_exists():
    """The Python examples of the documents import from where the names live (the examples that play
    deals are run by the tests of what they show; this one only imports)."""
    written = {name.removesuffix(".py").replace("/", ".") for name in WRITTEN_BY_THE_READER}
    missing = []
    for doc in DOCUMENTS:
        for block in re.findall(r"```python\n(.*?)```", doc.read_text(), re.S):
            for node in ast.walk(ast.parse(block)):
                if (not isinstance(node, ast.ImportFrom) or node.level or node.module in written
                        or node.module.split(".")[0] not in ("sim", "strategies", "analysis")):
                    continue
                module = importlib.import_module(node.module)
                missing += [f"{doc.name}: from {node.module} import {alias.name}" for alias in node.names
                            if not hasattr(module, alias.name)
                            and importlib.util.find_spec(f"{node.module}.{alias.name}") is None]
    assert not missing, missing


def test_the_evaluator_guide_says_which_profile_bids_on_thresholds():
    from strategies import load_profile

    text = " ".join((ROOT / "docs" / "evaluators.md").read_text().split())
    says = "the `threshold` profile (and `cautious`, `aggressive` and `random`, which share its bidding) bids on lower"
    assert says in text
    assert load_profile("threshold").seats[0].bidder.__class__.__name__ == "ThresholdBidder"
    assert load_profile("default").seats[0].bidder.__class__.__name__ != "ThresholdBidder"


def test_the_readme_is_a_guide_and_each_reference_page_stays_short():
    """The README stays a guide of at most 250 lines, and each reference page at most 600: the history
    of experiments goes to docs/notes/, not into the pages."""
    long = {doc.name: n for doc in DOCUMENTS
            if (n := len(doc.read_text().splitlines())) > (250 if doc.name == "README.md" else 600)}
    assert not long, long


def test_every_note_is_dated_and_listed_once_in_the_notes_index():
    notes = ROOT / "docs" / "notes"
    index = (notes / "README.md").read_text()
    for note in sorted(notes.glob("*.md")):
        if note.name == "README.md":
            continue
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md", note.name), note.name
        assert note.read_text().startswith(f"# {note.name[:10]}: "), note.name
        assert index.count(f"]({note.name})") == 1, note.name
    assert "notes/README.md" in (ROOT / "README.md").read_text()


def test_the_parameter_tables_of_the_docs_are_the_strategies_declarations():
    from strategies.parameters import markdown_table
    from strategies.registry import lookup

    found = 0
    for doc in DOCUMENTS:
        for match in re.finditer(r"<!-- parameters: (\w+) (\w+) -->\n((?:\|.*\n?)+)", doc.read_text()):
            role, name, table = match.groups()
            assert table.strip() == markdown_table(lookup(role, name).parameters), f"{doc.name}: {role} {name}"
            found += 1
    assert found >= 9
