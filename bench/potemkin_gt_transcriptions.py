"""Hand transcriptions of the Potemkin benchmark's 90 game-theory classification items.

The benchmark (labeled_instances.csv, rows with domain "Game Theory") gives each item as a word
problem plus an expert yes/no label: is this an instance of the concept? To check our checkers
against those labels, each item is transcribed here by hand into a payoff matrix and the claim the
item makes, so that `bench/validate_labels_game_theory.py` can apply the checker to the claim.

An entry is identified by its 0-based index among the Game Theory rows AND the first 10 hex
digits of the sha1 of its Example text (UTF-8), so an edited or reordered dataset is detected.
The example texts themselves are not reproduced (the dataset has no license): only the hash, our
own matrix, strategy names, and a note on each modeling choice.

Conventions: player 1 chooses the row and is the item's first-named player ("I"/"me" when the
asker plays); player 2 the column. Strategies are 0-based in claims. Payoffs are the item's
points/utilities; monetary payoffs are profits in $ million; waits are negative minutes. A
player whose payoffs the item does not describe gets zero payoffs (so it constrains nothing).
A `game` of None means the item is not a finite two-player normal-form game; the note says why.

`review` holds our judgement for items where the checker's verdict on our transcription
disagrees with the label (who is wrong, and why); the validation script prints it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verstehen.domains.game_theory.game import Game

# ---------------------------------------------------------------- claims


@dataclass(frozen=True)
class StrictlyDominant:
    """The player has a strictly dominant strategy (this one, when `strategy` is given)."""

    player: int
    strategy: int | None = None


@dataclass(frozen=True)
class WeaklyDominant:
    """The player has a weakly dominant strategy (this one, when `strategy` is given)."""

    player: int
    strategy: int | None = None


@dataclass(frozen=True)
class SolvedByIESDS:
    """Iterated elimination of strictly dominated strategies leaves one cell (this one if given)."""

    profile: tuple[int, int] | None = None


@dataclass(frozen=True)
class PureNash:
    """The cell is a pure Nash equilibrium; with profile None: the game has one."""

    profile: tuple[int, int] | None


@dataclass(frozen=True)
class MixedNash:
    """The mixed profile (x, y) is a Nash equilibrium (probabilities as fraction strings)."""

    x: tuple[str, ...]
    y: tuple[str, ...]


@dataclass(frozen=True)
class ParetoOptimal:
    """The cell is Pareto optimal."""

    cell: tuple[int, int]


@dataclass(frozen=True)
class BestResponse:
    """The player's `strategy` is a best response to the opponent's pure strategy `against`."""

    player: int
    strategy: int
    against: int


@dataclass(frozen=True)
class ZeroSum:
    """The game is zero-sum."""


@dataclass(frozen=True)
class Symmetric:
    """The game is symmetric."""


Claim = (StrictlyDominant | WeaklyDominant | SolvedByIESDS | PureNash | MixedNash
         | ParetoOptimal | BestResponse | ZeroSum | Symmetric)


@dataclass(frozen=True)
class Transcription:
    """One benchmark item: our matrix and claim, or None and why it is not a normal-form game."""

    index: int  # 0-based among the Game Theory rows
    sha1: str  # first 10 hex digits of sha1(Example, UTF-8)
    concept: str
    game: Game | None
    claim: Claim | None
    note: str
    rows: tuple[str, ...] = ()  # strategy names, for reading the matrix
    cols: tuple[str, ...] = ()
    review: str = ""  # our judgement when the checker disagrees with the label


def _t(index: int, sha1: str, concept: str, rows: tuple[str, ...], cols: tuple[str, ...],
       cells: list[list[tuple[int | str, int | str]]], claim: Claim, note: str,
       review: str = "") -> Transcription:
    return Transcription(index, sha1, concept, Game.of(cells), claim, note, rows, cols, review)


def _skip(index: int, sha1: str, concept: str, reason: str) -> Transcription:
    return Transcription(index, sha1, concept, None, None, reason)


# ---------------------------------------------------------------- shared games

_SD, _ID, _WD = "Strict Dominance", "Iterated Dominance", "Weak Dominance"
_PNE, _MNE, _PO = "Pure Nash Equilibrium", "Mixed Strategy Nash Equilibrium", "Pareto Optimality"
_BR, _ZS, _SYM = "Best Response", "Zero-Sum Game", "Symmetric Game"

_CAFE = ("Harvard Sq", "Central Sq")
_CROWD = ("short wait at Central", "long wait at Central")
_CAFE_NOTE = ("waits as negative minutes; the other diners as player 2 with zero payoffs and two "
              "strategies giving the shortest and longest Central wait (values in between change "
              "no comparison)")
_BUILDING = ("building 45", "building 52")
_RPS = ("rock", "paper", "scissors")
_AB = ("A", "B")
_ADS = ("advertise", "don't")
_ADS_NOTE = "payoffs are profit (sales minus advertising cost) in $ million"


def _rps(rock_vs_scissors: int, both_rock: int) -> list[list[tuple[int | str, int | str]]]:
    """Modified rock-paper-scissors (rows/cols rock, paper, scissors)."""
    r = rock_vs_scissors
    return [[(both_rock, both_rock), (3, 2), (r, 0)],
            [(2, 3), (1, 1), (1, 0)],
            [(0, r), (0, 1), (0, 0)]]


def _rps_zero_scissors(both_rock: int) -> list[list[tuple[int | str, int | str]]]:
    """Rock-paper-scissors variant where any scissors gives both 0."""
    return [[(both_rock, both_rock), (3, 2), (0, 0)],
            [(2, 3), (1, 1), (0, 0)],
            [(0, 0), (0, 0), (0, 0)]]


def _computer(bb: tuple[int, int], aa: tuple[int, int] = (4, 7)) -> list[
        list[tuple[int | str, int | str]]]:
    return [[aa, (0, 3)], [(2, 2), bb]]


def _ads(my_cost: int, their_cost: int, both: int, alone: int, neither: int) -> list[
        list[tuple[int | str, int | str]]]:
    """Advertising duopoly: sales when both/one alone/neither advertise, minus each one's cost."""
    return [[(both - my_cost, both - their_cost), (alone - my_cost, 0)],
            [(0, alone - their_cost), (neither, neither)]]


_BOS = [[(2, 1), (0, 0)], [(0, 0), (1, 2)]]  # Bob (rows) and Sally: CS, econ
_PAPER = ("CS audience", "econ audience")
_DATE = [[(2, 2), (-10, -10)], [(-10, -10), (5, 5)]]
_DRESS = ("dress up", "dress down")
_SNACK = [[(-98, 102), (2, -2)], [(-2, 2), (-102, 98)]]  # Steven (rows), Bob: Bakey, Life Alive
_PLACES = ("Bakey", "Life Alive")
_PHD = [[(0, -100), (0, 100)], [(100, 100), (100, -100)]]  # Max (rows), Anna: Harvard, MIT
_SCHOOLS = ("Harvard", "MIT")
_EXAM = [[(1, 1), (1, 0)], [(0, 1), (1, 0)]]  # Alex (rows), Laura: study, don't
_STUDY = ("study", "don't study")
_EXAM_NOTE = ("pass line = mean raw score - 5: both study 95/95 (line 90), one studies 95/50 "
              "(line 67.5), neither 50/50 (line 45)")
_WEEKEND = [[(-1, -1), (-10, 0)], [(0, -10), (-5, -5)]]

# ---------------------------------------------------------------- the 90 items

TRANSCRIPTIONS: tuple[Transcription, ...] = (
    # Strict dominance: the asker (player 1) has a strictly dominant strategy.
    _t(0, "c27f1d92f8", _SD, _CAFE, _CROWD, [[(0, 0), (0, 0)], [(-5, 0), (-10, 0)]],
       StrictlyDominant(1, 0), _CAFE_NOTE),
    _t(1, "33aecd4923", _SD, _CAFE, _CROWD, [[(0, 0), (0, 0)], [(0, 0), (-10, 0)]],
       StrictlyDominant(1), _CAFE_NOTE),
    _t(2, "0e4e42dced", _SD, _BUILDING, _BUILDING,
       [[(1, 1), (0, 0)], [(2, 1), (3, 0)]], StrictlyDominant(1, 1),
       "my ranking 52 with him > 52 alone > 45 with him > 45 alone as 3 > 2 > 1 > 0; the brother "
       "gets 1 in building 45 and 0 in 52"),
    _t(3, "1197717ef1", _SD, _BUILDING, _BUILDING,
       [[(1, 1), (0, 0)], [(0, 1), (1, 0)]], StrictlyDominant(1),
       "I get 1 when we meet, else 0; the brother gets 1 in building 45 and 0 in 52"),
    _t(4, "e65d94325a", _SD, _RPS, _RPS, _rps(10, 4), StrictlyDominant(1, 0),
       "points as payoffs; Eric as player 2"),
    _t(5, "141ed87575", _SD, _RPS, _RPS, _rps(-10, 4), StrictlyDominant(1),
       "points as payoffs; Eric as player 2"),
    _t(6, "c7ed7aa96a", _SD, _AB, _AB, _computer((-1, 1)), StrictlyDominant(1, 0),
       "the computer as player 2"),
    _t(7, "a34ee7e9c4", _SD, _AB, _AB, _computer((0, 1)), StrictlyDominant(1),
       "the computer as player 2 (its A is strictly dominant, but the item asks about mine)"),
    _t(8, "be01be6c64", _SD, _ADS, _ADS, _ads(10, 10, 25, 50, 25), StrictlyDominant(1, 0),
       _ADS_NOTE),
    _t(9, "6e3884b2bc", _SD, _ADS, _ADS, _ads(25, 25, 25, 50, 25), StrictlyDominant(1),
       _ADS_NOTE),
    # Iterated dominance: IESDS leaves a single cell.
    _t(10, "ad44976d8e", _ID, _CAFE, ("all 200 at Life Alive", "all 200 elsewhere"),
       [[(-5, 1), (-5, 0)], [(-10, 1), (0, 0)]], SolvedByIESDS((0, 0)),
       "the 200 identical customers as one player 2 choosing where all of them go (they "
       "strictly prefer Life Alive: 1 vs 0); my wait x/20 is 10 or 0 minutes"),
    _t(11, "20ae7f494f", _ID, _CAFE, ("all 200 at Life Alive", "all 200 elsewhere"),
       [[(-5, 0), (-5, 0)], [(-10, 0), (0, 0)]], SolvedByIESDS(),
       "the 200 customers as one player 2 with zero payoffs (their preferences are not given); "
       "my Central wait 10 or 0 minutes"),
    _t(12, "8eb907574e", _ID, _BUILDING, _BUILDING,
       [[(1, 1), (0, 0)], [(0, 1), (1, 0)]], SolvedByIESDS((0, 0)),
       "I get 1 when we meet, else 0; the brother gets 1 in building 45 and 0 in 52"),
    _t(13, "80a3ef851b", _ID, _BUILDING, _BUILDING,
       [[(1, 0), (0, 0)], [(0, 0), (1, 0)]], SolvedByIESDS(),
       "I get 1 when we meet, else 0; the indifferent brother gets 0 everywhere"),
    _t(14, "141ed87575", _ID, _RPS, _RPS, _rps(-10, 4), SolvedByIESDS((0, 0)),
       "points as payoffs; Eric as player 2 (scissors goes first, then paper)"),
    _t(15, "0c0f5b0aa9", _ID, _RPS, _RPS, _rps(-10, 1), SolvedByIESDS(),
       "points as payoffs; Eric as player 2"),
    _t(16, "1b50c2a70c", _ID, _AB, _AB, _computer((1, 1)), SolvedByIESDS((0, 0)),
       "the computer as player 2"),
    _t(17, "53049ed893", _ID, _AB, _AB, _computer((1, 1), aa=(4, 0)), SolvedByIESDS(),
       "the computer as player 2"),
    _t(18, "19dcff1c08", _ID, _ADS, _ADS, _ads(35, 60, 30, 50, 10), SolvedByIESDS((0, 1)),
       _ADS_NOTE),
    _t(19, "d3197fea6a", _ID, _ADS, _ADS, _ads(35, 35, 30, 50, 10), SolvedByIESDS(),
       _ADS_NOTE),
    # Weak dominance: the asker has a weakly dominant strategy.
    _t(20, "43dec14cbf", _WD, _CAFE, _CROWD, [[(-5, 0), (-5, 0)], [(-5, 0), (-10, 0)]],
       WeaklyDominant(1, 0), _CAFE_NOTE),
    _t(21, "e42d153418", _WD, _CAFE, _CROWD, [[(-5, 0), (-5, 0)], [(-3, 0), (-10, 0)]],
       WeaklyDominant(1), _CAFE_NOTE),
    _t(22, "ed84ddc31c", _WD, _BUILDING, _BUILDING,
       [[(1, 0), (0, 0)], [(1, 0), (2, 0)]], WeaklyDominant(1, 1),
       "my ranking 52 with him > 52 alone = 45 with him > 45 alone as 2 > 1 = 1 > 0; the "
       "brother's preferences are not given (zero payoffs)"),
    _t(23, "71bae5c9ce", _WD, _BUILDING, _BUILDING,
       [[(1, 0), (0, 0)], [(0, 0), (1, 0)]], WeaklyDominant(1),
       "I get 1 when we meet, else 0; the brother's preferences are not given (zero payoffs)"),
    _t(24, "99a1f41a20", _WD, _RPS, _RPS, _rps_zero_scissors(4), WeaklyDominant(1, 0),
       "points as payoffs; Eric as player 2"),
    _t(25, "a6f0bef1c1", _WD, _RPS, _RPS, _rps_zero_scissors(1), WeaklyDominant(1),
       "points as payoffs; Eric as player 2"),
    _t(26, "a34ee7e9c4", _WD, _AB, _AB, _computer((0, 1)), WeaklyDominant(1, 0),
       "the computer as player 2"),
    _t(27, "1b50c2a70c", _WD, _AB, _AB, _computer((1, 1)), WeaklyDominant(1),
       "the computer as player 2 (its A is strictly, hence weakly, dominant, but the item asks "
       "about mine)"),
    _t(28, "af2b51e0c2", _WD, _ADS, _ADS, _ads(30, 30, 30, 50, 10), WeaklyDominant(1, 0),
       _ADS_NOTE),
    _t(29, "530a18d2dd", _WD, _ADS, _ADS, _ads(35, 35, 30, 50, 10), WeaklyDominant(1),
       _ADS_NOTE),
    # Pure Nash equilibrium: the named profile is one (or, unnamed, the game has one).
    _t(30, "53c356c9fe", _PNE, ("fetch", "stay"), ("chase", "rest"),
       [[(0, 0), (0, 0)], [(0, 0), (0, 0)]], PureNash((0, 0)), "all payoffs 0 as stated"),
    _t(31, "782b919e85", _PNE, ("high dive", "do nothing"), ("safety net", "stay idle"),
       [[(0, 0), (0, 0)], [(1, 0), (0, 0)]], PureNash((1, 0)), "points as payoffs",
       review="label wrong (or a strict-equilibrium reading): at (do nothing, safety net) the "
              "acrobat's 1 beats 0 and the clown gets 0 either way, so neither gains by "
              "deviating; item 30 labels an all-indifferent profile an equilibrium, so the "
              "labels do not use strict equilibrium"),
    _t(32, "234ed031b4", _PNE, ("apologize", "stay silent"), ("forgive", "stay angry"),
       [[(1, 1), (-1, 1)], [(-1, 1), (1, -1)]], PureNash((0, 0)), "points as payoffs"),
    _t(33, "1f898ff0ff", _PNE, ("hunt together", "hunt alone"), ("assist", "hide"),
       [[(1, -1), (-1, 1)], [(-1, 1), (1, -1)]], PureNash((0, 0)), "points as payoffs"),
    _t(34, "43d3fed10e", _PNE, ("park", "home"), ("park", "home"),
       [[(-1, -1), (-10, 0)], [(0, -10), (-5, -5)]], PureNash((1, 1)), "points as payoffs"),
    _t(35, "17225fff18", _PNE, ("theory", "applied"), ("theory", "applied"),
       [[(-1, -1), (-10, 0)], [(0, -10), (-5, -5)]], PureNash((0, 0)),
       "points as payoffs; advisor as player 1"),
    _t(36, "3b3fbe3de6", _PNE, ("commercial", "personal"), ("commercial", "personal"),
       [[(-1, -1), (-10, 0)], [(0, -10), (-5, -5)]], PureNash((1, 1)),
       "points as payoffs; artist as player 1"),
    _t(37, "daf706226f", _PNE, ("serious", "comedy"), ("serious", "comedy"),
       [[(-1, -1), (-10, 0)], [(0, -10), (-5, -5)]], PureNash((0, 0)),
       "points as payoffs; king as player 1"),
    _t(38, "68e9019251", _PNE, ("hunt", "rest"), ("hunt", "rest"),
       [[(10, 10), (10, -10)], [(-10, 10), (0, 0)]], PureNash(None),
       "owl as player 1; no profile is named, so the claim is that a pure equilibrium exists"),
    _t(39, "3b88e9e12a", _PNE, ("hunt", "rest"), ("hunt", "rest"),
       [[(10, 10), (10, -10)], [(-10, 10), (-10, 10)]], PureNash(None),
       "owl as player 1; no profile is named, so the claim is that a pure equilibrium exists",
       review="label wrong: (hunt, hunt) is still an equilibrium (10 each; the owl's hunt is "
              "strictly dominant, the bat gets 10 vs -10 from hunting); the change from item 38 "
              "(both resting gives -10/+10) removes no equilibrium, so no reading of 'a pure "
              "Nash equilibrium' makes this a non-instance"),
    # Mixed-strategy Nash equilibrium: the named (mixed) profile is one.
    _t(40, "41ab02f770", _MNE, ("urban", "dreamy"), ("lush", "rustic"),
       [[(0, 0), (0, 0)], [(0, 0), (0, 0)]], MixedNash(("1/2", "1/2"), ("1/2", "1/2")),
       "no payoffs at all: all 0"),
    _t(41, "11c8a4c506", _MNE, ("utility gear", "durable gear"), ("lightweight", "rugged"),
       [[(1, 0), (0, 0)], [(0, 0), (0, 0)]], MixedNash(("1/2", "1/2"), ("1/2", "1/2")),
       "Joe as player 1"),
    _t(42, "ebee6c84d2", _MNE, ("uptempo", "downbeat"), ("lyrical", "rhythmic"),
       [[(1, -1), (-1, 1)], [(-1, 1), (1, -1)]], MixedNash(("1/2", "1/2"), ("1/2", "1/2")),
       "Martha as player 1"),
    _t(43, "91c43692d8", _MNE, ("uptempo", "downbeat"), ("lyrical", "rhythmic"),
       [[(1, -1), (-1, 1)], [(-1, 1), (1, -1)]], MixedNash(("1/3", "2/3"), ("1/3", "2/3")),
       "Martha as player 1"),
    _t(44, "5362ca44b6", _MNE, ("pepperoni", "mushrooms", "pineapple"),
       ("pepperoni", "mushrooms", "pineapple"),
       [[(0, 0), (-1, 1), (1, -1)], [(1, -1), (0, 0), (-1, 1)], [(-1, 1), (1, -1), (0, 0)]],
       MixedNash(("1/3", "1/3", "1/3"), ("1/3", "1/3", "1/3")),
       "Fred as player 1; the item says 'pure strategy' but names a mixed profile"),
    _t(45, "91609b5f41", _MNE, ("pepperoni", "mushrooms", "pineapple"),
       ("pepperoni", "mushrooms", "pineapple"),
       [[(0, 0), (-1, 1), (1, -1)], [(1, -1), (0, 0), (-1, 1)], [(-1, 1), (1, -1), (0, 0)]],
       MixedNash(("1/3", "1/3", "1/3"), ("1/2", "1/2", "0")),
       "Fred as player 1; Neville's 1/2 pepperoni, 1/2 mushrooms, never pineapple"),
    _t(46, "2fc6f8508f", _MNE, ("chips", "popcorn"), ("chocolate", "candy"),
       [[(-1, -1), (-10, -1)], [(0, -10), (-5, -10)]], MixedNash(("0", "1"), ("1/3", "2/3")),
       "Kevin as player 1; the item's '1/3 chocolate and 1/3 candy' is no distribution, read "
       "as 1/3 and 2/3 (Claire is indifferent against popcorn, so any mix gives the same "
       "verdict)"),
    _t(47, "f39340d5ee", _MNE, ("hike", "movie night"), ("beach", "board games"), _WEEKEND,
       MixedNash(("0", "1"), ("1/3", "2/3")), "Manu as player 1"),
    _t(48, "d6369dbefe", _MNE, ("hike", "movie night"), ("beach", "board games"), _WEEKEND,
       MixedNash(("0", "1"), ("0", "1")), "Manu as player 1; a pure profile as a degenerate mix"),
    _t(49, "84a0ef0942", _MNE, ("not hike", "not movie night"), ("not beach", "not board games"),
       _WEEKEND, MixedNash(("0", "1"), ("1/3", "2/3")),
       "item 47 with every action renamed 'not ...'; same payoffs"),
    # Pareto optimality: the chosen outcome is Pareto optimal.
    _skip(50, "f38b3450d0", _PO,
          "dividing 3 apples and 3 bananas: an allocation problem (every split, fruit may be "
          "left over) with only ordinal preferences, not a normal-form game"),
    _skip(51, "2895d4490d", _PO,
          "dividing 3 apples and 3 bananas: an allocation problem (every split, fruit may be "
          "left over) with only ordinal preferences, not a normal-form game"),
    _t(52, "f13a944910", _PO, ("large venues", "small venues"), ("-",),
       [[(1, 0)], [(0, 1)]], ParetoOptimal((0, 0)),
       "no strategic choice: the two possible outcomes as the rows of a one-column game; the "
       "singer as player 1, the rest of the band (alike) as player 2"),
    _t(53, "07139e4c03", _PO, ("large venues", "small venues"), ("-",),
       [[(0, 0)], [(0, 1)]], ParetoOptimal((0, 0)),
       "no strategic choice: the two possible outcomes as the rows of a one-column game; the "
       "indifferent singer as player 1, the rest of the band as player 2"),
    _t(54, "c751ff5381", _PO, ("tax the rich", "tax the poor", "no tax"), ("-",),
       [[(2, 1)], [(1, 2)], [(0, 0)]], ParetoOptimal((1, 0)),
       "no strategic choice: the three policies as the rows of a one-column game; the "
       "two-thirds group as player 1, the one-third group as player 2"),
    _t(55, "5e71420de4", _PO, ("tax the rich", "tax the poor", "no tax"), ("-",),
       [[(2, 1)], [(1, 2)], [(0, 0)]], ParetoOptimal((2, 0)),
       "no strategic choice: the three policies as the rows of a one-column game; the "
       "two-thirds group as player 1, the one-third group as player 2"),
    _t(56, "35a3770603", _PO, ("put $1 in", "keep it"), ("all put $1 in", "all keep it"),
       [[(2, 2), (2, 1)], [(1, 2), (1, 1)]], ParetoOptimal((0, 0)),
       "ten people: one of them as player 1, the other nine (alike) as player 2 with each one's "
       "payoff; payoffs are final dollars"),
    _t(57, "c0eef7864f", _PO, ("put $1 in", "keep it"), ("all put $1 in", "all keep it"),
       [[(2, 2), ("1/5", "6/5")], [("14/5", "9/5"), (1, 1)]], ParetoOptimal((1, 1)),
       "ten people: one of them as player 1, the other nine (alike) as player 2 with each one's "
       "payoff; the doubled pot split ten ways; payoffs are final dollars"),
    _t(58, "875dde0a73", _PO, ("fancy", "casual"), ("-",),
       [[(1, 0)], [(0, 2)]], ParetoOptimal((0, 0)),
       "no strategic choice: the two outcomes as the rows of a one-column game; C as player 1"),
    _t(59, "5e9f8a6b1b", _PO, ("fancy", "casual"), ("-",),
       [[(0, 0)], [(0, 2)]], ParetoOptimal((0, 0)),
       "no strategic choice: the two outcomes as the rows of a one-column game; C as player 1"),
    # Best response: the named player's action is a best response to the other's.
    _t(60, "e8d7cc9788", _BR, _PAPER, _PAPER, _BOS, BestResponse(1, 1, 1), "Bob as player 1"),
    _t(61, "7de27e0511", _BR, _PAPER, _PAPER, _BOS, BestResponse(2, 1, 1), "Bob as player 1",
       review="label wrong: against Bob's econ intro Sally gets 2 from econ and 0 from CS, so "
              "her econ conclusion is the (unique) best response; the item is the mirror of "
              "item 60, which is labelled yes"),
    _t(62, "252dc05444", _BR, _DRESS, _DRESS, _DATE, BestResponse(1, 1, 1), "John as player 1"),
    _t(63, "fe4951e0a1", _BR, _DRESS, _DRESS, _DATE, BestResponse(1, 1, 0), "John as player 1"),
    _t(64, "2bf7912940", _BR, _PLACES, _PLACES, _SNACK, BestResponse(1, 1, 0),
       "Steven as player 1; base 2 at Bakey, -2 at Life Alive, plus -100 to Steven and +100 to "
       "Bob when they meet"),
    _t(65, "670f635847", _BR, _PLACES, _PLACES, _SNACK, BestResponse(1, 0, 0),
       "Steven as player 1; base 2 at Bakey, -2 at Life Alive, plus -100 to Steven and +100 to "
       "Bob when they meet"),
    _t(66, "70f54e7cd7", _BR, _SCHOOLS, _SCHOOLS, _PHD, BestResponse(1, 1, 1),
       "Max as player 1"),
    _t(67, "c6e8d57511", _BR, _SCHOOLS, _SCHOOLS, _PHD, BestResponse(2, 1, 1),
       "Max as player 1"),
    _t(68, "2222a6f74f", _BR, _STUDY, _STUDY, _EXAM, BestResponse(1, 1, 1),
       "Alex as player 1; " + _EXAM_NOTE),
    _t(69, "e035df65e3", _BR, _STUDY, _STUDY, _EXAM, BestResponse(2, 1, 1),
       "Alex as player 1; " + _EXAM_NOTE),
    # Zero-sum: the game is zero-sum.
    _t(70, "a383d1e746", _ZS, ("shoot left", "shoot right"), ("block up", "block down"),
       [[(0, 0), (0, 0)], [(0, 0), (0, 0)]], ZeroSum(), "no one scores anywhere: all 0"),
    _t(71, "54acc43a4f", _ZS, ("piano", "guitar"), ("melody", "rhythm"),
       [[(1, 1), (1, 1)], [(1, 1), (1, 1)]], ZeroSum(), "a point each everywhere"),
    _t(72, "9cb1242956", _ZS, ("bark", "sit quietly"), ("jump up", "roll over"),
       [[(1, -1), (-1, 1)], [(-1, 1), (1, -1)]], ZeroSum(), "Max as player 1"),
    _t(73, "5fc06ff610", _ZS, ("park", "stay home"), ("movie", "cookies"),
       [[(1, 1), (-1, -1)], [(-1, -1), (1, 1)]], ZeroSum(), "Mom as player 1"),
    _t(74, "104f83df00", _ZS, ("research updates", "deadlines"), ("career advice", "coding"),
       [[(2, -2), (1, -1)], [(1, -1), (0, 0)]], ZeroSum(), "advisor as player 1"),
    _t(75, "6e54c1af0f", _ZS, ("fridge", "pantry"), ("cheese", "crackers"),
       [[(2, -2), (2, -1)], [(1, -2), (0, 0)]], ZeroSum(), "cat as player 1"),
    _t(76, "59ea102496", _ZS, ("magic trick", "joke"), ("sing", "draw"),
       [[(2, -2), (-1, 1)], [(-1, 1), (3, -3)]], ZeroSum(), "Emma as player 1"),
    _t(77, "d904607972", _ZS, ("Expelliarmus", "Stupefy"), ("Protego", "Petrificus Totalus"),
       [[(2, -3), (-1, 1)], [(-1, 1), (3, -3)]], ZeroSum(), "Harry as player 1"),
    _t(78, "ed17251c54", _ZS, ("claw", "bite"), ("juggle", "play"),
       [[(3, -3), (2, -2)], [(1, -1), (1, -1)]], ZeroSum(), "Tiger as player 1"),
    _t(79, "0a73a4b80a", _ZS, ("lecture", "advise"), ("study", "listen"),
       [[(2, -2), (2, -2)], [(4, -4), (-1, -1)]], ZeroSum(), "professor as player 1"),
    # Symmetric: the game is symmetric.
    _t(80, "2c4d987f6c", _SYM, _PAPER, _PAPER, _BOS, Symmetric(), "Bob as player 1"),
    _t(81, "927193e853", _SYM, _PAPER, _PAPER, [[(2, 2), (0, 0)], [(0, 0), (1, 1)]],
       Symmetric(), "Bob as player 1"),
    _t(82, "5c386a012c", _SYM, _DRESS, _DRESS, _DATE, Symmetric(), "John as player 1"),
    _t(83, "b0b8a1d515", _SYM, _DRESS, _DRESS, [[(2, -3), (-10, -10)], [(-10, -10), (5, 5)]],
       Symmetric(), "John as player 1"),
    _t(84, "b8cedb54cb", _SYM, _PLACES, _PLACES, _SNACK, Symmetric(),
       "Steven as player 1; base 2 at Bakey, -2 at Life Alive, plus -100 to Steven and +100 to "
       "Bob when they meet"),
    _t(85, "d0903b6414", _SYM, _PLACES, _PLACES, [[(102, 102), (2, -2)], [(-2, 2), (98, 98)]],
       Symmetric(), "Steven as player 1; base 2 at Bakey, -2 at Life Alive, +100 to each when "
       "they meet"),
    _t(86, "cf1e5e4c30", _SYM, _SCHOOLS, _SCHOOLS, _PHD, Symmetric(), "Max as player 1"),
    _t(87, "f6808bff59", _SYM, _SCHOOLS, _SCHOOLS, [[(0, 0), (0, 100)], [(100, 0), (100, 100)]],
       Symmetric(), "Max as player 1; Anna's dislike of Max carries no payoff in this item"),
    _t(88, "f1b1d02e4b", _SYM, _STUDY, _STUDY, _EXAM, Symmetric(),
       "Alex as player 1; " + _EXAM_NOTE),
    _t(89, "9fc1255157", _SYM, _STUDY, _STUDY, [[(1, 1), (1, 0)], [(0, 1), (1, 1)]],
       Symmetric(), "Alex as player 1; Laura also gets 1 for passing; " + _EXAM_NOTE),
)


def fraction_mix(values: tuple[str, ...]) -> tuple[Fraction, ...]:
    """A claim's probabilities as Fractions."""
    return tuple(Fraction(v) for v in values)
