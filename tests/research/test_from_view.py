"""Determinization from a view (cardarena.research.from_view): a game rebuilt from one seat's
view shows that seat the very same view, deals the unseen cards consistently, and plays on
legally to the end. Sixth Card's rulings it relies on: C3 (decks, twins), C4 (sealed choice:
every hand holds as many cards), C7/C9 (the rows a pending choice offers), C10 (public piles)."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from cardarena.research.from_view import determinize, supported
from cardarena.server.games import games, new_game

#: (game, players, options): Sixth Card with one deck and two, the exact-cards deal, a short
#: and a long game; Three Thirteen with one deck to four (R1), short games of a few rounds;
#: SCOUT and Scouting at every player count they have decks for (O1, S1); Unsorted at all three,
#: with the deal cap and the long game
TABLES = [("sixth-card", 2, {}), ("sixth-card", 3, {"exact_cards": True}), ("sixth-card", 4, {"rounds": 2}),
          ("sixth-card", 5, {}), ("sixth-card", 7, {"rounds": 1}), ("sixth-card", 10, {"end_score": 30}),
          ("sixth-card", 4, {"decks": 2, "rounds": 1}),
          ("three-thirteen", 2, {"rounds": 4}), ("three-thirteen", 3, {"rounds": 3}),
          ("three-thirteen", 5, {"rounds": 2}), ("three-thirteen", 8, {"rounds": 2, "joker_points": 15}),
          ("scout", 3, {}), ("scout", 4, {}), ("scout", 5, {}), ("scouting", 3, {}), ("scouting", 5, {}),
          ("unsorted", 3, {}), ("unsorted", 4, {"max_deals": 2}), ("unsorted", 5, {"long_game": True})]


def _states(game_id, players, options, seed):
    """Every state of one random match."""
    rng = random.Random(seed)
    game = new_game(game_id, players, seed, options)
    while not game.is_over():
        yield game
        game.apply({s: rng.choice(game.legal_actions(s)) for s in game.to_act()})
    yield game


#: where each engine keeps its face-down cards that are in no hand
FACE_DOWN = {"sixth-card": "stock", "three-thirteen": "stock", "scout": "out", "scouting": "out",
             "unsorted": "pile"}


def _known_state(game):
    """The engine's omniscient snapshot without what is dealt at random: the hands and the
    face-down cards (and Three Thirteen's card just taken with several decks, R1: a twin
    taken earlier may stand for it, see from_view)."""
    hidden = {"hands", FACE_DOWN[game.id]}
    if game.id == "three-thirteen" and game.decks > 1:
        hidden.add("just_taken")
    return {k: v for k, v in game.state_json().items() if k not in hidden}


def _hidden(game, seat):
    """The cards of the other hands and the face-down cards in no hand (the stock, Scouting's
    cards out of play, Unsorted's draw pile), as one multiset: what ``seat`` cannot see is
    among them (Three Thirteen's cards taken from the discard pile, scouted cards and taken
    spares stay in their hands), a SCOUT card whichever way up."""
    canonical = getattr(game, "canonical", lambda c: c)
    rest = getattr(game, FACE_DOWN[game.id])
    return Counter(canonical(c) for c in [c for s, h in enumerate(game.hands) if s != seat for c in h] + rest)


@pytest.mark.parametrize("game_id,players,options", TABLES)
def test_view_of_the_determinized_game_is_the_view(game_id, players, options):
    """For every state of random matches and every seat: determinize(view).view(seat) == view,
    the rest of the state the same but for the cards dealt (Three Thirteen's turn count, R11,
    is in no view), the other hands as large as the real ones, the same cards unseen, and the
    seat to act has the same legal actions (Sixth Card's pending row choices C7, C9 included)."""
    rng = random.Random(players)
    phases = Counter()
    for seed in range(3 if game_id == "sixth-card" else 1):  # Three Thirteen's random play is long
        for game in _states(game_id, players, options, seed):
            phases[game.view(0)["phase"]] += 1
            for seat in range(players):
                view = game.view(seat)
                det = determinize(game_id, view, rng)
                assert det.view(seat) == view
                assert _known_state(det) == _known_state(game)  # what the view implies, too (R11)
                assert [len(h) for h in det.hands] == [len(h) for h in game.hands]
                assert _hidden(det, seat) == _hidden(game, seat)
                if seat in game.to_act():
                    assert det.legal_actions(seat) == game.legal_actions(seat)
    assert "over" in phases and len(phases) >= 2  # every phase met (Scouting has no flip), the end too


def test_determinized_game_plays_on_legally_to_the_end():
    """A game rebuilt at any state plays to its end with random legal actions, to a result with
    a place for every seat; penalty points only grow from the view's (C11, R8)."""
    rng = random.Random(5)
    ended = 0
    for game_id, players, options in TABLES:
        for i, game in enumerate(_states(game_id, players, options, seed=11)):
            if i not in (0, 1, 3, 10, 30, 100, 300, 1000):
                continue
            seat = i % players
            det = determinize(game_id, game.view(seat), rng)
            steps = 0
            while not det.is_over():
                det.apply({s: rng.choice(det.legal_actions(s)) for s in det.to_act()})
                steps += 1
                assert steps < 100_000
            ended += 1
            result = det.result()
            assert sorted(result.places)[0] == 1 and len(result.places) == players
            if not result.higher_is_better:  # penalty points only grow (C11, R8)
                assert all(t >= g for t, g in zip(result.scores, game.totals))
    assert ended > 50


def test_three_thirteen_the_card_just_taken_is_not_discarded():
    """R5 as the other seats see it: a seat that took the top discard may not discard it at
    once; the rebuilt game of another seat's view knows which card that is (the last card the
    seat to act took is the last discard; one deck, so no twin can stand for it)."""
    rng = random.Random(0)
    met = 0
    for game in _states("three-thirteen", 2, {"rounds": 5}, seed=2):
        if game.phase == "discard" and game.just_taken >= 0:
            other = 1 - game.turn
            det = determinize("three-thirteen", game.view(other), rng)
            assert det.just_taken == game.just_taken
            met += 1
    assert met


def test_sixth_card_unseen_cards_are_dealt_at_random_by_the_rng():
    """The other hands come from ``rng``: the same state of the generator gives the same game,
    others give other deals, and the seat's own hand is never touched."""
    game = new_game("sixth-card", 4, 3)
    view = game.view(0)
    a = determinize("sixth-card", view, random.Random(1))
    b = determinize("sixth-card", view, random.Random(1))
    assert a.hands == b.hands and a.stock == b.stock
    deals = {tuple(map(tuple, determinize("sixth-card", view, random.Random(k)).hands[1:])) for k in range(20)}
    assert len(deals) == 20
    assert all(determinize("sixth-card", view, random.Random(k)).hands[0] == game.hands[0] for k in range(5))


def test_sixth_card_a_view_showing_too_many_cards_is_refused():
    """A view that shows a card more often than the deck holds (one deck: no twins, C3) cannot
    be dealt; the message names the card."""
    view = new_game("sixth-card", 3, 0).view(0)
    view["hand"] = view["hand"][:-1] + [view["rows"][0]["cards"][0]]
    with pytest.raises(ValueError, match=view["rows"][0]["cards"][0]):
        determinize("sixth-card", view, random.Random(0))


def test_every_game_is_supported_and_a_new_one_says_it_is_not(monkeypatch):
    """Every registered game can be rebuilt; one without a determinizer (a game added later)
    raises NotImplementedError naming it, an unknown id the registry's error."""
    from cardarena.research import from_view
    from cardarena.server.games import UnknownGame

    assert set(supported()) == set(games())
    monkeypatch.delitem(from_view._DETERMINIZERS, "unsorted")
    with pytest.raises(NotImplementedError, match="unsorted"):
        determinize("unsorted", new_game("unsorted", 3, 0).view(0), random.Random(0))
    with pytest.raises(UnknownGame):
        determinize("hearts", {}, random.Random(0))
