"""The Scouting and SCOUT codecs (cardarena.research.codec_show_scout): their action numbering, the
bound on the hand (every card in play but one in each other hand: S1, S6, O1) and the longest
show, and their documented tensor slots, on the rules texts' own examples (Scouting's "4-5-6 or
6-5-4, not 5-4-6", SCOUT's sample hand 3–8–4–5)."""
from __future__ import annotations

import random

import pytest
from codeckit import check_decision, documented_parts, documented_size

from cardarena.research import codec_show_scout
from cardarena.research.codec_show_scout import largest_hand
from cardarena.research.spaces import codec
from cardarena.server.games import new_game
from cardarena.server.games import scout
from cardarena.server.games.show_scout import FLIP, SCOUT, SCOUT_AND_SHOW, SHOW, show_key

GAMES = ("scouting", "scout")


def scouting_cards(values) -> list[int]:
    """Scouting cards of these values (S1: the value is the rank; suits ♣ ♦ ♥ ♠ in turn)."""
    return [(v - 1) * 4 + i % 4 for i, v in enumerate(values)]


def _set_hand(game, seat: int, cards: list[int]) -> None:
    game.hands[seat] = list(cards)
    game.known[seat] = [False] * len(cards)
    game._legal = None


def _shows(c, game, seat: int) -> dict[int, tuple]:
    """id → (start, count) of the shows offered."""
    return {c.action_id(game.action_json(a)): a[1:3] for a in game.legal_actions(seat) if a[0] == SHOW}


def _parts(c) -> dict[str, int]:
    return {name: at for name, at, _ in c.layout()}


def test_scouting_runs_rise_or_fall_as_they_sit_and_a_show_is_its_start_and_count():
    """S2 (the rules text: "a run: 4-5-6 or 6-5-4, not 5-4-6"): the three-card run of 4-5-6 and
    of 6-5-4 is id 0 × 12 + 2; 5-4-6 offers no three-card show."""
    c = codec("scouting", 3)
    for values, three in (((4, 5, 6), True), ((6, 5, 4), True), ((5, 4, 6), False)):
        game = new_game("scouting", 3, 1)
        _set_hand(game, 0, scouting_cards(values))
        shows = _shows(c, game, 0)
        assert (shows.get(2) == (0, 3)) is three, (values, shows)
        assert c.action_json_of(2) == {"show": {"start": 0, "count": 3}}


def test_scout_sample_hand_3_8_4_5_and_its_slots():
    """O3 (the rules text's sample hand 3–8–4–5): 3–4–5 cannot be shown while the 8 sits between;
    showing the single 8 (start 1: id 1 × 10 + 0) brings them together, then 3–4–5 is id 2. The
    hand's cards sit at their slots, active value then the other."""
    game = new_game("scout", 4, 2)
    game.apply({s: (FLIP, 0) for s in range(4)})
    hand = [scout.card(3, 9), scout.card(8, 1), scout.card(4, 6), scout.card(5, 2)]
    _set_hand(game, 0, hand + [scout.card(10, 7)])
    c = codec("scout", 4)
    assert 2 not in _shows(c, game, 0) and _shows(c, game, 0)[10] == (1, 1)
    obs = c.observe(game.view(0))
    at = _parts(c)["hand"]
    cells = obs[at:at + c.max_hand * 20].reshape(c.max_hand, 20)
    assert [sorted(row.nonzero()[0].tolist()) for row in cells[:5]] == [
        [2, 18], [7, 10], [3, 15], [4, 11], [9, 16]]
    assert cells[5:].sum() == 0
    game.apply({0: next(a for a in game.legal_actions(0) if a[0] == SHOW and a[1:3] == (1, 1))})
    game.turn = 0
    _set_hand(game, 0, game.hands[0])
    game.table, game.table_key = [], 0          # the others scouted it away: an empty table
    assert _shows(c, game, 0)[2] == (0, 3)


def test_a_turned_scouted_card_shows_to_the_others_at_its_position_the_way_up_it_lies():
    """O3 + the house detail (show_scout.py): a scouted card is public, the way up it was put in;
    the table's cards sit in table order."""
    game = new_game("scout", 3, 4)
    game.apply({s: (FLIP, 0) for s in range(3)})
    c = codec("scout", 3)
    first = next(a for a in game.legal_actions(0) if a[0] == SHOW and a[2] == 2)
    game.apply({0: first})
    at = _parts(c)["table"]
    obs = c.observe(game.view(1))
    for i, card in enumerate(first[3]):
        row = obs[at + i * 20:at + (i + 1) * 20]
        assert row[scout.VALUE[card] - 1] == 1 and row[10 + scout.VALUE[scout.TURN[card]] - 1] == 1
    take = next(a for a in game.legal_actions(1) if a[0] == SCOUT and a[1] == 1 and a[2] and a[3] == 2)
    game.apply({1: take})
    turned = scout.TURN[take[4]]
    obs = c.observe(game.view(2))               # seat 1 is seat 2's block 2 (two to its left)
    block = _parts(c)["seat_known"] + 2 * c.max_hand * 20
    known = obs[block:block + c.max_hand * 20].reshape(c.max_hand, 20)
    assert sorted(known.nonzero()[1].tolist()) == [scout.VALUE[turned] - 1, 10 + scout.VALUE[take[4]] - 1]
    assert known[2].sum() == 2


@pytest.mark.parametrize("game_id", GAMES)
def test_a_hand_at_the_bound_scouts_into_every_position_below_the_last_ids(game_id):
    """S6: the others hold a card each, the table one card, the seat to act all the rest
    (M − 1 = 33 with 3 players); it may scout that card into positions 0 … 33, the ids stay
    below num_actions, and the 34 cards after the scout fill the hand's slots exactly."""
    game = new_game(game_id, 3, 6)
    if game_id == "scout":
        game.apply({s: (FLIP, 0) for s in range(3)})
    c = codec(game_id, 3)
    cards = [card for hand in game.hands for card in hand]
    _set_hand(game, 1, cards[:1])
    _set_hand(game, 2, cards[1:2])
    game.table, game.owner = cards[2:3], 2
    game.table_key = show_key([game.VALUE[cards[2]]])
    _set_hand(game, 0, cards[3:])
    assert len(game.hands[0]) == c.max_hand - 1 == largest_hand(3, 12) - 1
    legal = [game.action_json(a) for a in game.legal_actions(0)]
    check_decision(c, legal)
    last = max(j["scout"]["position"] for j in legal if "scout" in j)
    assert last == c.max_hand - 1
    game.apply({0: game.legal_actions(0)[c.pick(legal, c.action_id(
        {"scout": {"end": "left", "turned": False, "position": last}}))]})
    at, F = _parts(c)["hand"], c.WIDTH
    hand = c.observe(game.view(0))[at:at + c.max_hand * F].reshape(c.max_hand, F)
    per_card = len(next(iter(c.CELLS.values())))  # Scouting 1 cell a card, SCOUT 2
    assert (hand.sum(axis=1) == per_card).all()


def _hoarder(game, seat: int, rng: random.Random):
    """A policy that grows one hand a round (the round's start seat): it scouts whenever it may
    and else shows one card; the others dump their longest show on an empty table and scout,
    leaving the hoarder a card when it acts next."""
    acts = game.legal_actions(seat)
    if acts[0][0] == FLIP:
        return rng.choice(acts)
    scouts = [a for a in acts if a[0] == SCOUT]
    shows = [a for a in acts if a[0] == SHOW]
    target = game.start_seat
    if seat == target:
        return rng.choice(scouts) if scouts else min(shows, key=lambda a: a[2])
    if not game.table:
        return max(shows, key=lambda a: a[2])
    if scouts and (len(game.table) > 1 or (seat + 1) % game.players != target):
        return rng.choice(scouts)
    return min(shows, key=lambda a: a[2]) if shows else rng.choice(acts)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_hoarding_playouts_never_pass_the_bounds(game_id, players):
    """A hoarding seat every round: no hand passes N × H − (N − 1), no show passes the longest
    show; the hoarder's hand does grow past the deal."""
    c = codec(game_id, players)
    most = longest = 0
    for seed in range(20):
        rng = random.Random(seed)
        game = new_game(game_id, players, seed)
        while not game.is_over():
            acts = {s: _hoarder(game, s, rng) for s in game.to_act()}
            longest = max([longest] + [a[2] for a in acts.values() if a[0] == SHOW])
            game.apply(acts)
            most = max(most, *map(len, game.hands))
    dealt = c.HAND_SIZES[players]
    assert dealt + 2 <= most <= c.max_hand
    assert longest <= c.LONGEST_SHOW


def _decisions(game_id: str, players: int, seeds: range, hoard: bool = False):
    """Each decision of playouts to the end, as (game, seat, legal actions): random choices, or
    with ``hoard`` a hoarding playout every other seed (hands grow to their bound)."""
    for seed in seeds:
        rng = random.Random(seed)
        game = new_game(game_id, players, seed)
        while not game.is_over():
            acts = {}
            for seat in game.to_act():
                legal = game.legal_actions(seat)
                yield game, seat, legal
                acts[seat] = _hoarder(game, seat, rng) if hoard and seed % 2 else rng.choice(legal)
            game.apply(acts)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_legal_action_has_its_own_id_and_pick_finds_it(game_id, players):
    """Random playouts to the end: every decision's legal actions (the flip's sealed choices
    too) have distinct ids below num_actions, ``action_json_of`` gives back the id's fields,
    ``pick`` the action's index."""
    c = codec(game_id, players)
    for game, _, legal in _decisions(game_id, players, range(4)):
        check_decision(c, [game.action_json(a) for a in legal])


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_ids_read_from_the_engines_tuples_are_their_jsons(game_id, players):
    """``engine_ids`` reads an id from the engine's action tuple (no JSON): the id of the action's
    JSON for every legal action of random and hoarding playouts (hands at their bound, every kind
    of action: shows, scouts each way up into every position, Scout & Show, SCOUT's flip)."""
    c = codec(game_id, players)
    kinds = set()
    for game, _, legal in _decisions(game_id, players, range(6), hoard=True):
        assert c.engine_ids(game, legal) == [c.action_id(game.action_json(a)) for a in legal]
        kinds.update(a[0] for a in legal)
    assert kinds == ({SHOW, SCOUT, SCOUT_AND_SHOW, FLIP} if game_id == "scout" else {SHOW, SCOUT, SCOUT_AND_SHOW})


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_docstring_table_is_the_layout(game_id, players):
    """The module docstring's observation table, its sizes evaluated, is layout() part by part."""
    c = codec(game_id, players)
    letters = {"N": players, "M": c.max_hand, "C": c.LONGEST_SHOW, "F": c.WIDTH, "V": c.VALUES}
    table = [(name, documented_size(size, **letters)) for name, size in documented_parts(codec_show_scout)]
    assert table == [(name, length) for name, _, length in c.layout()]


def test_num_actions_are_the_documented_figures():
    """Scouting M × (C + 4), SCOUT M × (C + 8) + 2, M = 34 / 41 / 41 with 3 / 4 / 5 players."""
    assert [codec("scouting", n).num_actions for n in (3, 4, 5)] == [544, 656, 656]
    assert [codec("scout", n).num_actions for n in (3, 4, 5)] == [614, 740, 740]
