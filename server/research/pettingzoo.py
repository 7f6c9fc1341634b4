"""PettingZoo environments of the cardarena games: ``env(game, players=…, **options)``.

One :class:`CardArenaEnv` (a PettingZoo 1.27 ``AECEnv``) drives any engine of
:mod:`cardarena.server.games` through its :mod:`~cardarena.research.spaces` codec, so an agent
sees exactly what the seat's ``view(seat)`` shows and picks fixed action ids::

    from cardarena.research.pettingzoo import env
    e = env("sixth-card", players=4, rounds=1)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``"seat_0"`` … ``"seat_<n-1>"``. A sealed simultaneous step is asked seat by seat
and applied together, and no seat sees what an earlier one chose. An illegal id raises
:class:`IllegalActionId` in the raw environment and ends the match under :func:`env`'s wrappers.
Rewards come on the last step only (``reward="place"`` or ``"score"``). Same seed, same actions
→ same trajectory. ``parallel_env`` is the same match as a ``ParallelEnv``. Environments
pickle, mid-episode too, and play on exactly as the original would.

Design notes and measurements: docs/research.md (pettingzoo).
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces as gym_spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from cardarena.server.games import Game, new_game

from . import spaces
from .spaces import place_rewards, score_rewards, score_scale

__all__ = ["ActionSpace", "CardArenaEnv", "CardArenaParallelEnv", "IllegalActionId", "env", "parallel_env", "raw_env",
           "place_rewards", "score_rewards", "score_scale"]

REWARDS = ("place", "score")
RENDER_MODES = (None, "human", "ansi")
#: what a pickled CardArenaEnv leaves out and makes again
_REBUILT = ("codec", "_no_actions", "_decisions", "_observations", "_views", "_masks")
#: the masks an environment keeps for reuse, by legal ids, at most (then it starts again)
MASKS_KEPT = 4096


class IllegalActionId(ValueError):
    """An action id that is not among the legal actions of the seat to act."""


class ActionSpace(gym_spaces.Discrete):
    """``Discrete(num_actions)``, an agent's action space. ``sample(mask)`` draws exactly what
    gymnasium's would from the same generator; given the mask the environment made for the
    agent's decision it skips checking and scanning the mask, whose legal ids it was told."""

    def __init__(self, n: int):
        super().__init__(n)
        self._known: tuple[np.ndarray, list[int]] | None = None  # a mask and its ids, increasing

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        known = self._known
        if known is not None and mask is known[0] and probability is None:
            ids = known[1]
            # Generator.choice(ids) draws integers(0, len(ids)) and takes that element
            return self.start + self.dtype.type(ids[self.np_random.integers(0, len(ids))]) if ids else self.start
        return super().sample(mask, probability)

    def contains(self, x: Any) -> bool:
        if (type(x) is int or type(x) is np.int64) and 0 <= x < self.n and not self.start:
            return True
        return super().contains(x)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_known"] = None
        return state


class CardArenaEnv(AECEnv):
    """One cardarena game as a PettingZoo AEC environment (see docs/research.md)."""

    def __init__(self, game: str, players: int, render_mode: str | None = None,
                 reward: str = "place", **options: Any):
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        _check_render_mode(render_mode)
        self.codec = spaces.codec(game, players, options)
        self.game_id = game
        self.players = players
        self.options = self.codec.options
        self.reward_kind = reward
        self.render_mode = render_mode
        self.metadata = {"name": f"cardarena_{game.replace('-', '_')}", "render_modes": ["human", "ansi"],
                         "is_parallelizable": False}
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self._zero_rewards = dict.fromkeys(self.possible_agents, 0)
        # one space object per agent, always the same one (api_test checks), seeded on its own
        self.observation_spaces = {a: gym_spaces.Dict({
            "observation": gym_spaces.Box(-np.inf, np.inf, self.codec.observation_shape, np.float32),
            "action_mask": gym_spaces.Box(0, 1, (self.codec.num_actions,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: ActionSpace(self.codec.num_actions) for a in self.possible_agents}
        self._no_actions = np.zeros(self.codec.num_actions, dtype=np.int8)
        self._no_actions.flags.writeable = False
        self._masks: dict[tuple[int, ...], tuple[np.ndarray, list[int]]] = {}
        self._seeds = random.Random()
        self.game: Game | None = None
        self.agents = []

    # ----- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gym_spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym_spaces.Space:
        return self.action_spaces[agent]

    # ----- the match ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
            match_seed = seed
        else:
            match_seed = self._seeds.getrandbits(62)
        self.game = new_game(self.game_id, self.players, match_seed, self.options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._events = self.game.opening_events()
        self._next_step()
        if self.render_mode == "human":
            self.render()

    def _next_step(self) -> None:
        """The seats of the new step: the first to choose is ``agent_selection``."""
        self._pending: dict[int, Any] = {}
        self._queue = list(self.game.to_act())
        self._decisions: dict[int, tuple[list, tuple[int, ...], np.ndarray]] = {}
        self._observations: dict[int, np.ndarray] = {}
        self._views: dict[int, dict] = {}
        self.agent_selection = self.possible_agents[self._queue[0]]

    def _decision(self, seat: int) -> tuple[list, tuple[int, ...], np.ndarray]:
        """The seat's legal actions, their ids and the mask, made once a step (the agent's
        action space is told the mask's ids, for ``sample``). Decisions with the same legal ids
        share one read-only mask."""
        d = self._decisions.get(seat)
        if d is None:
            actions = self.game.legal_actions(seat)
            ids = tuple(self.codec.engine_ids(self.game, actions))
            made = self._masks.get(ids)
            if made is None:
                mask = np.zeros(self.codec.num_actions, dtype=np.int8)
                mask[list(ids)] = 1
                mask.flags.writeable = False
                if len(self._masks) >= MASKS_KEPT:
                    self._masks.clear()
                made = self._masks[ids] = (mask, sorted(ids))
            d = self._decisions[seat] = (actions, ids, made[0])
            self.action_spaces[self.possible_agents[seat]]._known = made
        return d

    def _view(self, seat: int) -> dict:
        """The seat's view, read only here. In a sealed step the views of every seat to choose
        are made together (``game.views``: the parts they share are built once)."""
        view = self._views.get(seat)
        if view is None:
            queue = self._queue
            if len(queue) > 1 and seat in queue:
                self._views = self.game.views(queue)
                view = self._views[seat]
            else:
                view = self._views[seat] = self.game.view(seat)
        return view

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The seat's observation and mask. Both are made once a step and shared by every call
        in it, so they are read-only arrays (copy one to change it)."""
        seat = self._seat_of[agent]
        obs = self._observations.get(seat)
        if obs is None:
            obs = self._observations[seat] = self.codec.observe(self._view(seat))
            obs.flags.writeable = False
        return {"observation": obs,
                "action_mask": self._decision(seat)[2] if seat in self._queue else self._no_actions}

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict]:
        agent = self.agent_selection
        assert agent is not None
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def _clear_rewards(self) -> None:
        rewards = self.rewards
        if len(rewards) == len(self._zero_rewards):
            rewards.update(self._zero_rewards)  # every agent's 0 at once
        else:
            super()._clear_rewards()

    def _accumulate_rewards(self) -> None:
        if any(self.rewards.values()):  # adding zeros changes nothing
            super()._accumulate_rewards()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        queue = self._queue
        seat = queue[0]
        i = _legal_index(self, seat, action)
        if i is None:
            raise IllegalActionId(f"{self.game_id}: seat {seat} has no legal action with id {action!r} now")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._pending[seat] = self._decisions[seat][0][i]
        queue.pop(0)
        if queue:  # a sealed step: wait for the others, reveal nothing
            self.agent_selection = self.possible_agents[queue[0]]
        else:
            self._events = self.game.apply(self._pending)
            if self.game.is_over():
                self._end()
            else:
                self._next_step()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end(self, rewards: list[float] | None = None) -> None:
        """Every agent terminated with its reward: by default the finished match's."""
        if rewards is None and self.reward_kind == "place":
            rewards = place_rewards(self.game.result())
        elif rewards is None:
            rewards = score_rewards(self.game.result(), score_scale(self.game_id, self.options))
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = rewards[seat]
            self.terminations[agent] = True
        self._pending, self._queue, self._decisions, self._observations, self._views = {}, [], {}, {}, {}

    # ----- words ----------------------------------------------------------------------------
    def render(self) -> str | None:
        return _render(self.render_mode, self.text)

    def text(self, agent: str | None = None) -> str:
        """The match in words as ``agent`` (default: the seat to act) sees it now."""
        game = self.game
        if game is None:
            return f"{self.game_id}: not started (call reset)"
        agent = agent or self.agent_selection
        seat = int(agent[5:])
        lines = [f"{game.title or self.game_id}, {self.players} seats: as {agent} sees it"]
        lines += [f"  {game.event_text(ev.data)}" for ev in self._events if ev.visible_to(seat)]
        for key, value in game.view(seat).items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                lines.append(f"{key}:")  # one line each: the rows, the seats
                lines += [f"  {i}: {_words(v)}" for i, v in enumerate(value)]
            else:
                lines.append(f"{key}: {_words(value)}")
        if game.is_over():
            r = game.result()
            lines.append("over: " + ", ".join(f"seat {s} place {p} score {sc:g}"
                                              for s, (p, sc) in enumerate(zip(r.places, r.scores))))
        elif seat in self._queue:
            actions = self._decision(seat)[0]
            lines.append(f"{agent} to choose:")
            lines += [f"  [{aid}] {game.action_label(a)}"
                      for a, aid in zip(actions, self.codec.engine_ids(game, actions))]
        else:
            waiting = ", ".join(self.possible_agents[s] for s in self._queue)
            lines.append(f"waiting for {waiting}")
        return "\n".join(lines)

    def close(self) -> None:
        pass

    # ----- pickling -------------------------------------------------------------------------
    def __getstate__(self) -> dict:
        """Everything but the codec (made again from the game, players and options) and what
        each step builds from the engine on demand (legal actions, masks, observations)."""
        state = self.__dict__.copy()
        for key in _REBUILT:
            state.pop(key, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_seat_of", {a: s for s, a in enumerate(self.possible_agents)})
        self.__dict__.setdefault("_zero_rewards", dict.fromkeys(self.possible_agents, 0))
        self.codec = spaces.codec(self.game_id, self.players, self.options)
        self._no_actions = np.zeros(self.codec.num_actions, dtype=np.int8)
        self._no_actions.flags.writeable = False
        self._masks = {}
        if "_queue" in state:  # reset: the step's decisions, views and observations are made anew
            self._decisions, self._observations, self._views = {}, {}, {}


raw_env = CardArenaEnv


# ----- PettingZoo's wrappers, without their lookups ---------------------------------------------
# PettingZoo's BaseWrapper finds the raw environment's attributes (agent_selection, terminations,
# …) through __getattr__ at every level, some 30 lookups a decision through three wrappers. These
# subclasses do what theirs do, reading the raw environment directly on the paths every step
# takes (the rest, and every attribute a caller reads, is PettingZoo's own code).

class _TerminateIllegal(wrappers.TerminateIllegalWrapper):
    def __init__(self, env: CardArenaEnv, illegal_reward: float):
        super().__init__(env, illegal_reward)
        self._raw = env

    def observe(self, agent: str):
        raw = self._raw
        obs = raw.observe(agent)
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action) -> None:
        raw = self._raw
        agent = raw.agent_selection
        prev = self._prev_obs
        if (type(prev) is dict and not self._terminated and (type(action) is int or type(action) is np.int64)
                and not raw.terminations[agent] and not raw.truncations[agent] and prev["action_mask"][action]):
            self._prev_obs = self._prev_info = None  # legal: step on, as PettingZoo's does
            raw.step(action)
        else:
            super().step(action)

    def action_space(self, agent: str) -> gym_spaces.Space:
        return self._raw.action_space(agent)


class _AssertOutOfBounds(wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env: _TerminateIllegal):
        super().__init__(env)
        self._raw = env._raw

    def step(self, action) -> None:
        raw = self._raw
        agent = raw.agent_selection
        assert (action is None and (raw.terminations[agent] or raw.truncations[agent])) or \
            raw.action_space(agent).contains(action), "action is not in action space"
        self.env.step(action)

    def action_space(self, agent: str) -> gym_spaces.Space:
        return self._raw.action_space(agent)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    def __init__(self, env: _AssertOutOfBounds):
        super().__init__(env)
        self._raw = env._raw

    def step(self, action) -> None:
        if self._has_reset and self._raw.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def observe(self, agent: str):
        if self._has_reset:
            return self.env.observe(agent)
        return super().observe(agent)

    def last(self, observe: bool = True):
        if not self._has_reset:
            return super().last(observe)
        raw = self._raw
        agent = raw.agent_selection
        assert agent is not None
        return (self.observe(agent) if observe else None, raw._cumulative_rewards[agent],
                raw.terminations[agent], raw.truncations[agent], raw.infos[agent])

    def action_space(self, agent: str) -> gym_spaces.Space:
        return self._raw.action_space(agent)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            return super().agent_iter(max_iter)
        return _OrderEnforcingIterable(self, max_iter)


class _OrderEnforcingIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECOrderEnforcingIterator):
    def __next__(self) -> str:
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection


def env(game: str, players: int, render_mode: str | None = None, reward: str = "place",
        **options: Any) -> AECEnv:
    """The environment of ``game`` at ``players`` seats with the game's ``options``, wrapped as
    PettingZoo's classic games are (an illegal id ends the match with −1 for its agent):
    ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``."""
    e: AECEnv = CardArenaEnv(game, players, render_mode=render_mode, reward=reward, **options)
    return _OrderEnforcing(_AssertOutOfBounds(_TerminateIllegal(e, illegal_reward=-1)))


class CardArenaParallelEnv(ParallelEnv):
    """One cardarena game as a PettingZoo parallel environment over :class:`CardArenaEnv`
    (see "Parallel play" in docs/research.md)."""

    def __init__(self, game: str, players: int, render_mode: str | None = None,
                 reward: str = "place", **options: Any):
        self.aec = CardArenaEnv(game, players, reward=reward, **options)
        _check_render_mode(render_mode)
        self.render_mode = render_mode
        self.metadata = self.aec.metadata
        self.possible_agents = self.aec.possible_agents
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces
        self.agents = []

    def observation_space(self, agent: str) -> gym_spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym_spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        if self.render_mode == "human":
            self.render()
        return {a: self.aec.observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions: Mapping[str, int]):
        aec = self.aec
        agents = self.agents
        seats = list(aec._queue)
        offenders = [s for s in seats if _legal_index(aec, s, actions.get(agents[s])) is None]
        if offenders:  # the match ends here, as TerminateIllegalWrapper ends it
            aec._end([-1.0 if s in offenders else 0.0 for s in range(len(agents))])
        else:
            for s in seats:
                aec.step(actions[agents[s]])
        out = ({a: aec.observe(a) for a in agents}, dict(aec.rewards), dict(aec.terminations),
               dict(aec.truncations), {a: {} for a in agents})
        if all(aec.terminations.values()):
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return out

    def render(self) -> str | None:
        return _render(self.render_mode, self.aec.text)

    def close(self) -> None:
        pass


def parallel_env(game: str, players: int, render_mode: str | None = None, reward: str = "place",
                 **options: Any) -> ParallelEnv:
    """The parallel environment of ``game`` at ``players`` seats with the game's ``options``."""
    return CardArenaParallelEnv(game, players, render_mode=render_mode, reward=reward, **options)


def _check_render_mode(render_mode: str | None) -> None:
    if render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")


def _render(render_mode: str | None, text) -> str | None:
    """``text()`` returned (ansi) or printed (human); a warning without a render mode."""
    if render_mode is None:
        gymnasium.logger.warn("render() was called without a render_mode (use 'ansi' or 'human')")
        return None
    if render_mode == "human":
        print(text())
        return None
    return text()


def _legal_index(aec: CardArenaEnv, seat: int, action: Any) -> int | None:
    """The index among the seat's legal actions of the one with id ``action`` (None if none)."""
    ids = aec._decision(seat)[1]
    try:
        return ids.index(int(action))
    except (TypeError, ValueError):
        return None


def _words(value: Any) -> str:
    """A view value in a line: lists of cards as "7♠ 9♥", nested parts compactly."""
    if isinstance(value, list):
        if all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            return " ".join(map(str, value)) if value else "—"
        return " | ".join(_words(v) for v in value) if value else "—"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items())
    return str(value)
