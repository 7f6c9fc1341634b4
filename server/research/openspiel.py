"""The cardarena games as OpenSpiel Python games: importing this module registers them.

Every engine of :mod:`cardarena.server.games` becomes an OpenSpiel game named ``cardarena_`` +
its id with underscores (``cardarena_sixth_card``, ``cardarena_three_thirteen``,
``cardarena_unsorted``, ``cardarena_scouting``, ``cardarena_scout``)::

    import pyspiel
    import cardarena.research.openspiel  # registers the games
    game = pyspiel.load_game("cardarena_sixth_card", {"players": 3, "rounds": 1})

The engine plays the rules; this module only translates. Its actions are the game's fixed ids
(:func:`cardarena.research.spaces.codec`), its tensors the codec's observation of the seat's
view, so a policy trained here reads the same numbers as a bot in the arena. Chance is one node
at the start (the seeds ``0 … seeds − 1``); sealed steps are ``SIMULTANEOUS`` unless
``turn_based=true``; utilities are place-based, zero-sum, paid at the end; observations are
built from ``view(seat)`` alone. :func:`state_for` wraps an engine game that already exists.
Games, states and Python IS-MCTS/MCTS bots pickle (:func:`picklable_bot`), so they cross
processes (``multiprocessing``, Ray) and go into checkpoints.

Design notes and measurements: docs/research.md (openspiel).
"""
from __future__ import annotations

import functools
import json
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from cardarena.server.games import Game, games, new_game
from cardarena.server.match import plain_copy

from . import spaces
from .spaces import place_rewards

__all__ = ["CardArenaGame", "CardArenaState", "game_name", "game_type", "length_bound",
           "load", "picklable_bot", "state_for", "DEFAULT_PLAYERS", "DEFAULT_SEEDS",
           "SIMULTANEOUS_GAMES",
           ]  # and each game's class, SixthCardGame …: see _register

DEFAULT_PLAYERS = 4
DEFAULT_SEEDS = 10_000
CHANCE, TERMINAL, SIMULTANEOUS = pyspiel.PlayerId.CHANCE, pyspiel.PlayerId.TERMINAL, pyspiel.PlayerId.SIMULTANEOUS
#: the games with sealed simultaneous steps (Sixth Card C4, SCOUT O2)
SIMULTANEOUS_GAMES = frozenset({"sixth-card", "scout"})


def game_name(game_id: str) -> str:
    """``sixth-card`` → ``cardarena_sixth_card``."""
    return "cardarena_" + game_id.replace("-", "_")


def length_bound(game_id: str, players: int, options: Mapping[str, Any], turn_based: bool = False) -> int:
    """The most decisions a match can take (see Length in docs/research.md).

    Sixth Card: 10 turns a round, each one card choice (``players`` of them turn-based) and at
    most one row choice a seat; rounds as the option says, else at most ``players × (end_score
    − 1) + 1`` (every round takes a row, so gives at least one point, C11). Unsorted: at most
    total chips + 1 deals (the ``max_deals`` cap if lower), each at most 54 rounds (every round
    removes a card from the hands, and the 54 cards enter hands at most once a deal), each at
    most a play a seat and 6 draws (two Draw cards, 3 each: U11). Scouting and SCOUT: as many
    rounds as seats, each at most ``TURN_CAP`` turns of at most two decisions (S5: Scout &
    Show), SCOUT's flip before them (O2). Three Thirteen: at most 150 turns a seat a round
    (R11's cap) and the last turns after a seat went out (R6), each two decisions (draw,
    discard: R5).
    """
    n = players
    sealed = n if turn_based else 1  # decisions of one sealed simultaneous step
    opts = games()[game_id].parse_options(options)
    if game_id == "sixth-card":
        rounds = opts["rounds"] or n * (opts["end_score"] - 1) + 1
        return rounds * 10 * (sealed + n)
    if game_id == "unsorted":
        chips = 3 if n < 5 or opts["long_game"] else 2
        deals = n * chips + 1
        if opts["max_deals"]:
            deals = min(deals, opts["max_deals"])
        return deals * 54 * (n + 6)
    if game_id in ("scouting", "scout"):
        flip = sealed if game_id in SIMULTANEOUS_GAMES else 0
        return n * (flip + 2 * games()[game_id].TURN_CAP)
    if game_id == "three-thirteen":
        from cardarena.server.games.three_thirteen import TURNS_PER_SEAT
        return opts["rounds"] * (TURNS_PER_SEAT * n + n - 1) * 2
    raise KeyError(f"no length bound for {game_id!r}")


def _json(value: Any) -> str:
    """A view's value (or an action JSON) on one line, cards as their text ("7♠")."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _param_default(value: Any) -> Any:
    """An option's default as an OpenSpiel parameter (int, float, bool or str)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"an OpenSpiel parameter is int, float, bool or str, not {value!r}")


def game_type(game_id: str, turn_based: bool = False) -> pyspiel.GameType:
    """The OpenSpiel type of a game (``turn_based``: its sealed steps asked seat by seat)."""
    cls = games()[game_id]
    spec: dict[str, Any] = {
        "players": max(cls.min_players, min(DEFAULT_PLAYERS, cls.max_players)),
        "seeds": DEFAULT_SEEDS,
        "turn_based": False,
        "max_game_length": 0,  # 0: the game's bound
    }
    for option in cls.option_specs:
        if option.name in spec:
            raise ValueError(f"{game_id}: option {option.name!r} clashes with a parameter of this module")
        spec[option.name] = _param_default(option.default)
    simultaneous = game_id in SIMULTANEOUS_GAMES and not turn_based
    return pyspiel.GameType(
        short_name=game_name(game_id),
        long_name=f"cardarena {cls.title or game_id}",
        dynamics=(pyspiel.GameType.Dynamics.SIMULTANEOUS if simultaneous
                  else pyspiel.GameType.Dynamics.SEQUENTIAL),
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=spec,
    )


class CardArenaGame(pyspiel.Game):
    """One cardarena game at one player count and set of options, as an OpenSpiel game.
    Each game id has its subclass (:func:`_register`), which names it in ``game_id``."""

    game_id = ""

    def __init__(self, params: Mapping[str, Any] | None = None):
        params = dict(params or {})
        game_id = self.game_id
        cls = games()[game_id]
        full = dict(game_type(game_id).parameter_specification)
        full.update(params)
        self.players = int(full["players"])
        self.options = cls.parse_options({o.name: full[o.name] for o in cls.option_specs})
        self.seeds = int(full["seeds"])
        if self.seeds < 1:
            raise ValueError(f"seeds must be at least 1, not {self.seeds}")
        self.turn_based = bool(full["turn_based"])
        self.codec = spaces.codec(game_id, self.players, self.options)
        bound = int(full["max_game_length"]) or length_bound(game_id, self.players, self.options, self.turn_based)
        super().__init__(
            game_type(game_id, self.turn_based),
            pyspiel.GameInfo(
                num_distinct_actions=self.codec.num_actions,
                max_chance_outcomes=self.seeds,
                num_players=self.players,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0,
                max_game_length=bound,
            ),
            full,
        )
        self.length_limit = bound
        #: the chance outcomes of the deal: every seed, uniform
        self.deals = [(seed, 1.0 / self.seeds) for seed in range(self.seeds)]

    def new_initial_state(self) -> "CardArenaState":
        return CardArenaState(self)

    def __reduce__(self):
        """Pickled as its name and parameters; unpickled through :func:`load`'s cache, so every
        game and state unpickled in a process shares one game object per parameter set."""
        return _loaded, (self.get_type().short_name, tuple(sorted(self.get_parameters().items())))

    def make_py_observer(self, iig_obs_type=None, params=None) -> "CardArenaObserver":
        return CardArenaObserver(self.codec, iig_obs_type, params)


class _Match:
    """What a state holds: its game, the engine game (``None`` before the deal), the seat a
    ``turn_based`` step asks first and the sealed choices made so far, the decisions taken, and
    what is built from them on demand (the player to act, each seat's legal ids, view and view
    string). OpenSpiel clones a Python state by deep-copying its attributes; this copies the
    engine with its own ``copy()`` (cheaper than deepcopy), shares the game and drops what was
    built. OpenSpiel serializes a Python state as its history and its pickled attributes; this
    pickles the engine (its own pickling: every attribute, the generator's state too), the sealed
    choices and the decisions, without the game (the state's own, ``get_game()``, is taken again
    when first needed) or what was built. The engine is the state's: played on only through it."""

    __slots__ = ("game", "engine", "lead", "sealed", "length", "player", "legal", "ids", "views", "texts")

    def __init__(self, game: CardArenaGame, engine: Game | None = None, lead: int = 0,
                 sealed: dict | None = None, length: int = 0):
        self.game = game  # shared by every clone
        self.engine = engine
        self.lead = lead  # turn_based: the seat asked first in a sealed step, then to its left
        self.sealed: dict[int, Any] = sealed or {}  # seat → engine action, not yet revealed
        self.length = length
        self.changed()

    def changed(self) -> None:
        """The engine or the sealed choices moved on: forget what was built from them."""
        self.player: int | None = None  # the player to act
        self.legal: dict[int, dict[int, Any]] = {}  # seat → {id: engine action}
        self.ids: dict[int, list[int]] = {}  # seat → its legal ids, increasing
        self.views: dict[int, dict] = {}  # seat → its view
        self.texts: dict[int, str] = {}  # seat → its view string

    def __deepcopy__(self, memo) -> "_Match":
        engine = None if self.engine is None else self.engine.copy()
        return _Match(self.game, engine, self.lead, dict(self.sealed), self.length)

    def __reduce__(self):
        return _Match, (None, self.engine, self.lead, self.sealed, self.length)


class CardArenaState(pyspiel.State):
    """A match in progress: the engine game and the OpenSpiel bookkeeping around it."""

    def __init__(self, game: CardArenaGame, engine: Game | None = None, lead: int = 0):
        super().__init__(game)
        self._m = _Match(game, engine, lead)

    @property
    def _game(self) -> CardArenaGame:
        m = self._m
        if m.game is None:  # unpickled (see _Match): the game it was deserialized into
            m.game = self.get_game()
        return m.game

    # ----- who acts ---------------------------------------------------------------------------
    @property
    def engine(self) -> Game | None:
        """The engine game (``None`` before the deal)."""
        return self._m.engine

    def _to_act(self) -> tuple[int, ...]:
        """The seats that still have to choose now (the sealed ones left out), from the lead
        seat leftwards."""
        m = self._m
        seats = [s for s in m.engine.to_act() if s not in m.sealed]
        if m.lead and len(seats) > 1:
            n = m.engine.players
            seats.sort(key=lambda s: (s - m.lead) % n)
        return tuple(seats)

    def current_player(self) -> int:
        m = self._m
        player = m.player
        if player is None:
            if m.engine is None:
                player = CHANCE
            elif m.engine.is_over() or m.length >= self._game.length_limit:
                player = TERMINAL
            else:
                seats = self._to_act()
                player = seats[0] if len(seats) == 1 or self._game.turn_based else SIMULTANEOUS
            m.player = player
        return player

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_simultaneous_node(self) -> bool:
        return self.current_player() == SIMULTANEOUS

    # ----- actions ----------------------------------------------------------------------------
    def _legal_map(self, seat: int) -> dict[int, Any]:
        """The seat's legal actions by id ({} when it is not to choose now)."""
        m = self._m
        legal = m.legal.get(seat)
        if legal is None:
            engine = m.engine
            if engine is None or seat in m.sealed or self.is_terminal():
                legal = {}
            else:
                actions = engine.legal_actions(seat)
                legal = dict(zip(self._game.codec.engine_ids(engine, actions), actions))
            m.legal[seat] = legal
        return legal

    def _legal_ids(self, seat: int) -> list[int]:
        """The seat's legal ids, increasing (shared: copy before handing out)."""
        ids = self._m.ids.get(seat)
        if ids is None:
            ids = self._m.ids[seat] = sorted(self._legal_map(seat))
        return ids

    def _engine_action(self, seat: int, action_id: int) -> Any:
        try:
            return self._legal_map(seat)[action_id]
        except KeyError:
            raise ValueError(f"{self._game.game_id}: seat {seat}: action id {action_id} is not legal now") from None

    def _legal_actions(self, player: int) -> list[int]:
        if self.current_player() not in (player, SIMULTANEOUS):
            return []
        return list(self._legal_ids(player))

    def legal_actions(self, player: int | None = None) -> list[int]:
        """pyspiel's ``legal_actions`` (the player to act's, or ``player``'s): the same ids,
        answered here for a seat rather than through OpenSpiel's C++ and back."""
        current = self.current_player()
        if player is None:
            if current < 0:
                return pyspiel.State.legal_actions(self)
            player = current
        elif type(player) is not int or not 0 <= player < self._game.players or current == CHANCE:
            return pyspiel.State.legal_actions(self, player)
        if current == player or current == SIMULTANEOUS:
            return list(self._legal_ids(player))
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._game.deals

    def _apply_action(self, action: int) -> None:
        m = self._m
        if m.engine is None:
            g = self._game
            m.engine = new_game(g.game_id, g.players, int(action), g.options)
            m.changed()
            return
        seat = self.current_player()
        chosen = self._engine_action(seat, action)
        m.length += 1
        if len(m.engine.to_act()) == 1:
            m.engine.apply({seat: chosen})
        else:
            m.sealed[seat] = chosen  # turn_based: sealed until the last seat has chosen
            if not self._to_act():
                sealed, m.sealed = m.sealed, {}
                m.engine.apply(sealed)
        m.changed()

    def _apply_actions(self, actions: list[int]) -> None:
        m = self._m
        chosen = {s: self._engine_action(s, actions[s]) for s in m.engine.to_act()}
        m.length += 1
        m.engine.apply(chosen)
        m.changed()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed {action}"
        chosen = self._legal_map(player).get(action) if player >= 0 else None
        if chosen is not None:
            return self._m.engine.action_label(chosen)
        return _json(self._game.codec.action_json_of(action))  # an id not legal here: its JSON

    # ----- the end ----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        engine = self._m.engine
        if engine is None or not engine.is_over():
            return [0.0] * self._game.players  # still playing, or a draw at max_game_length
        return place_rewards(engine.result())

    # ----- what a seat knows ------------------------------------------------------------------
    def view(self, seat: int) -> dict | None:
        """``view(seat)`` of the engine (``None`` before the deal), the caller's own copy: the
        view is built once a step and may share parts with the engine's records, so changing
        what this returns changes neither the state nor its later views."""
        view = self._view(seat)
        return None if view is None else plain_copy(view)

    def _view(self, seat: int) -> dict | None:
        """The view built once a step, read (never changed) by the observer and the string. In
        a sealed step the views of every seat to choose are built together (``engine.views``:
        the parts they share are built once)."""
        m = self._m
        if m.engine is None:
            return None
        view = m.views.get(seat)
        if view is None:
            seats = m.engine.to_act()
            if len(seats) > 1 and seat in seats:
                m.views.update(m.engine.views(seats))
                view = m.views[seat]
            else:
                view = m.views[seat] = m.engine.view(seat)
        return view

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """pyspiel's ``observation_tensor`` (the player to act's, or ``player``'s): the same
        list, made here from the codec's entries rather than through OpenSpiel's C++ observer."""
        return self._tensor(pyspiel.State.observation_tensor, player)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """pyspiel's ``information_state_tensor``: the observation tensor (see Observations)."""
        return self._tensor(pyspiel.State.information_state_tensor, player)

    def _tensor(self, pyspiel_tensor, player: int | None) -> list[float]:
        if player is None:
            player = self.current_player()
            if player < 0:
                return pyspiel_tensor(self)
        elif type(player) is not int or not 0 <= player < self._game.players:
            return pyspiel_tensor(self, player)
        view = self._view(player)
        codec = self._game.codec
        return [0.0] * codec.size if view is None else codec.tensor_list(view)

    def view_text(self, seat: int) -> str:
        """The seat's view, a line a key (``hand: ["7♠","9♥"]``: its JSON, cards as their text);
        with ``turn_based``, which seats have chosen in the sealed step (and this seat's own
        choice, in words)."""
        m = self._m
        if m.engine is None:
            return "before the deal"
        text = m.texts.get(seat)
        if text is None:
            lines = [f"{key}: {_json(value)}" for key, value in self._view(seat).items()]
            if m.sealed:
                lines.append("sealed: seats " + " ".join(map(str, sorted(m.sealed))) + " have chosen")
                if seat in m.sealed:
                    lines.append("chosen: " + m.engine.action_label(m.sealed[seat]))
            text = m.texts[seat] = "\n".join(lines)
        return text

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "CardArenaState":
        """A state ``player_id`` cannot tell from this one: the engine's ``resample_hidden``
        (the other hands and the unseen cards dealt anew, future shuffles reseeded) with a
        generator seeded from ``probability_sampler()``; the other seats' sealed choices of a
        ``turn_based`` step are drawn anew among their new hands' legal actions. Used by
        OpenSpiel's IS-MCTS (open_spiel/python/algorithms/ismcts.py)."""
        new = self.clone()
        m = new._m
        if m.engine is None:
            return new
        rng = random.Random(int(probability_sampler() * 2**53))
        m.engine = m.engine.resample_hidden(player_id, rng)
        for seat in m.sealed:
            if seat != player_id:
                m.sealed[seat] = rng.choice(m.engine.legal_actions(seat))
        m.changed()
        return new

    def __reduce__(self):
        """Pickled as its game and ``serialize()`` (OpenSpiel's form: the history and the
        pickled attributes, see :class:`_Match`); unpickled by the game's ``deserialize_state``,
        so it continues exactly as this state would (same legal ids, tensors and returns)."""
        return _deserialized, (self._game, self.serialize())

    def __str__(self) -> str:
        """The whole state (omniscient, for debugging and as a key): the engine's snapshot and
        the sealed choices."""
        m = self._m
        if m.engine is None:
            return "before the deal"
        sealed = {s: m.engine.action_label(a) for s, a in sorted(m.sealed.items())}
        return json.dumps({"state": m.engine.state_json(), "sealed": sealed, "decisions": m.length},
                          ensure_ascii=False, sort_keys=True)


class CardArenaObserver:
    """Strings and tensors of a seat's view (OpenSpiel's PyObserver interface)."""

    def __init__(self, codec: spaces.Codec, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if iig_obs_type is not None and iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("cardarena observers show one seat's own view (private_info SINGLE_PLAYER)")
        self.codec = codec
        self.tensor = np.zeros(int(np.prod(codec.observation_shape)), np.float32)
        self.dict = {name: self.tensor[start:start + length] for name, start, length in codec.layout()}

    def set_from(self, state: CardArenaState, player: int) -> None:
        view = state._view(player)
        self.tensor.fill(0.0)
        if view is not None:
            self.codec.observe_into(view, self.tensor)

    def string_from(self, state: CardArenaState, player: int) -> str:
        return state.view_text(player)


@functools.lru_cache(maxsize=64)
def _load(name: str, params: tuple) -> pyspiel.Game:
    return pyspiel.load_game(name, dict(params))


def _loaded(name: str, params: tuple) -> pyspiel.Game:
    """An unpickled game (:meth:`CardArenaGame.__reduce__`)."""
    return _load(name, params)


def _deserialized(game: CardArenaGame, data: str) -> CardArenaState:
    """An unpickled state (:meth:`CardArenaState.__reduce__`)."""
    return game.deserialize_state(data)


#: a bot class defining one of these pickles its own way
_PICKLING = ("__reduce__", "__reduce_ex__", "__getstate__")


class _PicklableBot:
    """Pickles as the Python bot it holds (see :func:`picklable_bot`)."""

    __slots__ = ("bot",)

    def __init__(self, bot: pyspiel.Bot):
        self.bot = bot

    def __reduce__(self):
        return _bot, (type(self.bot), self.bot.__dict__)


def _bot(cls: type, attributes: dict) -> pyspiel.Bot:
    bot = cls.__new__(cls)
    pyspiel.Bot.__init__(bot)
    bot.__dict__.update(attributes)
    return bot


def picklable_bot(bot: Any) -> Any:
    """``bot`` in a form that pickles and unpickles as the bot itself, if it is a Python bot
    on ``pyspiel.Bot`` (OpenSpiel's ``ISMCTSBot``, ``MCTSBot``): ``pyspiel.Bot`` does not pickle,
    but its C++ part holds nothing, so such a bot is its class and its attributes (its game, its
    evaluator, its random state, its tree). Anything else (a bot pickling its own way, a C++
    bot) is returned as it is."""
    cls = type(bot)
    if (isinstance(bot, pyspiel.Bot) and hasattr(bot, "__dict__")
            and all(getattr(cls, name) is getattr(object, name) for name in _PICKLING)):
        return _PicklableBot(bot)
    return bot


def load(game_id: str, players: int, options: Mapping[str, Any] | None = None, **params: Any) -> pyspiel.Game:
    """The registered game of ``game_id`` at ``players`` seats with the game's ``options`` and
    this module's parameters (``seeds``, ``turn_based``, ``max_game_length``); loaded once."""
    opts = games()[game_id].parse_options(options or {})
    full = {**_parameter_defaults(game_id), "players": players, **opts, **params}
    return _load(game_name(game_id), tuple(sorted(full.items())))


@functools.lru_cache(maxsize=None)
def _parameter_defaults(game_id: str) -> dict[str, Any]:
    """Every parameter's default: with them :func:`load` and an unpickled game find the same
    game object in the cache."""
    return dict(game_type(game_id).parameter_specification)


def state_for(engine: Game, lead: int = 0, **params: Any) -> CardArenaState:
    """An OpenSpiel state of the registered game around an existing engine game (after its
    deal: the state's ``history()`` is empty, and the engine is played on, not copied). The game
    is loaded with the engine's player count and options and ``params`` (``turn_based=True``
    for IS-MCTS on Sixth Card or SCOUT). ``lead``: the seat a ``turn_based`` sealed step asks
    first (then leftwards), so a state made for seat ``s``'s sealed decision has ``s`` to act,
    nothing chosen yet, as the referee asks it."""
    game = load(engine.id, engine.players, engine.options, **params)
    return CardArenaState(game, engine, lead)


def _register() -> None:
    """Registers a :class:`CardArenaGame` subclass per game id (a class: OpenSpiel keeps the
    factory until the interpreter ends, and a partial or a lambda kept there crashes that end),
    bound to its name in this module (``SixthCardGame``, ``ThreeThirteenGame`` …), where pickle
    looks a class up."""
    registered = {t.short_name for t in pyspiel.registered_games()}
    for game_id in games():
        title = "".join(w.capitalize() for w in game_id.split("-")) + "Game"
        cls = type(title, (CardArenaGame,), {
            "game_id": game_id, "__module__": __name__,
            "__doc__": f"{game_id} as an OpenSpiel game (registered as {game_name(game_id)})."})
        globals()[title] = cls
        __all__.append(title)
        if game_name(game_id) not in registered:
            pyspiel.register_game(game_type(game_id), cls)


_register()
