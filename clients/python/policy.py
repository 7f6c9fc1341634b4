"""A policy from the lab as a bot in the arena: PettingZoo-style or OpenSpiel-style, unchanged.

:func:`policy_bot` wraps a policy in a bot object for :func:`cardarena.client.run`::

    import numpy as np
    from cardarena.client import run
    from cardarena.client.policy import policy_bot

    def masked_random(obs):                    # what cardarena.research.pettingzoo gives an agent
        return int(np.random.choice(np.flatnonzero(obs["action_mask"])))

    run(policy_bot(masked_random))             # kind="pettingzoo", the default

Each decision is answered from ``decision.view`` and ``decision.actions`` alone: through the
game's :mod:`~cardarena.research.spaces` codec (``kind="pettingzoo"``), or from a game rebuilt
from the view (``kind="openspiel"``: :func:`cardarena.research.from_view.determinize`, then a
state of ``cardarena_<id>``). An action id that is not legal now raises :class:`ValueError` in
the bot, and the referee's deadline plays the default action (a fault). numpy, PettingZoo and
OpenSpiel are imported only when a policy bot is made. A policy bot pickles (to a worker
process, into a checkpoint) if its policy does, and plays on as it would have.

The bot author's guide: clients/README.md ("A policy from the lab as a bot").
"""
from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Callable, Mapping
from typing import Any

from .bot import Decision, _ints

__all__ = ["KINDS", "PolicyBot", "ResearchExtraMissing", "policy_bot"]

KINDS = ("pettingzoo", "openspiel")
INSTALL = "pip install 'cardarena[research]'"


class ResearchExtraMissing(ImportError):
    """numpy, PettingZoo or OpenSpiel is not installed."""


def _research(module: str):
    """``cardarena.research.<module>``, or one clear line saying what to install."""
    try:
        return importlib.import_module(f"cardarena.research.{module}")
    except ImportError as e:
        missing = getattr(e, "name", None) or "a research package"
        raise ResearchExtraMissing(
            f"cardarena.client.policy needs the research extra ({missing} is missing): {INSTALL}") from None


def _takes_two(fn: Callable) -> bool:
    """Whether ``fn`` takes (observation, action_mask) rather than the one observation dict."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 and positional[1].default is inspect.Parameter.empty


class PolicyBot:
    """A bot (``decide``, ``on_start``, ``on_end``) that answers with a policy's action ids."""

    def __init__(self, policy: Any, kind: str = "pettingzoo", *, seed: int | None = None,
                 turn_based: bool = True, **params: Any):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        self.policy, self.kind = policy, kind
        self._spaces = _research("spaces")
        if kind == "openspiel":
            self._from_view = _research("from_view")
            self._spiel = _research("openspiel")
            self._params = {"turn_based": turn_based, **params}
        else:
            self._two = _takes_two(policy)
        self._rng = random.Random(seed)
        self._matches: dict[str, tuple[str, int, dict]] = {}  # match id → game, seats, options
        self._codecs: dict[tuple, Any] = {}
        self._policies: dict[tuple, Any] = {}  # (game, seats, options) → the OpenSpiel bot or policy

    # ----- the SDK's callbacks -------------------------------------------------------------
    def on_start(self, match_start) -> None:
        from google.protobuf import json_format
        options = _ints(json_format.MessageToDict(match_start.options)) if match_start.HasField("options") else {}
        self.start(match_start.match_id, match_start.game, len(match_start.players), options)

    def start(self, match_id: str, game_id: str, players: int, options: Mapping | None = None) -> None:
        """What ``on_start`` learns from the referee, told by hand (in-process matches; without
        it a decision's own game id, the view's ``players`` and the default options are used)."""
        self._matches[match_id] = (game_id, players, dict(options or {}))

    def on_end(self, match_end) -> None:
        self._matches.pop(match_end.match_id, None)

    def decide(self, decision: Decision) -> int:
        """The index in ``decision.actions`` of the policy's action. An in-process decision
        (:class:`cardarena.server.match.Decision`, whose wire forms are ``actions_json``) works
        too, so the same bot plays ``play_match``."""
        view = decision.view
        actions = getattr(decision, "actions_json", None) or decision.actions
        game_id, players, options = self._matches.get(
            decision.match_id, (getattr(decision, "game", None) or decision.game_id, view.get("players", 0), {}))
        key = (game_id, players, tuple(sorted(options.items())))
        codec = self._codecs.get(key)
        if codec is None:
            codec = self._codecs[key] = self._spaces.codec(game_id, players, options)
        if self.kind == "pettingzoo":
            action_id = self._pettingzoo(codec, view, actions)
        else:
            action_id = self._openspiel(key, view)
        return codec.pick(actions, int(action_id))

    __call__ = decide

    # ----- the two kinds --------------------------------------------------------------------
    def _pettingzoo(self, codec, view: Mapping, actions: list[dict]) -> int:
        observation, mask = codec.observe(view), codec.mask(actions)
        if self._two:
            return self.policy(observation, mask)
        return self.policy({"observation": observation, "action_mask": mask})

    def _openspiel(self, key: tuple, view: Mapping) -> int:
        game_id, options = key[0], dict(key[2])
        engine = self._from_view.determinize(game_id, view, self._rng, options or None)
        state = self._spiel.state_for(engine, view["seat"], **self._params)
        # the factory's bot is made for the game the state belongs to (one per player count
        # and options: the engine's, every default filled in)
        made = (game_id, engine.players, tuple(sorted(engine.options.items())))
        policy = self._policies.get(made)
        if policy is None:
            policy = self.policy
            if not (hasattr(policy, "step") or hasattr(policy, "action_probabilities")):
                policy = policy(self._spiel.load(game_id, engine.players, engine.options, **self._params))
            self._policies[made] = policy
        if hasattr(policy, "step"):
            return policy.step(state)
        probs = policy.action_probabilities(state)
        return max(probs, key=probs.get)

    # ----- pickling -------------------------------------------------------------------------
    def __getstate__(self) -> dict:
        """The policy, the bots made from it, the determinization's generator and the matches
        started; not the research modules (imported again) nor the codecs (made again). A
        Python OpenSpiel bot (IS-MCTS, MCTS) pickles with its tree and its random state
        (:func:`cardarena.research.openspiel.picklable_bot`); the policy itself must pickle
        (a module-level function or class, not a lambda)."""
        state = self.__dict__.copy()
        for key in ("_spaces", "_from_view", "_spiel", "_codecs"):
            state.pop(key, None)
        if self.kind == "openspiel":
            wrapped: dict[int, Any] = {}  # one wrapper a bot: the policy may be a made bot too

            def picklable(bot: Any) -> Any:
                if id(bot) not in wrapped:
                    wrapped[id(bot)] = self._spiel.picklable_bot(bot)
                return wrapped[id(bot)]

            state["policy"] = picklable(self.policy)
            state["_policies"] = {key: picklable(bot) for key, bot in self._policies.items()}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._spaces = _research("spaces")
        if self.kind == "openspiel":
            self._from_view = _research("from_view")
            self._spiel = _research("openspiel")
        self._codecs = {}


def policy_bot(policy: Any, kind: str = "pettingzoo", *, seed: int | None = None,
               turn_based: bool = True, **params: Any) -> PolicyBot:
    """A bot for :func:`cardarena.client.run` that plays ``policy`` (see the module docstring).

    ``kind="openspiel"``: ``seed`` seeds the determinization; ``turn_based`` and ``params``
    (``seeds``, ``max_game_length``) are the OpenSpiel game's parameters besides the players
    and the options (:mod:`cardarena.research.openspiel`)."""
    return PolicyBot(policy, kind, seed=seed, turn_based=turn_based, **params)
