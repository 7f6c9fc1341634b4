"""The Three Thirteen codec (cardarena.research.codec_three_thirteen): its action numbering (R5
draw and discard, R6 going out, one id per discard), the bound of 108 ids on the largest case (8
seats, 4 decks, round 11: 14 cards in hand) and its tensor at the documented slots (R1 copies
of several decks, R2 wild cards, R5 the card taken, R6 the table after going out); the
documented table agrees with layout() at every player count.
"""
from __future__ import annotations

import pytest

from cardarena.research import codec_three_thirteen as module
from cardarena.research.spaces import codec
from cardarena.server.games import new_game
from cardarena.server.games.cards import CARD_TEXT, parse_cards

from codeckit import documented_layout, part, slot

CODE = module.CODE


def hand_at(players: int, round: int, hand: str, seat: int = 0, phase: str = "discard",
            pile: str = "K♥"):
    """A fresh game in ``round`` with ``seat`` to act in ``phase`` holding ``hand`` (text); the
    discard pile is ``pile`` (its top last); the other hands are as dealt."""
    g = new_game("three-thirteen", players, 0)
    g.round, g.wild = round, round + 2
    g.hands[seat] = sorted(parse_cards(hand))
    g.pile = parse_cards(pile)
    g.pile_text = [CARD_TEXT[c] for c in g.pile]
    g.discards, g.discarded_by = list(g.pile_text), [-1] * len(g.pile)
    g.turn, g.phase, g._legal = seat, phase, None
    return g


def legal_json(g) -> list[dict]:
    return [g.action_json(a) for a in g.legal_actions(g.turn)]


def test_ids_draw_discard_go_out_by_card():
    """R5, R6: draws 0 and 1, "discard X" 2 + code, "go out discarding X" 55 + code; the joker
    is code 52."""
    c = codec("three-thirteen", 2)
    assert c.action_id({"draw": "stock"}) == 0 and c.action_id({"draw": "discard_pile"}) == 1
    assert c.action_id({"discard": "A♣"}) == 2 and c.action_id({"discard": "K♠"}) == 53
    assert c.action_id({"discard": "Jo"}) == 54 and c.action_id({"go_out": "A♣"}) == 55
    assert c.action_id({"go_out": "Jo"}) == 107
    assert all(c.action_id(c.action_json_of(i)) == i for i in range(108))
    with pytest.raises(ValueError):
        c.action_json_of(108)


def test_text_example_round_3_two_sets_of_three_cannot_go_out():
    """R6, the rules text's example: in round 3 (5 cards dealt, 5s wild) a seat that draws into
    two sets of three has no go-out id in its mask (one card must still be discarded); five
    cards in one set with a sixth to discard has exactly one: going out discarding it."""
    c = codec("three-thirteen", 2)
    g = hand_at(2, 3, "7♣ 7♦ 7♥ 9♠ 9♦ 9♥")
    assert not c.mask(legal_json(g))[module.GO_OUT:].any()
    g = hand_at(2, 3, "7♣ 7♦ 7♥ 7♠ 5♣ K♠")
    ids = c.ids(legal_json(g))
    assert [i for i in ids if i >= module.GO_OUT] == [module.GO_OUT + CODE["K♠"]]


def test_108_ids_bound_the_largest_hand():
    """R1, R2, R6, R7: 8 seats (4 decks), round 11 (K wild), 13 cards dealt plus the draw: 14
    cards. A♣ … Q♣ K♥ Jo goes out whatever it discards (the wilds fill the run), so all 14
    discards and 14 go-outs are legal: 28 distinct ids, all below 108. The hand's copies are
    scaled by the copies in the game (4 of a card, 8 jokers)."""
    c = codec("three-thirteen", 8)
    assert c.num_actions == 108
    g = hand_at(8, 11, "A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♥ Jo")
    ids = c.ids(legal_json(g))
    assert len(ids) == len(set(ids)) == 28 and max(ids) < 108
    assert c.mask(legal_json(g)).sum() == 28
    g = hand_at(8, 11, "A♣ A♣ A♣ A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ Jo Jo")
    obs = c.observe(g.view(0))
    assert obs[slot(c, "hand", CODE["A♣"])] == 1.0 and obs[slot(c, "hand", CODE["2♣"])] == 0.25
    assert obs[slot(c, "hand", 52)] == 0.25  # 2 of the 8 jokers
    assert obs[slot(c, "hand_size", 0)] == 1.0


def test_taken_card_wild_cards_and_relative_seats_at_their_slots():
    """R2, R5: round 2 makes the 4s and the joker wild; seat 2 of 3 takes the 7♦ from the pile:
    it is the taken card (no discard id for it), among the seat's public taken cards, and the
    pile's top becomes the card below; seat blocks start at the observer."""
    c = codec("three-thirteen", 3)
    g = hand_at(3, 2, "2♠ 3♠ 8♥ J♣", seat=2, phase="draw", pile="Q♣ 7♦")
    g.apply({2: ("draw", "discard_pile")})
    view = g.view(2)
    obs = c.observe(view)
    on = lambda part, k=0: obs[slot(c, part, k)]  # noqa: E731
    wild = part(c, obs, "wild_cards").nonzero()[0].tolist()
    assert wild == [CODE[t] for t in ("4♣", "4♦", "4♥", "4♠", "Jo")]
    assert on("round", 1) == 1.0 and on("phase", 1) == 1.0
    assert on("taken_card", CODE["7♦"]) == 1.0 and on("taken", CODE["7♦"]) == 0.5  # 2 decks
    assert on("pile_top", CODE["Q♣"]) == 1.0 and on("pile", CODE["Q♣"]) == 0.5
    assert module.DISCARD + CODE["7♦"] not in c.ids(legal_json(g))
    assert on("turn", 0) == 1.0 and on("dealer", (view["dealer"] - 2) % 3) == 1.0
    # seat 0 sees the same card two places to its left, and no taken card of its own
    seen = c.observe(g.view(0))
    assert seen[slot(c, "taken", 2 * 53 + CODE["7♦"])] == 0.5
    assert not part(c, seen, "taken_card").any()


def test_the_table_after_going_out():
    """R6, R7: seat 0 goes out with 5♠ 6♠ 7♠, discarding K♦; seat 1 sees the run's places
    covered, the goer one seat to its left (block 1), its own last turn still to come."""
    c = codec("three-thirteen", 2)
    g = hand_at(2, 1, "5♠ 6♠ 7♠ K♦")
    g.apply({0: ("go_out", CODE["K♦"])})
    obs = c.observe(g.view(1))
    spades = part(c, obs, "table_runs")[3 * 13:]
    assert spades.tolist() == [0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    assert part(c, obs, "table").nonzero()[0].tolist() == [CODE[t] for t in ("5♠", "6♠", "7♠")]
    assert obs[slot(c, "gone_out", 1)] == 1.0 and obs[slot(c, "melded", 1)] == 1.0
    assert obs[slot(c, "last_turn", 0)] == 1.0 and obs[slot(c, "turn", 0)] == 1.0
    assert obs[slot(c, "discards", 53 + CODE["K♦"])] == 1.0


@pytest.mark.parametrize("players", range(2, 9))
def test_the_docstring_table_is_the_layout(players):
    c = codec("three-thirteen", players)
    assert documented_layout(module, N=players) == [(name, n) for name, _, n in c.layout()]
