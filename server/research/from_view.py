"""Determinization from a view: an engine game a seat could be in, built from that seat's view alone.

A bot over gRPC holds no engine state, only ``decision.view``. A search bot (OpenSpiel's
IS-MCTS, a determinized Monte Carlo) needs a whole state to play forward from. ::

    game = determinize("sixth-card", decision.view, rng)
    assert game.view(decision.view["seat"]) == decision.view

:func:`determinize` rebuilds everything the view shows and deals every card the seat cannot see
at random, uniformly among the deals consistent with the view (not weighed by the other seats'
past choices). The game's ``view(seat)`` equals the given view, the game plays on legally to
the end, and two calls with the same ``rng`` state give the same game.

It sets each engine's state attributes directly (the engines keep no constructor for a given
state), so a change to an engine's state has to follow here; tests/research/test_from_view.py
checks every game along random matches. Games: every registered one (:func:`supported`); a game
added later without a determinizer here raises :class:`NotImplementedError` naming it.

Design notes and measurements: docs/research.md (from_view).
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from cardarena.server.games import Game, get as get_game
from cardarena.server.games.cards import CARD_TEXT
from cardarena.server.match import plain_copy

__all__ = ["determinize", "supported"]

_CODE = {text: code for code, text in enumerate(CARD_TEXT)}


def _codes(cards) -> list[int]:
    return [_CODE[c] for c in cards]


def _deal_unseen(deck: list[int], seen: list[int], rng: random.Random) -> list[int]:
    """The cards of ``deck`` (a multiset) that ``seen`` does not account for, shuffled by
    ``rng``; :class:`ValueError` if the view shows a card more often than the deck holds it."""
    pool = Counter(deck)
    pool.subtract(seen)
    if min(pool.values(), default=0) < 0:
        extra = sorted(CARD_TEXT[c] for c, n in pool.items() if n < 0)
        raise ValueError(f"the view shows more {' '.join(extra)} than the deck holds")
    unseen = list(pool.elements())
    rng.shuffle(unseen)
    return unseen


def _fill_hands(game: Game, seat: int, hand: list[int], known: list[list[int | None]],
                unseen: list[int]) -> list[int]:
    """``seat`` holds ``hand``; every other seat's hand is its ``known`` cards in place (codes,
    ``None`` where the seat cannot see the face) with the gaps filled from ``unseen`` in order.
    Returns the unseen cards left over."""
    it = iter(unseen)
    for s, cards in enumerate(known):
        game.hands[s] = hand if s == seat else [next(it) if c is None else c for c in cards]
    return list(it)


# ----- Sixth Card ------------------------------------------------------------------------------
def _sixth_card(view: Mapping, rng: random.Random, options: Mapping[str, Any] | None) -> Game:
    from cardarena.server.games import sixth_card as sc

    n, seat = view["players"], view["seat"]
    if options is None:  # the view carries the options in force (decks as dealt: the same game)
        options = {k: view[k] for k in ("end_score", "rounds", "exact_cards", "decks")}
    game = sc.SixthCard(n, rng.getrandbits(63), options)
    game.dealer, game.round, game.turn, game.phase = view["dealer"], view["round"], view["turn"], view["phase"]
    game.rows = [_codes(r["cards"]) for r in view["rows"]]
    seats = view["seats"]
    game.played = [_codes(s["played"]) for s in seats]
    game.piles = [_codes(s["pile"]) for s in seats]
    game.points = [s["points"] for s in seats]
    game.totals = [s["total"] for s in seats]
    game.round_scores = [list(r["points"]) for r in view["round_scores"]]
    game.queue = [(r["seat"], _CODE[r["card"]]) for r in view["revealed"]]
    game.next = len(view["revealed"]) - len(view["to_place"])
    game.chooser, game.reason = view["chooser"], view["choice_reason"]
    game.choices = ()
    if game.phase == sc.ROW:
        game.choices = _sixth_card_choices(game.rows, _CODE[view["choice_card"]], game.reason)

    # every card of this round is in a hand, a row, a pile, the turn's unplaced cards or the stock
    hand = _codes(view["hand"])
    unplaced = [c for _, c in game.queue[game.next:]]
    seen = hand + [c for r in game.rows for c in r] + [c for p in game.piles for c in p] + unplaced
    unseen = _deal_unseen(game.deck, seen, rng)
    size = len(hand)  # C4: every seat has laid as many cards as this one, none more
    k = 0
    for s in range(n):
        if s == seat:
            game.hands[s] = hand
        else:
            game.hands[s] = sorted(unseen[k:k + size])
            k += size
    game.stock = unseen[k:]
    game._legal = [None] * n
    game._opening = []
    return game


def _sixth_card_choices(rows: list[list[int]], card: int, reason: str) -> tuple[int, ...]:
    """The rows a pending choice offers (C9: any row when too low; C7: the two twin rows)."""
    from cardarena.server.games import sixth_card as sc

    if reason == sc.TOO_LOW:
        return tuple(range(sc.ROWS))
    best = max(r[-1] for r in rows if r[-1] <= card)  # C6: twins count as just below
    return tuple(i for i, r in enumerate(rows) if r[-1] == best)


# ----- Three Thirteen ---------------------------------------------------------------------------
def _three_thirteen(view: Mapping, rng: random.Random, options: Mapping[str, Any] | None) -> Game:
    from cardarena.server.games import three_thirteen as tt
    from cardarena.server.games.cards import SUIT_SYMBOLS, rank_text
    from cardarena.server.games.melds import RUN, Meld

    rank = {rank_text(r): r for r in range(1, 14)}
    n, seat = view["players"], view["seat"]
    if options is None:
        options = {k: view[k] for k in ("rounds", "joker_points")}
    game = tt.ThreeThirteen(n, rng.getrandbits(63), options)
    game.round, game.dealer, game.turn, game.phase = view["round"], view["dealer"], view["turn"], view["phase"]
    game.wild = rank[view["wild_rank"]]
    game.rebuilds, game.gone_out = view["rebuilds"], view["gone_out"]
    game.last_turns = list(view["last_turns"])
    # R11: the turns begun this round, as the discards count them (the upcard, then one a turn
    # ended; a round the cap ended has one discard more); the last turns (R6) count no more
    last_done = n - 1 - len(game.last_turns) if game.gone_out >= 0 else -1
    game.round_turns = min(len(view["discards"]) - 1 - last_done, game.turn_cap)
    game.pile = _codes(view["discard_pile"])
    game.pile_text = list(view["discard_pile"])
    game.discards, game.discarded_by = list(view["discards"]), list(view["discarded_by"])
    seats = view["seats"]
    game.taken = [_codes(s["taken"]) for s in seats]
    game.melded = [s["melded"] for s in seats]
    game.totals = [s["total"] for s in seats]
    game.round_scores = [(r["round"], tuple(r["points"]), r["reason"]) for r in view["round_scores"]]
    game.table = []
    for m in view["melds"]:
        run = m["kind"] == RUN
        key = SUIT_SYMBOLS.index(m["suit"]) if run else rank[m["rank"]]
        meld = Meld(m["kind"], key, m["low"] if run else key, tuple(_codes(m["cards"])))
        game.table.append((meld, m["seat"], tuple(m["laid_by"])))
    game.just_taken = _CODE[view["taken_card"]] if view["taken_card"] else -1
    turn = game.turn
    if game.phase == tt.DISCARD and turn != seat and game.taken[turn] and view["discards"]:
        # the seat to act took the last discard from the pile if the last card it took is that
        # card (the view does not say; with several decks a twin taken earlier and still held
        # is taken for it: a rare miss, which bars that card from the discard)
        last = _CODE[view["discards"][-1]]
        if game.taken[turn][-1] == last:
            game.just_taken = last

    # every card of this round is in a hand, the stock, the discard pile or a meld on the table
    hand = _codes(view["hand"])
    seen = hand + [c for s, t in enumerate(game.taken) if s != seat for c in t] + game.pile
    seen += [c for meld, _, _ in game.table for c in meld.cards]
    unseen = _deal_unseen(game.deck, seen, rng)
    k = 0
    for s, info in enumerate(seats):
        if s == seat:
            game.hands[s] = hand
        else:
            size = info["hand_size"] - len(game.taken[s])
            game.hands[s] = sorted(game.taken[s] + unseen[k:k + size])
            k += size
    game.stock = unseen[k:]
    if len(game.stock) != view["stock_size"]:
        raise ValueError(f"the view's stock holds {view['stock_size']} cards, {len(game.stock)} are unseen")
    game._legal = None
    game._opening = []
    return game


# ----- SCOUT and Scouting -----------------------------------------------------------------------
def _show_scout(game_id: str) -> Callable[[Mapping, random.Random, Mapping | None], Game]:
    def build(view: Mapping, rng: random.Random, options: Mapping[str, Any] | None) -> Game:
        from cardarena.server.games import show_scout as ss

        cls = get_game(game_id)
        code = {t: c for c, t in enumerate(cls.TEXT) if t}
        n, seat = view["players"], view["seat"]
        game = cls(n, rng.getrandbits(63), options)
        phase = ss._PHASE_NAMES.index(view["phase"])
        game.phase, game.start_seat = phase, view["start_seat"]
        game.round = view["round"] - 1 if phase != ss.PHASE_OVER else view["rounds"]
        game.turn = view["turn"] if phase == ss.PHASE_PLAY else (-1 if phase == ss.PHASE_OVER else view["start_seat"])
        table = view["table"]
        game.table = [code[c] for c in table["cards"]]
        game.table_key = ss.show_key(table["values"]) if table["values"] else 0
        game.owner = table["owner"]
        game.sns_pending = view["scout_and_show_in_progress"]
        game.shows = plain_copy([dict(x) for x in view["shows"]])  # the game's own, not the caller's
        game.round_turns = view["round_actions"]
        seats = view["seats"]
        game.captured = [x["captured"] for x in seats]
        game.chips = [x["scout_chips"] for x in seats]
        game.sns_used = [x["scout_and_show_used"] for x in seats]
        game.turned_hand = [x["turned_hand"] for x in seats]
        game.totals = [x["score"] for x in seats]
        game.round_scores = [list(x["round_scores"]) for x in seats]
        game.known = [[c != ss.UNKNOWN for c in x["known"]] for x in seats]

        # every card of the deck is in a hand, on the table, captured (it was shown, and is
        # neither on the table nor in a hand now) or out of play (Scouting): a card seen in a
        # show, on the table or face up in a hand is no longer unseen
        canon = game.canonical
        hand = [code[c] for c in view["hand"]]
        known = [code[c] for x in seats if x["seat"] != seat for c in x["known"] if c != ss.UNKNOWN]
        seen = {canon(c) for c in hand + known + game.table}
        seen |= {canon(code[c]) for show in view["shows"] for c in show["cards"]}
        unseen = [c for c in game.deck() if canon(c) not in seen]
        rng.shuffle(unseen)
        if cls.TURN is not None:  # SCOUT: each unseen card at a random way up
            unseen = [cls.TURN[c] if rng.random() < 0.5 else c for c in unseen]
        faces = [[None if c == ss.UNKNOWN else code[c] for c in x["known"]] for x in seats]
        game.out = _fill_hands(game, seat, hand, faces, unseen)
        expected = len(game.deck()) - n * game.hand_size()
        if game.phase != ss.PHASE_OVER and len(game.out) != expected:
            raise ValueError(f"{game_id}: the view leaves {len(game.out)} cards out of play, not {expected}")
        game._legal, game._legal_seat = None, -1
        game._opening = []
        return game
    return build


# ----- Unsorted ---------------------------------------------------------------------------------
def _unsorted(view: Mapping, rng: random.Random, options: Mapping[str, Any] | None) -> Game:
    from cardarena.server.games import unsorted as us

    n, seat = view["players"], view["seat"]
    if options is None:  # long_game only sets the first chips, which the view shows
        options = {"max_deals": view["max_deals"]}
    game = us.Unsorted(n, rng.getrandbits(63), options)
    seats = view["seats"]
    game.chips = [x["chips"] for x in seats]
    game.dealer, game.deal, game.round = view["dealer"], view["deal"], view["round"]
    game.last_deal_losers = list(view["last_deal_losers"])
    game.phase, game.leader = view["phase"], view["leader"]
    game.out = [x["out"] for x in seats]
    game.spares = [_codes(x["spares"]) for x in seats]
    game.public = [[c != "" for c in x["known"]] for x in seats]
    game.discard = _codes(view["discard"])
    game.earlier_rounds = plain_copy([dict(r) for r in view["earlier_rounds"]])  # the game's own
    game.order = [s for s in ((game.leader + k) % n for k in range(n)) if not game.out[s]]
    game.participants = tuple(sorted(game.order))
    game.turn_index = sum(1 for x in seats if x["acted"])
    game.plays = [(p["seat"], us.KIND_OF_NAME[p["kind"]], p["number"], tuple(_codes(p["cards"])),
                   p["position"], tuple(p["jokers"])) for p in view["plays"]]
    game.best, game.draws_played = view["highest"], view["draws_played"]
    game.stop_seat = next((p[0] for p in game.plays if p[1] == us.STOP_KIND), -1)
    drawing = game.phase == us.PHASE_DRAW
    game.drawer = view["drawer"] if drawing else -1
    game.to_draw = view["cards_to_draw"]
    # U11: the winner draws 3 a Draw card played, at most the pile; when this draw takes the
    # whole pile, how many it began with is not in the view (taken as 3 a Draw card: the
    # earlier_rounds entry of this round may then say more cards than were drawn)
    game.drawn = 3 * game.draws_played if drawing else 0
    if game.phase == us.PHASE_OVER:  # U15 / the deal cap: the result the view shows
        game.game_losers = [s for s in game.last_deal_losers if game.chips[s] == 0]
        capped = game.max_deals and game.deal >= game.max_deals
        game.end_reason = "cap" if capped and not game.game_losers else "chips"

    hand = _codes(view["hand"])
    known = [_CODE[c] for x in seats if x["seat"] != seat for c in x["known"] if c]
    seen = hand + known + [c for sp in game.spares for c in sp] + game.discard
    seen += [c for p in game.plays for c in p[3]]
    drawn_card = [_CODE[view["drawn_card"]]] if view["drawn_card"] else []
    unseen = _deal_unseen(list(us.DECK), seen + drawn_card, rng)
    faces = [[_CODE[c] if c else None for c in x["known"]] for x in seats]
    game.pile = _fill_hands(game, seat, hand, faces, unseen) + drawn_card  # its top: the card being placed
    if len(game.pile) != view["draw_pile_size"]:
        raise ValueError(f"unsorted: the view's draw pile holds {view['draw_pile_size']} cards, "
                         f"{len(game.pile)} are unseen")
    game._cache = None
    game._opening = []
    return game


_DETERMINIZERS: dict[str, Callable[[Mapping, random.Random, Mapping | None], Game]] = {
    "sixth-card": _sixth_card,
    "three-thirteen": _three_thirteen,
    "scout": _show_scout("scout"),
    "scouting": _show_scout("scouting"),
    "unsorted": _unsorted,
}


def supported() -> tuple[str, ...]:
    """The game ids :func:`determinize` can rebuild."""
    return tuple(_DETERMINIZERS)


def determinize(game_id: str, view: Mapping, rng: random.Random,
                options: Mapping[str, Any] | None = None) -> Game:
    """An engine game whose ``view(view["seat"])`` equals ``view``, the cards the seat cannot
    see dealt at random (``rng``) among the deals consistent with it. ``options``: the match's
    game options (``match_start.options``); by default those the view shows."""
    get_game(game_id)  # UnknownGame names the known ids
    try:
        build = _DETERMINIZERS[game_id]
    except KeyError:
        raise NotImplementedError(
            f"determinize: no determinization from a view for {game_id} yet "
            f"(games: {', '.join(_DETERMINIZERS)})") from None
    return build(view, rng, options)
