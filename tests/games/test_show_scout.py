"""SCOUT (``scout``, RULINGS O1–O7) and Scouting (``scouting``, RULINGS S1–S8) on their shared core.

Every ruling is named in a test docstring, and the worked examples of the texts are replayed:
2–3–4 beats 9–9; a pair of 2s beats 8–9; 5–6–7 beats 4–5–6; a pair of 5s does not beat a pair of
5s; the 3–8–4–5 hand; the scoring example (4 + 2 − 3 = 3, or 6 for the exempt owner). Positions
are built with :func:`position`, which sets a fresh game's state fields directly.
"""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from cardarena.client.strategies import scout as strategy
from cardarena.server.games import IllegalAction, PlayerCountError, new_game
from cardarena.server.games import scout as scout_mod
from cardarena.server.games.cards import parse_cards
from cardarena.server.games.show_scout import (
    FLIP, PHASE_FLIP, PHASE_PLAY, SCOUT, SCOUT_AND_SHOW, SHOW, is_show, show_key, shows_in,
    best_keys_after_insert,
)
from cardarena.server.match import RandomBot, StrategyBot, play_match

GAMES = ("scouting", "scout")


# ----- helpers ------------------------------------------------------------------------------------
def sc(text: str) -> list[int]:
    """Scouting cards: "9S 10H QC" → card codes."""
    return parse_cards(text)


def oc(text: str) -> list[int]:
    """SCOUT cards: "3/7 8/2" → codes, the active value first."""
    out = []
    for t in text.split():
        a, b = t.split("/")
        out.append(scout_mod.card(int(a), int(b)))
    return out


def position(game_id: str, hands, table=(), owner=-1, turn=0, players=None, **fields):
    """A game of ``game_id`` in play with the given hands (lists of card codes), active show and
    owner, seat ``turn`` to act; any other state field may be set by keyword (captured=[...])."""
    players = players or len(hands)
    g = new_game(game_id, players, seed=0)
    g.phase = PHASE_PLAY
    g.hands = [list(h) for h in hands]
    g.known = [[False] * len(h) for h in hands]
    g.table = list(table)
    g.table_key = show_key([g.VALUE[c] for c in table])
    g.owner = owner
    g.turn = turn
    for k, v in fields.items():
        setattr(g, k, v)
    g._legal = None
    return g


def labels(g, seat=None):
    seat = g.turn if seat is None else seat
    return [g.action_label(a) for a in g.legal_actions(seat)]


def shows(g, seat=None):
    seat = g.turn if seat is None else seat
    return [a for a in g.legal_actions(seat) if a[0] == SHOW]


def show_values(g, seat=None):
    return [[g.VALUE[c] for c in a[3]] for a in shows(g, seat)]


def act(g, action):
    assert action in g.legal_actions(g.turn), g.action_label(action)
    return g.apply({g.turn: action})


def find(g, label):
    for a in g.legal_actions(g.turn):
        if g.action_label(a) == label:
            return a
    raise AssertionError(f"no action {label!r} among {labels(g)}")


# ----- S2: what a show is -------------------------------------------------------------------------
def test_S2_a_show_is_a_set_or_a_run_in_hand_order_without_wrap():
    """S2: all equal (any number), or consecutive rising or falling as they sit (4-5-6, 6-5-4,
    never 5-4-6); no wrap (Q–A in Scouting, 10–1 in SCOUT)."""
    assert is_show([4, 5, 6]) and is_show([6, 5, 4]) and is_show([7, 7, 7, 7]) and is_show([9])
    assert not is_show([5, 4, 6]) and not is_show([4, 6]) and not is_show([12, 1])
    assert not is_show([11, 12, 1]) and not is_show([10, 1]) and not is_show([7, 7, 8])
    g = position("scouting", [sc("5S 4H 6C QD AH"), sc("2C"), sc("3C")])
    assert show_values(g) == [[5], [5, 4], [4], [6], [12], [1]]


def test_S2_the_3_8_4_5_hand_plays_3_4_5_only_after_the_8_goes():
    """S2, the texts' example: in 3–8–4–5 the run 3–4–5 is not playable (the 8 is between them);
    once the single 8 is shown, 3–4–5 sits together and is a show."""
    for gid, cards in (("scouting", sc("3S 8H 4C 5D") + sc("9S")), ("scout", oc("3/1 8/2 4/9 5/6 9/1"))):
        g = position(gid, [cards, sc("2C") if gid == "scouting" else oc("2/1"),
                           sc("2D") if gid == "scouting" else oc("2/3")])
        assert [3, 4, 5] not in show_values(g)
        assert [4, 5] in show_values(g)
        act(g, find(g, "show 8 from position 1"))
        g.turn = 0  # back to the same seat with the 8 gone (the others' turns are not the point)
        g.table, g.table_key, g._legal = [], 0, None
        assert [3, 4, 5] in show_values(g)
        assert "show 3-4-5 from position 0" in labels(g)


def test_S2_O3_scout_lists_no_10_1_wrap_among_its_shows():
    """S2 / O3 (the text: "wrap a run from 10 to 1" is not allowed): in a SCOUT hand 9 10 1 2 the
    legal shows hold 9-10 and 1-2 but no 10-1, 9-10-1 or 10-1-2, and falling 2 1 10 9 no 1-10;
    a Scout & Show is not offered when only a wrap would beat what remains (10-1-2 after
    scouting a 2 from 2-3-4), and is when a true run would (3-2-1)."""
    rest = [oc("3/1"), oc("4/1"), oc("5/1")]
    g = position("scout", [oc("9/2 10/3 1/4 2/5")] + rest)
    assert show_values(g) == [[9], [9, 10], [10], [1], [1, 2], [2]]
    g = position("scout", [oc("2/5 1/4 10/3 9/2")] + rest)
    assert show_values(g) == [[2], [2, 1], [1], [10], [10, 9], [9]]
    g = position("scout", [oc("3/1"), oc("10/3 1/8")] + rest[1:], table=oc("2/5 3/6 4/7"), owner=0, turn=1)
    assert show_values(g) == [] and not [a for a in g.legal_actions(1) if a[0] == SCOUT_AND_SHOW]
    g = position("scout", [oc("3/1"), oc("3/9 1/8")] + rest[1:], table=oc("2/5 3/6 4/7"), owner=0, turn=1)
    assert "Scout & Show: scout left 2/5 to position 1" in labels(g)  # 3-2-1 is a run, beats 3-4


# ----- S3: strength -------------------------------------------------------------------------------
@pytest.mark.parametrize("gid", GAMES)
def test_S3_the_texts_strength_examples(gid):
    """S3 / O3, the text's examples: 2–3–4 beats 9–9 (more cards); a pair of 2s beats the run 8–9
    (a set beats a run of the same length); 5–6–7 beats 4–5–6 (higher lowest card); a pair of 5s
    does not beat a pair of 5s (equal does not beat); a single beats a single only if higher."""
    assert show_key([2, 3, 4]) > show_key([9, 9])
    assert show_key([2, 2]) > show_key([8, 9])
    assert show_key([5, 6, 7]) > show_key([4, 5, 6])
    assert show_key([7, 6, 5]) > show_key([6, 5, 4])
    assert not show_key([5, 5]) > show_key([5, 5])
    assert not show_key([6]) > show_key([6]) and show_key([7]) > show_key([6])
    cards = sc if gid == "scouting" else oc
    other = sc("KC") if gid == "scouting" else oc("1/2")
    if gid == "scouting":
        cases = [("2S 3H 4C", "9S 9H", [2, 3, 4]), ("2S 2H", "8S 9H", [2, 2]),
                 ("5S 6H 7C", "4S 5H 6C", [5, 6, 7])]
        no = ("5S 5H", "5C 5D")
    else:
        cases = [("2/1 3/1 4/1", "9/1 9/2", [2, 3, 4]), ("2/3 2/4", "8/1 9/1", [2, 2]),
                 ("5/1 6/1 7/1", "4/2 5/2 6/2", [5, 6, 7])]
        no = ("5/1 5/2", "5/3 5/4")
    for hand, table, winner in cases:
        g = position(gid, [other, cards(hand), other], table=cards(table), owner=0, turn=1)
        assert winner in show_values(g), (hand, table)
    g = position(gid, [other, cards(no[0]), other], table=cards(no[1]), owner=0, turn=1)
    assert [5, 5] not in show_values(g) and show_values(g) == []


# ----- S4: show and scout -------------------------------------------------------------------------
def test_S4_a_show_captures_the_beaten_show_face_down_one_point_a_card():
    """S4: the beaten show goes face down to the shower (1 point a card) and the new show is the
    active show with the shower as owner; an empty table takes any show."""
    g = position("scouting", [sc("2C 3C"), sc("7S 7H 7D 4C"), sc("9C")], table=sc("5S 6H"), owner=0, turn=1)
    act(g, find(g, "show set of 7s (3) from position 0"))
    assert g.captured == [0, 2, 0] and g.owner == 1 and g.hands[1] == sc("4C")
    assert [g.VALUE[c] for c in g.table] == [7, 7, 7] and g.turn == 2
    empty = position("scouting", [sc("2C 3C 9H QS"), sc("2D"), sc("3D")])
    assert len(shows(empty)) == len(shows_in([2, 3, 9, 12])) == 5  # every show of the hand
    assert all(a[0] == SHOW for a in empty.legal_actions(0)), "no scout on an empty table"


def test_S4_scout_takes_an_end_card_to_any_position_and_pays_the_owner_a_chip():
    """S4: one card from either end of the active show into any position 0…len(hand); the show's
    owner scores 1 (a Scout chip); the label names the end, the value and the position."""
    g = position("scouting", [sc("2C"), sc("9C 3D"), sc("4C")], table=sc("8S 9H 10D"), owner=0, turn=1)
    scouts = [a for a in g.legal_actions(1) if a[0] == SCOUT]
    assert len(scouts) == 2 * 3  # left and right end, positions 0, 1, 2
    act(g, find(g, "scout left 8 to position 2"))
    assert g.hands[1] == sc("9C 3D 8S") and g.chips == [1, 0, 0]
    assert g.table == sc("9H 10D") and g.table_key == show_key([9, 10]) and g.turn == 2
    assert g.view(2)["seats"][1]["known"] == ["?", "?", "8♠"]


def test_S4_scouting_the_last_card_empties_the_table_and_keeps_its_owner():
    """S4: scouting the last card empties the table; the next seat may show anything; its owner
    stays owner for the round-end check (S6: play returning to it ends the round, owner exempt)."""
    g = position("scouting", [sc("2C 5D"), sc("9C 3D"), sc("4C QH")], table=sc("8S"), owner=0, turn=1)
    assert [g.action_label(a) for a in g.legal_actions(1) if a[0] == SCOUT] == [
        "scout left 8 to position 0", "scout left 8 to position 1", "scout left 8 to position 2"]
    act(g, find(g, "scout left 8 to position 1"))
    assert g.table == [] and g.owner == 0 and g.view(2)["table"] == {
        "cards": [], "values": [], "owner": 0, "kind": ""}
    assert all(a[0] == SHOW for a in g.legal_actions(2)) and len(shows(g)) == 2  # 4 or Q, anything
    # a two-card show scouted empty by everybody else: play returns to its owner, round over
    g = position("scouting", [sc("2C 5D"), sc("9C 3D"), sc("4C QH")], table=sc("8S 8H"), owner=0, turn=1)
    act(g, find(g, "scout left 8 to position 0"))
    events = act(g, find(g, "scout left 8 to position 0"))
    end = next(e.data for e in events if e.data["type"] == "round_end")
    assert end["reason"] == "scouted" and end["exempt"] == 0
    assert end["round_scores"] == [2, -3, -3]  # 2 chips, hand exempt; 3 cards each


# ----- S5: Scout & Show ---------------------------------------------------------------------------
def test_S5_the_first_half_offers_only_scouts_after_which_a_beating_show_exists():
    """S5: the Scout & Show scouts listed are exactly those after which some show beats what
    remains: here scouting the left 9 leaves a single 10 (only a pair of 9s beats it: positions 2
    and 3, next to the 9), scouting the right 10 leaves a single 9 (the 10 itself beats it)."""
    g = position("scouting", [sc("2C"), sc("6C 2D 9H"), sc("4C")], table=sc("9S 10H"), owner=0, turn=1)
    sns = [(a[1], a[3]) for a in g.legal_actions(1) if a[0] == SCOUT_AND_SHOW]
    assert sns == [(0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)]
    # the O(len) offer agrees with trying every insertion by brute force
    rng = random.Random(5)
    for _ in range(300):
        hand = [rng.randint(1, 6) for _ in range(rng.randint(0, 8))]
        v = rng.randint(1, 6)
        brute = [max(k for *_, k in shows_in(hand[:p] + [v] + hand[p:])) for p in range(len(hand) + 1)]
        assert best_keys_after_insert(hand, v) == brute


def test_S5_scout_and_show_beats_the_set_that_remains_after_the_scout():
    """S5: against 7-7-7 a pair of 8s cannot show (fewer cards), but a Scout & Show scouts one 7
    and then the pair beats the 7-7 that remains; the second decision is the same seat's and lists
    only shows that beat 7-7; the marker is spent for the round."""
    g = position("scouting", [sc("2C 3C"), sc("8S 8H 3D"), sc("4C 5C")],
                 table=sc("7S 7H 7D"), owner=0, turn=1)
    assert not shows(g)
    act(g, find(g, "Scout & Show: scout left 7 to position 3"))
    assert g.to_act() == (1,) and g.sns_pending and g.view(1)["scout_and_show_in_progress"]
    assert g.chips == [1, 0, 0] and [g.VALUE[c] for c in g.table] == [7, 7]
    assert all(a[0] == SHOW for a in g.legal_actions(1))
    assert show_values(g) == [[8, 8]]
    events = act(g, find(g, "show set of 8s (2) from position 0"))
    assert events[0].data["scout_and_show"] and events[0].data["beaten"] == ["7♥", "7♦"]
    assert g.captured == [0, 2, 0] and g.owner == 1 and g.turn == 2 and g.sns_used == [False, True, False]
    # once a round: later in the round seat 1 is offered no Scout & Show
    g.turn, g.table, g.table_key, g.owner, g._legal = 1, sc("2H 3H"), show_key([2, 3]), 2, None
    assert not [a for a in g.legal_actions(1) if a[0] == SCOUT_AND_SHOW]
    assert g.view(0)["seats"][1]["scout_and_show_used"]


def test_S5_O3_scout_and_show_in_scout_may_turn_the_scouted_card():
    """S5 / O3: in SCOUT the Scout & Show scout may turn the card; its offer counts the turned value
    (a 7/4 turned to 4 joins the hand's 4 for a pair of 4s, which beats the single 3 remaining)."""
    g = position("scout", [oc("1/2"), oc("4/9 6/8"), oc("2/5")], table=oc("7/4 3/1"), owner=0, turn=1)
    lab = labels(g)
    assert "Scout & Show: scout left 7/4 turned to 4 at position 0" in lab
    act(g, find(g, "Scout & Show: scout left 7/4 turned to 4 at position 1"))
    assert g.hands[1] == oc("4/9 4/7 6/8")
    assert labels(g) == ["show 4 from position 0", "show set of 4s (2) from position 0",
                         "show 4 from position 1", "show 6 from position 2"]


def test_S5_S6_a_scout_and_show_that_empties_the_hand_ends_the_round():
    """S5 / S6 / O4 in SCOUT: a seat holding one card scouts with its Scout & Show and shows both
    cards; the hand is empty after a show, so the round ends at once and is scored without an
    exemption (the shower's captured card, the owner's chip, −1 a card left); the next round
    deals and opens with the flip."""
    g = position("scout", [oc("2/1 3/1"), oc("8/1"), oc("4/1 5/1 9/2")], table=oc("6/2 7/3"), owner=0, turn=1)
    act(g, find(g, "Scout & Show: scout right 7/3 to position 0"))
    assert g.hands[1] == oc("7/3 8/1") and g.table == oc("6/2")
    events = act(g, find(g, "show 7-8 from position 0"))
    show, end = events[0].data, events[1].data
    assert show["scout_and_show"] and show["beaten"] == ["6/2"] and show["kind"] == "run"
    assert (end["type"], end["reason"], end["exempt"]) == ("round_end", "out", -1)
    assert end["hand_sizes"] == [2, 0, 3] and end["round_scores"] == [1 - 2, 1, -3]
    assert g.round == 1 and g.phase == PHASE_FLIP and g.to_act() == (0, 1, 2)
    assert [e.data["type"] for e in events[2:4]] == ["round_start", "deal"]


# ----- S6 / O4: round end and scoring -------------------------------------------------------------
def test_S6_the_round_ends_when_a_hand_is_empty_after_a_show():
    """S6: a show that empties the hand ends the round; every seat loses 1 per card in hand (no
    exemption), plus captured cards and chips."""
    g = position("scouting", [sc("2C 3C"), sc("9S 10H"), sc("4C 5C 6C")], table=sc("5S 6H"), owner=0,
                 turn=1, chips=[1, 0, 0])
    events = act(g, find(g, "show 9-10 from position 0"))
    end = next(e.data for e in events if e.data["type"] == "round_end")
    assert end["reason"] == "out" and end["exempt"] == -1
    assert end["round_scores"] == [1 - 2, 2, -3] and g.round == 1 and g.start_seat == 1


def test_S6_the_round_ends_when_play_returns_to_the_owner_after_only_scouts():
    """S6: 4 seats: seat 0 shows, seats 1–3 scout; play would return to seat 0, so the round ends
    and seat 0 keeps its hand unscored. A show in between makes a new owner and play goes on."""
    hands = [sc("2C 3C"), sc("9S"), sc("4C"), sc("JC")]
    g = position("scouting", hands, table=sc("5S 6H 7D 8C"), owner=0, turn=1)
    act(g, find(g, "scout left 5 to position 0"))
    act(g, find(g, "scout right 8 to position 0"))
    events = act(g, find(g, "scout left 6 to position 0"))
    end = next(e.data for e in events if e.data["type"] == "round_end")
    assert end["reason"] == "scouted" and end["exempt"] == 0 and end["round_scores"] == [3, -2, -2, -2]
    g = position("scouting", hands, table=sc("5S"), owner=0, turn=1)
    act(g, find(g, "show 9 from position 0"))  # seat 1 is out: that ends the round too
    assert g.round == 1
    g = position("scouting", [sc("2C 3C"), sc("9S 2D"), sc("4C"), sc("JC")], table=sc("5S 6S"), owner=0, turn=1)
    act(g, find(g, "Scout & Show: scout left 5 to position 0"))
    act(g, find(g, "show 9 from position 1"))
    act(g, find(g, "scout left 9 to position 0"))
    assert g.round == 0 and g.turn == 3 and g.owner == 1


def test_O4_scoring_example_four_captured_two_chips_three_in_hand():
    """O4 / S6, the text's example: 4 captured cards + 2 Scout chips − 3 hand cards = 3; the same
    cards for the owner whose show survived every opponent's scout score 6. Negatives allowed."""
    g = position("scout", [oc("1/2 3/4 5/6"), oc("2/7 3/8 4/9"), oc("6/1")], table=oc("9/8 8/7"), owner=0,
                 turn=2, captured=[4, 4, 0], chips=[1, 2, 0])
    events = act(g, find(g, "scout left 9/8 to position 0"))  # seat 1 has scouted; now seat 2
    end = next(e.data for e in events if e.data["type"] == "round_end")
    assert end["exempt"] == 0 and end["round_scores"] == [6, 3, -2]
    assert g.totals == [6, 3, -2] and g.round_scores == [[6], [3], [-2]]


# ----- S7 / O5: rounds and result -----------------------------------------------------------------
@pytest.mark.parametrize("gid", GAMES)
@pytest.mark.parametrize("players", (3, 4, 5))
def test_S7_O5_rounds_equal_players_and_the_start_moves_left(gid, players):
    """S7 / O5: as many rounds as players; round 1 starts at seat 0, then seat 1, …; the game's
    result is the totals, highest first."""
    rec = play_match(gid, [RandomBot(s) for s in range(players)], seed=3)
    starts = [e.data["start_seat"] for _, e in rec.log if e.data["type"] == "round_start"]
    ends = [e.data for _, e in rec.log if e.data["type"] == "round_end"]
    assert starts == list(range(players)) and len(ends) == players
    assert list(rec.result.scores) == ends[-1]["totals"]
    assert [sum(e["round_scores"][s] for e in ends) for s in range(players)] == ends[-1]["totals"]


def test_S7_ties_share_a_place():
    """S7: the highest total wins; equal totals share a place."""
    g = new_game("scouting", 4, 0)
    g.totals = [5, 9, 9, -3]
    assert g.result().places == (3, 1, 1, 4)


def play_defaults_until_round(g, r: int) -> list:
    """Every seat plays its default until round ``r`` (0-based) has begun; the events."""
    events = []
    while g.round < r:
        events += g.apply({s: g.default_action(s) for s in g.to_act()})
    return events


@pytest.mark.parametrize("gid", GAMES)
@pytest.mark.parametrize("players,size", ((3, 12), (4, 11), (5, 9)))
def test_S1_O1_S7_O5_every_round_deals_anew_and_the_start_moves_left(gid, players, size):
    """S1 / O1 and S7 / O5, from round 2 on: each round is a new deal of the whole deck for that
    player count (SCOUT: order and orientation shuffled; Scouting: the rest out unseen), the
    same size to every seat, each seat told its own hand only; round r starts at seat r − 1
    (after SCOUT's flip, which every round opens with); the table is empty, nobody owns it,
    nothing is known of other hands."""
    g = new_game(gid, players, 4)
    hands = [list(h) for h in g.hands]
    for r in range(1, players):
        events = play_defaults_until_round(g, r)
        start = next(e for e in events if e.data["type"] == "round_start")
        assert start.data == {"type": "round_start", "round": r + 1, "start_seat": r,
                              "hand_sizes": [size] * players}
        deals = [e for e in events if e.data["type"] == "deal"]
        assert [e.seats for e in deals] == [frozenset((s,)) for s in range(players)]
        assert [e.data["hand"] for e in deals] == [g.view(s)["hand"] for s in range(players)]
        assert all(len(h) == size for h in g.hands) and g.hands != hands
        dealt = [g.canonical(c) for h in g.hands for c in h] + [g.canonical(c) for c in g.out]
        assert sorted(dealt) == sorted(g.canonical(c) for c in g.deck())
        assert g.table == [] and g.owner == -1 and g.shows == [] and g.round_turns == 0
        assert all(set(x["known"]) == {"?"} for x in g.view(0)["seats"][1:])
        if gid == "scout":
            assert g.phase == PHASE_FLIP and g.to_act() == tuple(range(players))
            g.apply({s: (FLIP, 0) for s in range(players)})
        assert g.to_act() == (r,) and g.view(r)["start_seat"] == r
        hands = [list(h) for h in g.hands]


@pytest.mark.parametrize("gid", GAMES)
def test_S5_O4_the_marker_chips_and_captures_reset_between_rounds(gid):
    """S5 (once per round) and S6 / O4 (captured cards and Scout chips score in their round): a
    Scout & Show marker spent and chips and captures won in round 1 count in round 1's scores
    and are gone in round 2 (every marker back, chips and captures 0), while the totals keep
    round 1; in round 2 the seat is offered a Scout & Show again."""
    if gid == "scouting":
        hands, table, sns, pair = [sc("2C 3C"), sc("8S 8H 3D"), sc("9C 9D")], sc("7S 7H 7D"), "7", "9"
    else:
        hands, table, sns, pair = [oc("2/1 3/1"), oc("8/1 8/2 3/2"), oc("9/1 9/2")], oc("7/1 7/2 7/3"), "7/1", "9"
    g = position(gid, hands, table=table, owner=0, turn=1)
    act(g, find(g, f"Scout & Show: scout left {sns} to position 3"))
    act(g, find(g, "show set of 8s (2) from position 0"))
    assert g.sns_used == [False, True, False] and g.chips == [1, 0, 0] and g.captured == [0, 2, 0]
    events = act(g, find(g, f"show set of {pair}s (2) from position 0"))  # seat 2 is out
    end = next(e.data for e in events if e.data["type"] == "round_end")
    assert end["round_scores"] == [1 - 2, 2 - 2, 2] and g.totals == [-1, 0, 2]
    assert g.round == 1
    assert g.sns_used == [False] * 3 and g.chips == [0] * 3 and g.captured == [0] * 3
    seats = g.view(0)["seats"]
    assert [(x["scout_and_show_used"], x["scout_chips"], x["captured"], x["score"]) for x in seats] == [
        (False, 0, 0, -1), (False, 0, 0, 0), (False, 0, 0, 2)]
    if gid == "scout":
        g.apply({s: (FLIP, 0) for s in range(3)})
    # seat 1 again faces 7-7-7 with a pair of 8s: its marker is back
    g.hands[1], g.known[1] = hands[1][:], [False] * 3
    g.table, g.table_key, g.owner, g.turn, g._legal = list(table), show_key([7, 7, 7]), 0, 1, None
    assert find(g, f"Scout & Show: scout left {sns} to position 3")


# ----- S8 / O6: cap and defaults ------------------------------------------------------------------
@pytest.mark.parametrize("gid,cap", (("scouting", 200), ("scout", 300)))
def test_S8_O6_the_cap_scores_the_round_without_the_owners_exemption(gid, cap):
    """S8 (200) / O6 (300): after that many turns in a round it is scored as it stands, without
    the owner's exemption (here seat 0 owns the show and still pays for its 2 cards)."""
    if gid == "scouting":
        hands, table = [sc("2C 3C"), sc("9S"), sc("4C 5D"), sc("JC")], sc("6S 6H")
    else:
        hands, table = [oc("2/1 3/1"), oc("9/1"), oc("4/1 5/2"), oc("8/1")], oc("6/1 6/2")
    g = position(gid, hands, table=table, owner=0, turn=1, round_turns=cap - 2)
    six = ("6", "6") if gid == "scouting" else ("6/1", "6/2")
    act(g, find(g, f"scout left {six[0]} to position 0"))
    assert g.round == 0 and g.round_turns == cap - 1 and g.view(0)["round_actions"] == cap - 1
    # seat 3 would be next, but this is the cap's turn
    events = act(g, find(g, f"scout left {six[1]} to position 0"))
    end = next(e.data for e in events if e.data["type"] == "round_end")
    assert end["reason"] == "cap" and end["exempt"] == -1
    assert end["round_scores"] == [2 - 2, -2, -3, -1]  # 2 chips; 2, 2, 3, 1 cards in hand
    assert g.TURN_CAP == cap and g.view(0)["action_cap"] == cap


@pytest.mark.parametrize("gid,cap", (("scouting", 200), ("scout", 300)))
def test_S8_O6_a_scout_and_show_is_one_turn_the_cap_never_cuts_it(gid, cap):
    """S8 / O6: the cap counts whole turns; a Scout & Show is one, counted at its show. With one
    turn left before the cap, its scout leaves the round running (the same seat shows next) and
    its show is the cap's turn: the round is then scored with the show made."""
    if gid == "scouting":
        hands, table, seven = [sc("2C 3C"), sc("8S 8H 3D"), sc("4C 5C")], sc("7S 7H 7D"), "7"
    else:
        hands, table, seven = [oc("2/1 3/1"), oc("8/1 8/2 3/2"), oc("4/1 5/1")], oc("7/1 7/2 7/3"), "7/1"
    g = position(gid, hands, table=table, owner=0, turn=1, round_turns=cap - 1)
    events = act(g, find(g, f"Scout & Show: scout left {seven} to position 3"))
    assert [e.data["type"] for e in events] == ["scout"]
    assert g.round == 0 and g.round_turns == cap - 1 and g.to_act() == (1,) and g.sns_pending
    events = act(g, find(g, "show set of 8s (2) from position 0"))
    assert [e.data["type"] for e in events][:2] == ["show", "round_end"]
    end = events[1].data
    assert end["reason"] == "cap" and end["captured"] == [0, 2, 0] and end["chips"] == [1, 0, 0]
    assert end["round_scores"] == [1 - 2, 2 - 2, -2]


def all_default_round_ends(gid: str, players: int, seeds) -> Counter:
    """How the rounds of all-default games ended: reason → rounds."""
    reasons: Counter = Counter()
    for seed in seeds:
        g = new_game(gid, players, seed)
        while not g.is_over():
            for e in g.apply({s: g.default_action(s) for s in g.to_act()}):
                if e.data["type"] == "round_end":
                    reasons[e.data["reason"]] += 1
    return reasons


@pytest.mark.parametrize("gid", GAMES)
@pytest.mark.parametrize("players", (3, 4, 5))
def test_S8_O6_all_default_games_end_every_round_before_the_cap(gid, players):
    """S8 / O6: with every seat on the default policy (as a forfeited seat plays) every round ends
    by itself, a hand empty after a show or everybody scouted, never at the cap: 50 games a
    setting. (The old default, always scout, took every 3- and 5-player round to the cap; S8's
    "leftmost single" on an empty table still took 50 of the 600 rounds of 3-player Scouting's
    seeds 0–199 there.)"""
    reasons = all_default_round_ends(gid, players, range(50))
    assert reasons["cap"] == 0 and sum(reasons.values()) == 50 * players, dict(reasons)


@pytest.mark.parametrize("gid", GAMES)
def test_S8_O6_defaults(gid):
    """S8 / O6: the weakest show that beats the table (of equal ones the first listed); with none,
    scout the left end, not turned, to position 0; on an empty table, where every show beats it,
    the lowest single (the leftmost of equal ones); the second half of a Scout & Show takes the
    weakest beating show too; SCOUT's flip keeps the hand."""
    cards = sc if gid == "scouting" else oc
    def hand(scouting: str, scout: str) -> list[int]:
        return sc(scouting) if gid == "scouting" else oc(scout)
    others = [hand("3C", "3/1"), hand("4C", "4/1")]
    run56 = hand("5S 6S", "5/1 6/1")
    # pair 9-9 is listed first, the run 7-8 is weaker and still beats 5-6; 2-3-4 is stronger
    g = position(gid, [hand("9C 9D 7H 8S 2C 3C 4C", "9/1 9/2 7/1 8/1 2/5 3/5 4/5")] + others,
                 table=run56, owner=1, turn=0)
    assert g.action_label(g.default_action(0)) == "show 7-8 from position 2"
    g = position(gid, [hand("7C 8D 2H 7S 8S", "7/1 8/1 2/5 7/2 8/2")] + others, table=run56, owner=1)
    assert g.action_label(g.default_action(0)) == "show 7-8 from position 0"  # the first of equals
    g = position(gid, [hand("2C 3D", "2/1 3/1")] + others, table=run56, owner=1)
    assert g.action_label(g.default_action(0)) == f"scout left {'5' if gid == 'scouting' else '5/1'} to position 0"
    for owner in (-1, 2):  # a table empty before the first show, or emptied by a scout
        g = position(gid, [hand("7C 2D 9H 2S", "7/1 2/5 9/1 2/6")] + others, owner=owner)
        assert g.action_label(g.default_action(0)) == "show 2 from position 1"
    if gid == "scout":
        assert new_game("scout", 3, 1).default_action(2) == (FLIP, 0)
    g = position(gid, [hand("9C 9D 7H 8S", "9/1 9/2 7/1 8/1")] + others,
                 table=cards("AS 2S") if gid == "scouting" else oc("1/3 2/3"), owner=1)
    act(g, find(g, f"Scout & Show: scout left {'1' if gid == 'scouting' else '1/3'} to position 4"))
    assert labels(g)[0] == "show 9 from position 0"  # the first listed, the old default
    assert g.action_label(g.default_action(0)) == "show 7 from position 2"  # beats the 2 left


# ----- S1 / O1: decks and deals -------------------------------------------------------------------
@pytest.mark.parametrize("players,size", ((3, 12), (4, 11), (5, 9)))
def test_S1_scouting_deals_12_11_9_from_A_to_Q_and_keeps_the_rest_out(players, size):
    """S1: 48 cards A–Q (values 1–12, four of each); 12 / 11 / 9 each; the rest out unseen."""
    g = new_game("scouting", players, 7)
    dealt = [c for h in g.hands for c in h]
    assert all(len(h) == size for h in g.hands)
    assert sorted(dealt + g.out) == list(range(48)) and len(g.out) == 48 - size * players
    assert sorted({g.VALUE[c] for c in dealt + g.out}) == list(range(1, 13))
    seen = json.dumps(g.view(0), ensure_ascii=False)
    assert not any(f'"{g.TEXT[c]}"' in seen for c in g.out), "the cards out are unseen"


@pytest.mark.parametrize("players,count,size", ((3, 36, 12), (4, 44, 11), (5, 45, 9)))
def test_O1_scout_deck_per_player_count_with_shuffled_orientation(players, count, size):
    """O1: one card per pair of distinct numbers 1–10 (45); 3 players remove the 9 cards with a 10,
    4 players the 9/10 card, 5 players use all; order and orientation are shuffled."""
    g = new_game("scout", players, 11)
    dealt = [g.canonical(c) for h in g.hands for c in h]
    assert len(dealt) == len(set(dealt)) == count and all(len(h) == size for h in g.hands)
    pairs = {(c >> 4, c & 15) for c in dealt}
    assert all(a < b for a, b in pairs)
    if players == 3:
        assert all(b != 10 for _, b in pairs)
    if players == 4:
        assert (9, 10) not in pairs and (8, 10) in pairs
    ups = [g.VALUE[c] > g.VALUE[g.TURN[c]] for h in g.hands for c in h]
    assert 0 < sum(ups) < len(ups), "both orientations occur"


# ----- O2 / O3: SCOUT's flip and turned scouts ----------------------------------------------------
def test_O2_every_seat_decides_the_flip_sealed_and_at_once():
    """O2: before each round's first turn every seat decides at once whether to turn its whole
    hand; to_act = all seats; a turned hand swaps every card's values, positions kept; the choice
    is announced only after all have chosen; before it a seat sees only its own hand."""
    g = new_game("scout", 4, 2)
    assert g.to_act() == (0, 1, 2, 3)
    assert [g.action_label(a) for a in g.legal_actions(3)] == ["keep hand", "turn hand"]
    with pytest.raises(IllegalAction):
        g.copy().apply({0: (FLIP, 1)})  # one sealed choice alone is not a step
    v = g.view(1)
    assert v["phase"] == "flip" and v["turn"] == -1 and v["table"]["cards"] == []
    assert all(set(s["known"]) == {"?"} for s in v["seats"])
    text = json.dumps(v, ensure_ascii=False)
    assert not any(f'"{g.TEXT[c]}"' in text for s in (0, 2, 3) for c in g.hands[s])
    before = [list(h) for h in g.hands]
    events = g.apply({0: (FLIP, 0), 1: (FLIP, 1), 2: (FLIP, 0), 3: (FLIP, 1)})
    assert events[0].data == {"type": "hands_turned", "round": 1, "turned": [False, True, False, True]}
    assert g.hands[0] == before[0] and g.hands[1] == [g.TURN[c] for c in before[1]]
    assert g.view(1)["hand_values"] == [g.VALUE[g.TURN[c]] for c in before[1]]
    assert g.view(1)["hand_other_values"] == [g.VALUE[c] for c in before[1]]
    assert g.to_act() == (0,) and g.view(0)["seats"][1]["turned_hand"]
    # the next round opens with the flip again
    while g.round == 0:
        g.apply({g.turn: g.default_action(g.turn)})
    assert g.to_act() == (0, 1, 2, 3) and not any(g.turned_hand)


def test_O3_a_scouted_card_may_be_turned_older_cards_never_turn():
    """O3: a scout offers the card either way up ("scout right 3/7 turned to 7 at position 0");
    the hand's other cards keep their values; there is no action that turns an old card."""
    g = position("scout", [oc("1/2"), oc("4/9 6/8"), oc("2/5")], table=oc("5/6 4/6 3/7"), owner=0, turn=1)
    lab = labels(g)
    assert "scout right 3/7 to position 0" in lab and "scout right 3/7 turned to 7 at position 0" in lab
    assert len([a for a in g.legal_actions(1) if a[0] == SCOUT]) == 2 * 2 * 3
    act(g, find(g, "scout right 3/7 turned to 7 at position 0"))
    assert g.hands[1] == oc("7/3 4/9 6/8") and g.view(1)["hand_values"] == [7, 4, 6]
    assert g.view(0)["seats"][1]["known"] == ["7/3", "?", "?"]
    assert {a[0] for g2 in [g] for a in g2.legal_actions(g2.turn)} <= {SHOW, SCOUT, SCOUT_AND_SHOW}


def test_O7_two_player_rules_are_out_of_scope():
    """O7 (and S1): 3–5 players only."""
    for gid in GAMES:
        for n in (2, 6):
            with pytest.raises(PlayerCountError):
                new_game(gid, n, 0)


# ----- views, labels, hidden information ----------------------------------------------------------
def test_view_scouted_cards_keep_known_positions_as_cards_around_them_move():
    """RULINGS "What a seat may know": a scouted card's identity and position in another hand are
    known and shift as cards around it leave or arrive; everything else there is "?"."""
    g = position("scouting", [sc("2C"), sc("9C 3D 10H 5S"), sc("4C QD")], table=sc("8S 9H"), owner=0, turn=1)
    act(g, find(g, "scout left 8 to position 2"))
    assert g.view(0)["seats"][1]["known"] == ["?", "?", "8♠", "?", "?"]
    assert g.view(0)["seats"][1]["known_values"] == [-1, -1, 8, -1, -1]
    assert g.view(2)["seats"][1]["known"] == g.view(0)["seats"][1]["known"]
    g.turn, g._legal = 1, None  # later, seat 1 to act on an empty table
    g.table, g.table_key, g.owner = [], 0, 2
    act(g, find(g, "show 9 from position 0"))
    assert g.view(2)["seats"][1]["known"] == ["?", "8♠", "?", "?"]
    assert g.view(1)["hand"] == ["3♦", "8♠", "10♥", "5♠"]
    shown = g.view(2)["shows"][-1]
    assert shown == {"seat": 1, "cards": ["9♣"], "values": [9], "scout_and_show": False}
    # resampling for seat 0 keeps the known 8♠ where it is and re-deals the rest
    other = g.resample_hidden(0, random.Random(1))
    assert other.hands[1][1] == g.hands[1][1] and other.view(0) == g.view(0)


def test_labels_read_as_the_players_say_them():
    """Labels: "show 4-5-6 …", "show set of 7s (3) …", "scout left 8 to position 2", "scout right
    3/7 turned to 7 at position 0", "Scout & Show: scout left 5 to position 1", "turn hand"."""
    g = position("scouting", [sc("2C"), sc("4S 5H 6C 7C 7D 7H"), sc("3C")], table=sc("5S 8D"), owner=0, turn=1)
    lab = labels(g)
    assert "show 4-5-6 from position 0" in lab and "show set of 7s (3) from position 3" in lab
    assert "scout left 5 to position 2" in lab and "Scout & Show: scout left 5 to position 1" in lab
    assert "scout right 8 to position 6" in lab
    g = position("scout", [oc("1/2"), oc("4/9"), oc("2/5")], table=oc("5/6 3/7"), owner=0, turn=1)
    assert "scout right 3/7 turned to 7 at position 0" in labels(g)
    assert g.action_json(find(g, "scout right 3/7 turned to 7 at position 0")) == {
        "scout": {"end": "right", "card": "3/7", "turned": True, "value": 7, "position": 0}}
    f = new_game("scout", 3, 0)
    assert [f.action_label(a) for a in f.legal_actions(0)] == ["keep hand", "turn hand"]


# ----- the heuristic ------------------------------------------------------------------------------
def test_heuristic_beats_random_clearly():
    """The heuristic (clients/python/strategies/scout.py) against random seats, seat rotated, 40
    matches for each game and player count (240 matches). Measured on exactly these matches: it
    won 40 of 40 in all six settings (fair share 33% / 25% / 20%), leading the best random seat by
    46–73 points on average; also 90 of 90 per setting on other seeds. Against seats playing the
    default policy of S8 (the weakest beating show, else scout) it won 37–54 of 60 per setting
    (seeds 5000–5059; Scouting 47 / 37 / 38, SCOUT 54 / 53 / 54 for 3 / 4 / 5 players); against
    the old always-scout default it had won 60 of 60."""
    for gid in GAMES:
        for n in (3, 4, 5):
            wins = 0
            for m in range(40):
                hero = m % n
                bots = [RandomBot(m * 10 + s) for s in range(n)]
                bots[hero] = StrategyBot(strategy.choose)
                rec = play_match(gid, bots, seed=1000 + m)
                assert not rec.faults
                wins += rec.result.places[hero] == 1
            assert wins >= 32, (gid, n, wins)  # 80%, against a fair share of at most 33%
