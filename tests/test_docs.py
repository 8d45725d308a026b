"""The documents point at files that exist and describe the profiles as they ship."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NAMED_FILE = re.compile(r"\b(?:sim|strategies|analysis|scripts|tests|examples)/[\w/]*\.(?:py|md|jsonl|toml|txt)\b")


#: Files a worked example tells the reader to write (docs/strategies.md: a new card player).
WRITTEN_BY_THE_READER = {"strategies/cardplay/lowest.py"}
#: Files the code has moved before the documents that name them are rewritten: where each went. An
#: entry goes when no document names the old file any more.
MOVED = {"sim/kernel_cache.py": "sim/runs/compiling.py"}


def test_every_file_a_document_names_exists():
    missing = {f"{doc.name}: {name}" for doc in DOCUMENTS for name in NAMED_FILE.findall(doc.read_text())
               if not (ROOT / MOVED.get(name, name)).exists() and name not in WRITTEN_BY_THE_READER}
    assert not missing, sorted(missing)


def test_the_evaluator_guide_says_which_profile_bids_on_thresholds():
    from strategies import load_profile

    text = " ".join((ROOT / "docs" / "evaluators.md").read_text().split())
    says = "the `threshold` profile (and `cautious`, `aggressive` and `random`, which share its bidding) bids on lower"
    assert says in text
    assert load_profile("threshold").seats[0].bidder.__class__.__name__ == "ThresholdBidder"
    assert load_profile("default").seats[0].bidder.__class__.__name__ != "ThresholdBidder"
