"""What a hand is worth: win probabilities fitted on the toolkit's own declare-mode runs.

A :class:`Model` holds one logistic regression per outcome, game group and situation,
fitted on the rows of declare-mode runs made with ``--variants all`` (every seat
declares every game in every variant, so no auction selects the data):

- game groups: ``suit`` (the four suit games pooled: the cards of the trump suit take
  the place of clubs in a clubs game), ``grand``, ``null`` and ``null_ouvert``;
- situations: ``pickup`` and ``hand`` judge the ten cards as dealt, before the skat is
  seen (what a bidder knows); ``kept`` judges the ten cards kept after picking up the
  skat and discarding (what a declarer knows);
- outcomes: ``win`` (won by the cards), ``schneider`` (the declarer took 90 points or
  more) and ``schwarz`` (every trick), the last two for suit and grand games.

The inputs are simple hand features (:func:`features`: trumps, jacks, aces, tens
beside their ace, voids, the seat) and the scores of the built-in evaluators.
Probabilities are monotone where they should be: every strength feature has the sign
it must have (more trumps or jacks never hurt a suit game, more jacks or aces a grand, a
safer null hand a null), and a coefficient the unconstrained fit puts on the wrong side
is held at 0 (:data:`MONOTONE`).

A model is plain data (:meth:`Model.to_dict`), stored in a TOML profile; nothing is
pickled. It records the card player whose play its runs show (``card_play``, written
by ``skatsim calibrate``): the odds of a hand are those of that player's play.
:mod:`strategies.expected` turns its probabilities into expected scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.statistics import fit_logistic, logistic

from . import hand_features

GROUPS = ("suit", "grand", "null", "null_ouvert")
SITUATIONS = ("pickup", "hand", "kept")
OUTCOMES = ("win", "schneider", "schwarz")
MODEL_VERSION = 1
#: Logits are clipped to this size before the logistic function.
LOGIT_LIMIT = 30

#: Features of each game group, and those whose coefficient must not be negative.
FEATURES = {
    "suit": ("trumps", "jacks", "club_jack", "matadors_with", "trump_ace_ten", "side_aces", "side_tens",
             "side_voids", "trump_length", "classic", "weighted", "forehand", "middlehand"),
    "grand": ("jacks", "club_jack", "aces", "tens", "voids", "long_suit", "grand_rule", "classic", "weighted",
              "forehand", "middlehand"),
    "null": ("null_rule", "weighted", "sevens", "voids", "worst_suit", "forehand", "middlehand"),
}
FEATURES["null_ouvert"] = FEATURES["null"]
#: The direction each strength feature must move a probability: +1 never lowers it, -1 never raises
#: it. Every feature but the seat has one, so a stronger hand is never judged weaker: more trumps
#: or jacks never hurt a suit game, a safer null hand never hurts a null.
MONOTONE = {
    "suit": {name: 1 for name in FEATURES["suit"] if name not in ("forehand", "middlehand")},
    "grand": {name: 1 for name in FEATURES["grand"] if name not in ("forehand", "middlehand")},
    "null": {"null_rule": 1, "weighted": 1, "sevens": 1, "voids": 1, "worst_suit": -1},
}
MONOTONE["null_ouvert"] = MONOTONE["null"]


def features(hands, seats, group: str, trump=3) -> np.ndarray:
    """The (n, k) features of ten-card ``hands`` held at ``seats`` for one game ``group``, columns as
    :data:`FEATURES`; for ``suit``, ``trump`` is the trump suit (0 diamonds .. 3 clubs), one for all
    rows or one per row (:mod:`strategies.hand_features` computes them hand by hand)."""
    return hand_features.features(hands, seats, group, trump)


@dataclass(frozen=True)
class Logistic:
    """One fitted probability: the group's features standardized, then a logistic regression."""

    group: str
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    @classmethod
    def fit(cls, group: str, x: np.ndarray, y: np.ndarray) -> "Logistic":
        mean, scale = x.mean(0), x.std(0)
        scale = np.where(scale > 0, scale, 1.0)
        signs = [MONOTONE[group].get(name, 0) for name in FEATURES[group]]
        coef, intercept = fit_logistic((x - mean) / scale, y, signs)
        return cls(group, mean, scale, coef, intercept)

    def folded(self) -> tuple[np.ndarray, float]:
        """The standardization folded into the weights: P = 1 / (1 + exp(-(x @ weights + offset))),
        the logit clipped to +-30, in one pass over the raw features."""
        weights = self.coef / self.scale
        return weights, self.intercept - self.mean @ weights

    def probability(self, x: np.ndarray) -> np.ndarray:
        weights, offset = self.folded()
        logit = x @ weights + offset
        return logistic(np.clip(logit, -LOGIT_LIMIT, LOGIT_LIMIT))

    def to_dict(self) -> dict:
        return {"group": self.group, "features": list(FEATURES[self.group]), "mean": self.mean.tolist(),
                "scale": self.scale.tolist(), "coef": self.coef.tolist(), "intercept": self.intercept}

    @classmethod
    def from_dict(cls, data: dict, name: str = "") -> "Logistic":
        if not isinstance(data, dict):
            raise ValueError(f"model part {name} must be a section, not {type(data).__name__}")
        group = data.get("group")
        if not isinstance(group, str) or group not in FEATURES \
                or list(data.get("features", ())) != list(FEATURES[group]):
            raise ValueError(f"model part {name} does not have this skatsim's group and features")
        try:
            parts = [np.asarray(data[key], dtype=float) for key in ("mean", "scale", "coef")]
            intercept = float(data["intercept"])
        except KeyError as missing:
            raise ValueError(f"model part {name} lacks {missing}") from None
        except (TypeError, ValueError):
            raise ValueError(f"model part {name}: mean, scale, coef and intercept must be numbers") from None
        if any(p.shape != (len(FEATURES[group]),) or not np.isfinite(p).all() for p in parts) \
                or not np.isfinite(intercept):
            raise ValueError(f"model part {name}: mean, scale and coef must be "
                             f"{len(FEATURES[group])} finite numbers each, and the intercept finite")
        return cls(group, *parts, intercept)


def key(outcome: str, group: str, situation: str) -> str:
    """The name of one fitted probability in a model: ``win_suit_pickup``, ``schneider_grand_kept`` ..."""
    return f"{outcome}_{group}_{situation}"


@dataclass(frozen=True)
class Model:
    """Every fitted probability of a calibration, by :func:`key`."""

    parts: dict[str, Logistic]
    #: The card player (its profile section) whose play the probabilities describe, if recorded.
    card_play: dict | None = None

    def probability(self, outcome: str, group: str, situation: str, x: np.ndarray) -> np.ndarray:
        """P(outcome) of each row of features ``x`` (:func:`features` of ``group``) in a game of ``group``
        and ``situation`` (0 if the model has no such part: an outcome the data never showed)."""
        part = self.parts.get(key(outcome, group, situation))
        if part is None:
            return np.zeros(len(x))
        return part.probability(x)

    def to_dict(self) -> dict:
        recorded = {} if self.card_play is None else {"card_play": dict(self.card_play)}
        return {"version": MODEL_VERSION, **recorded,
                **{name: part.to_dict() for name, part in sorted(self.parts.items())}}

    @classmethod
    def from_dict(cls, data) -> "Model":
        if not isinstance(data, dict) or data.get("version") != MODEL_VERSION:
            raise ValueError(f"the model must be a section of version {MODEL_VERSION}"
                             " (made by `skatsim calibrate`)")
        card_play = data.get("card_play")
        if card_play is not None and not (isinstance(card_play, dict) and isinstance(card_play.get("name"), str)):
            raise ValueError("the model's card_play must be a card player's section (its name and parameters)")
        parts = {name: Logistic.from_dict(part, name) for name, part in data.items()
                 if name not in ("version", "card_play")}
        needed = [key("win", group, situation) for group in GROUPS for situation in SITUATIONS]
        missing = [name for name in needed if name not in parts]
        if missing:
            raise ValueError(f"the model lacks {', '.join(missing[:3])}")
        return cls(parts, card_play)


# --- checks of a fit ------------------------------------------------------------------------


def reliability(p: np.ndarray, y: np.ndarray, bins: int = 10) -> list[dict]:
    """Per bin of predicted probability: rows, mean prediction and observed rate."""
    index = np.minimum((p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        rows = index == b
        if rows.any():
            out.append({"from": b / bins, "rows": int(rows.sum()), "predicted": float(p[rows].mean()),
                        "observed": float(y[rows].mean())})
    return out
