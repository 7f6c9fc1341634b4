"""The Sixth Card codec (cardarena.research.codec_sixth_card): its action numbering (C2 the ladder,
C3 twins, C7/C9 row choices) and its tensor at the documented slots, on the rules text's worked
example; the documented table agrees with layout() at every player count.
"""
from __future__ import annotations

import numpy as np
import pytest

from cardarena.research import codec_sixth_card as module
from cardarena.research.spaces import codec
from cardarena.server.games import new_game
from cardarena.server.games.cards import parse_cards

from codeckit import documented_layout, part, slot

ANNA, BEN, CARLA, DAN = range(4)
EXAMPLE_ROWS = ["8♥", "9♠ 10♣ J♦ Q♥ Q♠", "2♣", "7♦"]


def example():
    """The rules text's example, revealed: rows ending 8♥, Q♠ (five cards), 2♣, 7♦; Anna J♠, Ben
    K♣, Carla A♥ (too low: she chooses a row), Dan 7♠; each keeps a second card."""
    g = new_game("sixth-card", 4, 0)
    g.hands = [sorted(parse_cards(h)) for h in ("J♠ 3♣", "K♣ 3♦", "A♥ 3♥", "7♠ 3♠")]
    g.rows = [parse_cards(r) for r in EXAMPLE_ROWS]
    g._legal = [None] * 4  # the cached legal lists belonged to the dealt hands
    g.apply({s: ("play", parse_cards(c)[0]) for s, c in enumerate(("J♠", "K♣", "A♥", "7♠"))})
    assert g.to_act() == (CARLA,)
    return g


def test_card_ids_are_the_ladder_and_rows_follow():
    """C2: a card's id is its place on the ladder, the rules text's number less one (A♣ = 1 …
    K♠ = 52); "7♠ is higher than 7♦ but lower than 8♣"; the four rows are ids 52–55."""
    c = codec("sixth-card", 4)
    card = lambda text: c.action_id({"play": text})  # noqa: E731
    assert card("A♣") == 0 and card("A♦") == 1 and card("K♠") == 51
    assert card("7♦") < card("7♠") < card("8♣")
    assert [c.action_id({"row": i}) for i in range(4)] == [52, 53, 54, 55]
    assert [c.action_json_of(i) for i in (0, 51, 52, 55)] == [
        {"play": "A♣"}, {"play": "K♠"}, {"row": 0}, {"row": 3}]
    assert all(c.action_id(c.action_json_of(i)) == i for i in range(c.num_actions))
    with pytest.raises(ValueError):
        c.action_json_of(56)


@pytest.mark.parametrize("players,options", [(2, {}), (4, {"exact_cards": True}), (4, {"decks": 2}),
                                             (10, {}), (10, {"decks": 2, "end_score": 1000})])
def test_56_ids_bound_every_decision(players, options):
    """C3, C13: no player count or option adds an action: 52 cards and 4 rows; the largest case
    (10 seats, two decks) stays inside them for a whole game."""
    c = codec("sixth-card", players, options)
    assert c.num_actions == 56
    g = new_game("sixth-card", players, 3, options | {"rounds": 2})
    while not g.is_over():
        for s in g.to_act():
            ids = c.ids([g.action_json(a) for a in g.legal_actions(s)])
            assert ids and max(ids) < 56
        g.apply({s: g.default_action(s) for s in g.to_act()})


def test_twins_of_two_decks_are_one_id_and_count_as_copies():
    """C3: both 9♥ of two decks are one choice, the card's id; the hand slot counts the copies
    (two of the two there are: 1.0, one: 0.5)."""
    g = new_game("sixth-card", 5, 0)
    nine = parse_cards("9♥")[0]
    g.hands[0] = sorted(parse_cards("9♥ 9♥ A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣"))
    g._legal = [None] * 5
    c = codec("sixth-card", 5)
    ids = c.ids([g.action_json(a) for a in g.legal_actions(0)])
    assert ids.count(c.action_id({"play": "9♥"})) == 1
    obs = c.observe(g.view(0))
    assert obs[slot(c, "hand", nine)] == 1.0
    g.hands[0].remove(nine)
    assert c.observe(g.view(0))[slot(c, "hand", nine)] == 0.5


def test_worked_example_at_the_documented_slots():
    """C6, C8, C9: Carla's view of the text's example, at her too-low choice: her hand, the
    rows (row 2 full: 5 cards, 13 points), this turn's cards by relative seat (block 0 is
    Carla, then Dan, Anna, Ben to her left), the waiting A♥, and that she is the chooser."""
    g = example()
    c = codec("sixth-card", 4)
    view = g.view(CARLA)
    obs = c.observe(view)
    code = module.CODE
    on = lambda part, k=0: obs[slot(c, part, k)]  # noqa: E731
    assert on("phase", 1) == 1.0 and on("phase", 0) == on("phase", 2) == 0.0
    assert [k for k in range(52) if on("hand", k)] == [code["3♥"]]
    assert [on("row_length", i) for i in range(4)] == [0.2, 1.0, 0.2, 0.2]
    assert on("row_points", 1) == pytest.approx(13 / 25)
    assert on("row_end", 52 + code["Q♠"]) == 1.0 and on("row_end", 3 * 52 + code["7♦"]) == 1.0
    assert sum(on("row_cards", 52 + code[t]) for t in EXAMPLE_ROWS[1].split()) == 5.0
    # relative seats: Carla (seat 2) is block 0, Dan 1, Anna 2, Ben 3
    for k, card in enumerate(["A♥", "7♠", "J♠", "K♣"]):
        assert on("revealed", k * 52 + code[card]) == 1.0
        assert on("played", k * 52 + code[card]) == 1.0
    assert sum(on("to_place", code[t]) for t in ("A♥", "7♠", "J♠", "K♣")) == 4.0
    assert on("choice_card", code["A♥"]) == 1.0
    assert on("chooser", 0) == 1.0 and on("choice_reason", 0) == 1.0
    assert on("dealer", (0 - CARLA) % 4) == 1.0
    legal = [g.action_json(a) for a in g.legal_actions(CARLA)]
    assert c.mask(legal).tolist() == [0] * 52 + [1, 1, 1, 1]
    # Anna sees the same table from her seat: Carla chooses, two places to her left
    anna = c.observe(g.view(ANNA))
    assert anna[slot(c, "chooser", 2)] == 1.0 and anna[slot(c, "chooser", 0)] == 0.0
    assert anna[slot(c, "revealed", code["J♠"])] == 1.0


def test_penalty_piles_and_points_after_the_example():
    """C8, C9, C10: after Carla takes row 3, her 2♣ and Ben's five cards are in their piles
    (public), the points scaled by the end score (66)."""
    g = example()
    g.apply({CARLA: ("row", 2)})
    c = codec("sixth-card", 4)
    obs = c.observe(g.view(ANNA))
    code = module.CODE
    assert obs[slot(c, "pile", 2 * 52 + code["2♣"])] == 1.0          # Carla: 2 left of Anna
    assert sum(obs[slot(c, "pile", 1 * 52 + code[t])] for t in EXAMPLE_ROWS[1].split()) == 5.0
    assert obs[slot(c, "points", 1)] == pytest.approx(13 / 66)
    assert obs[slot(c, "totals", 2)] == pytest.approx(1 / 66)
    assert obs[slot(c, "phase", 0)] == 1.0
    for name in ("revealed", "to_place", "choice_card", "chooser", "choice_reason"):
        assert not part(c, obs, name).any(), f"{name} is set outside a row choice"


@pytest.mark.parametrize("players", range(2, 11))
def test_the_docstring_table_is_the_layout(players):
    c = codec("sixth-card", players)
    assert documented_layout(module, N=players) == [(name, n) for name, _, n in c.layout()]
    assert np.all(c.observe(new_game("sixth-card", players, 1).view(0)) <= 1.0)
