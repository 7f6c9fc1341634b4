"""cardarena's Python bot SDK (import ``cardarena.client``).

``run(bot)`` plays ``bot`` (a function from :class:`Decision` to an action index) against the
referee named by ``CARDARENA_ADDRESS`` with the token ``CARDARENA_TOKEN``. See ``bot.py``.
"""
from .bot import BotError, Decision, play, run
from .deal import deal_commitment  # the deal's commitment, to check a MatchEnd's seed and salt by hand
from .policy import policy_bot  # a PettingZoo- or OpenSpiel-style policy as a bot (the research extra)

__all__ = ["BotError", "Decision", "deal_commitment", "play", "policy_bot", "run"]
