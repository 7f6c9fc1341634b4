"""cardarena's Python bot SDK (import ``cardarena.client``).

``run(bot)`` plays ``bot`` (a function from :class:`Decision` to an action index) against the
referee named by ``CARDARENA_ADDRESS`` with the token ``CARDARENA_TOKEN``. See ``bot.py``.
"""
from .bot import BotError, Decision, play, run

__all__ = ["BotError", "Decision", "play", "run"]
