"""Ready-made strategies, one module per game: ``choose(view, actions) -> index``.

They read only what a bot is sent (the view dict and the legal actions' JSON), so the same
function plays in-process (``cardarena.server.match.StrategyBot``) and over gRPC (the example
bots in examples/python).
"""
import importlib

MODULES = {
    "sixth-card": "sixth_card",
    "unsorted": "unsorted",
    "scouting": "scout",
    "scout": "scout",
    "three-thirteen": "three_thirteen",
}


def for_game(game_id: str):
    """The heuristic ``choose`` function of a game."""
    return importlib.import_module(f"{__name__}.{MODULES[game_id]}").choose
