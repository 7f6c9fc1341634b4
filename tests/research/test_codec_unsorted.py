"""The Unsorted codec (cardarena.research.codec_unsorted): its action numbering, its bound on the
hand (dealt + 2 spares + 5 drawn net: U1, U6, U10, U11, U14), and its documented tensor slots,
on the rules text's own example where it has one (Dan's spare 8♠ between the joker and the 9♦)."""
from __future__ import annotations

import random

import pytest
from codeckit import check_decision, documented_parts, documented_size

from cardarena.research import codec_unsorted
from cardarena.research.codec_unsorted import FACES, largest_hand
from cardarena.research.spaces import codec
from cardarena.server.games import new_game
from cardarena.server.games.cards import parse_cards
from cardarena.server.games.unsorted import DRAW, PLACE, PLAY, SPARE, STOP


def _place(game, where: list, i: int, card: int) -> None:
    """Put ``card`` at ``where[i]``, swapping it with the copy of it the deal holds elsewhere, so
    the deal keeps its 54 cards."""
    for pile in [*game.hands, *game.spares, game.pile]:
        if card in pile and not (pile is where and pile.index(card) == i):
            j = pile.index(card)
            pile[j], where[i] = where[i], pile[j]
            break
    assert where[i] == card, f"{card} is not in a hand, a spare or the pile"
    game._cache = None


def _hand(game, seat: int, text: str) -> None:
    for i, c in enumerate(parse_cards(text)):
        _place(game, game.hands[seat], i, c)


def test_dans_spare_between_the_joker_and_the_9_makes_two_runs_with_their_own_ids():
    """U3, U4, U6 (the rules text's example): Dan takes his spare 8♠ and puts it between the
    joker and the 9♦; joker-8-9 is then a three-run, and as 7-8-9 (joker 7) or 8-9-10 (joker
    10) it is two actions with two ids, next to the same block's other combinations."""
    game = new_game("unsorted", 4, 3)
    dan = 2
    _hand(game, dan, "4♥ 4♣ Jo 9♦ 2♣ 3♣ 5♥ 6♥ 7♦ 10♠")
    _place(game, game.spares[dan], 0, parse_cards("8♠")[0])
    game.apply({1: game.default_action(1)})           # seat 1 leads; seat 2 is Dan
    c = codec("unsorted", 4)
    L = c.max_hand
    legal = [game.action_json(a) for a in game.legal_actions(dan)]
    take = {"take_spare": {"spare": 0, "card": "8♠", "position": 3}}
    assert c.action_id(take) == 62 * L + 3
    game.apply({dan: game.legal_actions(dan)[c.pick(legal, c.action_id(take))]})
    assert game.view(dan)["hand"][2:5] == ["Jo", "8♠", "9♦"]
    # Dan leads the next round himself (as if every one else had taken a spare)
    game.leader, game.order, game.turn_index, game.plays, game.best = dan, [dan, 3, 0, 1], 0, [], -1
    game._cache = None
    acts = {c.action_id(game.action_json(a)): game.action_label(a) for a in game.legal_actions(dan)}
    three_run = 2 * 60 + (4 - 1) * 12
    assert acts[three_run + 9 - 1] == "joker as 7 with 8♠ 9♦: three-run 7–9"
    assert acts[three_run + 10 - 1] == "joker as 10 with 8♠ 9♦: three-run 8–10"
    assert acts[2 * 60 + (3 - 1) * 12 + 8 - 1] == "joker as 8 with 8♠: pair of 8s"
    assert acts[2 * 60 + (2 - 1) * 12 + 8 - 1] == "joker as 7 with 8♠: two-run 7–8"
    assert acts[0 * 60 + (3 - 1) * 12 + 4 - 1] == "pair of 4s: 4♥ 4♣"
    assert c.action_json_of(three_run + 9 - 1) == {"play": {"position": 2, "kind": "three-run", "number": 9}}


def test_the_hand_and_what_others_know_of_it_sit_at_the_documented_slots():
    """The view's hand in order, and a spare taken face up (U6) in every other seat's block of
    the taker, relative to the observer."""
    game = new_game("unsorted", 3, 5)
    seat = 2
    _hand(game, seat, "Jo K♠ K♦ A♣ Q♥")
    _place(game, game.spares[seat], 0, parse_cards("7♣")[0])
    game.apply({1: game.default_action(1)})
    game.apply({seat: (SPARE, 0, parse_cards("7♣")[0], 1)})
    c = codec("unsorted", 3)
    start = {name: at for name, at, _ in c.layout()}
    own = c.observe(game.view(seat))
    hand = own[start["hand"]:start["hand"] + c.max_hand * FACES].reshape(c.max_hand, FACES)
    assert [int(row.argmax()) for row in hand[:6]] == [0, 7, 13, 14, 1, 12]   # Jo 7 Stop Draw A Q
    assert hand[len(game.hands[seat]):].sum() == 0
    other = c.observe(game.view(1))           # seat 2 is seat 1's block 1 (one to its left)
    block = start["seat_known"] + 1 * c.max_hand * FACES
    known = other[block:block + c.max_hand * FACES].reshape(c.max_hand, FACES)
    assert known[1, 7] == 1 and known.sum() == 1


def test_the_largest_hand_is_reached_and_its_last_position_is_the_last_id():
    """U6 + U8a + U11: a seat that took both spares leads a Draw, the next seat plays the other
    Draw, nobody answers with a combination: the leader wins and draws 6, one at a time; its hand
    reaches dealt + 2 − 1 + 6 = 17, and the last card's position is the codec's last id."""
    game = new_game("unsorted", 3, 11)
    leader = 1
    game.hands[leader].extend(game.spares[leader])
    game.public[leader].extend([True, True])
    game.spares[leader] = []
    k_d, k_h = parse_cards("K♦ K♥")
    _place(game, game.hands[leader], 0, k_d)
    _place(game, game.hands[2], 0, k_h)
    game.public = [[False] * len(h) for h in game.hands]
    assert len(game.hands[leader]) == 12
    c = codec("unsorted", 3)
    game.apply({1: (DRAW, 0, k_d, 0)})
    game.apply({2: (DRAW, 0, k_h, 0)})
    game.apply({0: next(a for a in game.legal_actions(0) if a[0] == SPARE)})
    for _ in range(6):
        last = game.legal_actions(leader)[-1]
        assert last[0] == PLACE
        ids = c.ids([game.action_json(a) for a in game.legal_actions(leader)])
        game.apply({leader: last})
    assert len(game.hands[leader]) == largest_hand(3) == c.max_hand == 17
    assert max(ids) == c.num_actions - 1


def _hoarder(game, seat: int, rng: random.Random):
    """A policy that grows hands: take a spare when it may, lead or answer with a Draw card (the
    leader then draws), else play the fewest cards, and put drawn cards anywhere."""
    acts = game.legal_actions(seat)
    for tag in (SPARE, DRAW):
        pick = [a for a in acts if a[0] == tag]
        if pick:
            return rng.choice(pick)
    plays = [a for a in acts if a[0] == PLAY]
    if plays:
        fewest = min(len(a[2]) for a in plays)
        return rng.choice([a for a in plays if len(a[2]) == fewest])
    return rng.choice(acts)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_hoarding_playouts_never_pass_the_bound(players):
    """Every seat hoards, over many deals: no hand passes dealt + 7 (the docstring's bound), and
    the hoarders come within a card of it (on these seeds 16 of 17 with 3 players; 17 and 14,
    the bound itself, with 4 and 5). The ids ``engine_ids`` reads from the engine's tuples are
    their JSON's up to the bound."""
    c = codec("unsorted", players)
    most = 0
    for seed in range(30):
        rng = random.Random(seed)
        game = new_game("unsorted", players, seed, {"max_deals": 4})
        while not game.is_over():
            seat = game.to_act()[0]
            acts = game.legal_actions(seat)
            assert c.engine_ids(game, acts) == c.ids([game.action_json(a) for a in acts])
            game.apply({seat: _hoarder(game, seat, rng)})
            most = max(most, *map(len, game.hands))
    assert most <= c.max_hand
    assert most >= c.max_hand - 1, f"the hoarders reached only {most} of {c.max_hand}"


@pytest.mark.parametrize("players,options", [(3, {}), (4, {"max_deals": 2}), (5, {}),
                                             (5, {"long_game": True, "max_deals": 3})])
def test_every_legal_action_has_its_own_id_and_pick_finds_it(players, options):
    """Random playouts to the end: every decision's legal actions have distinct ids below
    num_actions, ``action_json_of`` gives back the id's fields, ``pick`` the action's index; the
    ids ``engine_ids`` reads from the engine's tuples (no JSON) are their JSON's, for every kind
    of action."""
    c = codec("unsorted", players, options)
    tags = set()
    for seed in range(8):
        rng = random.Random(seed)
        game = new_game("unsorted", players, seed, options)
        while not game.is_over():
            seat = game.to_act()[0]
            acts = game.legal_actions(seat)
            jsons = [game.action_json(a) for a in acts]
            check_decision(c, jsons)
            assert c.engine_ids(game, acts) == c.ids(jsons)
            tags.update(a[0] for a in acts)
            game.apply({seat: rng.choice(acts)})
    assert tags == {PLAY, STOP, DRAW, SPARE, PLACE}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_docstring_table_is_the_layout(players):
    """The module docstring's observation table, its sizes evaluated, is layout() part by part."""
    c = codec("unsorted", players)
    letters = {"N": players, "L": c.max_hand, "F": FACES}
    table = [(name, documented_size(size, **letters)) for name, size in documented_parts(codec_unsorted)]
    assert table == [(name, length) for name, _, length in c.layout()]


def test_num_actions_are_the_documented_figures():
    """65 L ids: 1105 with 3–4 players (L = 17), 910 with 5 (L = 14); options add none."""
    assert [codec("unsorted", n).num_actions for n in (3, 4, 5)] == [1105, 1105, 910]
    assert codec("unsorted", 5, {"long_game": True, "max_deals": 2}).num_actions == 910
