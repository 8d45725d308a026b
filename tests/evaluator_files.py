"""An evaluator in a file of its own, for the tests of evaluators scored at analysis time."""

from __future__ import annotations

from pathlib import Path


def twin_file(folder: Path, evaluator: str) -> Path:
    """``folder/twin.py``, a file holding the built-in ``evaluator`` under the name ``twin`` (not registered):
    the same scores and thresholds, so that whatever a report computes of it must equal the built-in's."""
    path = folder / "twin.py"
    path.write_text(f"""
from strategies.evaluators import {evaluator}


def twin(hands, seats):
    return {evaluator}(hands, seats)


twin.thresholds = {evaluator}.thresholds
""")
    return path
