"""The JSON layout of the game-theory items: what every concept's constraints hold, and the data
of a classify, generate and edit item, generic over the concept's kinds of claim and constraints
(each concept module declares its own: `CellClaim`, `NashConstraints`, ...).
"""

from __future__ import annotations

from typing import Generic, Literal, TypedDict, TypeVar

from verstehen.domains.game_theory.game import GameJson

Unique = Literal["all", "player1"] | None  # which payoffs must all differ (None: no demand)


class GameConstraints(TypedDict):
    """What every concept's generate constraints hold: the matrix shape [m, n] and which payoffs
    must all differ ("all": every number, "player1": player 1's)."""

    shape: list[int]
    unique: Unique


ClaimT = TypeVar("ClaimT")  # a concept's claim about a game (JSON)
ConstraintsT = TypeVar("ConstraintsT", bound=GameConstraints)


class GameClassifyData(TypedDict, Generic[ClaimT]):
    """A classify item's data: the game and the claim whose truth is the answer."""

    game: GameJson
    claim: ClaimT


class GameGenerateData(TypedDict, Generic[ConstraintsT]):
    """A generate item's data."""

    constraints: ConstraintsT


class GameEditData(TypedDict, Generic[ClaimT]):
    """An edit item's data: the game to change, the claim, and whether it is to hold after."""

    game: GameJson
    claim: ClaimT
    make_instance: bool


class EditedGame(TypedDict):
    """An edit grade's `parsed`: the replied game and how many cells it changed (None when its
    shape differs from the shown game's)."""

    game: GameJson
    changed: int | None


def shape_of(constraints: GameConstraints) -> tuple[int, int]:
    """The asked (rows, columns)."""
    m, n = constraints["shape"]
    return m, n


def unique_of(constraints: GameConstraints) -> Unique:
    """Which payoffs must all differ (None: no demand)."""
    return constraints.get("unique")
