"""cardarena.research: the engines as fixed-size spaces, PettingZoo environments and OpenSpiel games.

An optional extra (``pip install 'cardarena[research]'``: numpy, gymnasium, pettingzoo,
open_spiel); the server, the ledger and the bot SDK never import it. Layers, each built only on
the one before:

``spaces``      every game's :class:`~cardarena.research.spaces.Codec`: fixed action ids
                ``0 … num_actions − 1`` (``action_id`` and back, a legal-action mask) and the
                observation tensor of a view (fixed shape, documented layout, built from the view
                alone). It works on the view and action JSON, so the same codec serves the engines
                in-process and a bot over gRPC.
``pettingzoo``  ``env(game, players=…, **options)``: an AEC environment per game.
``openspiel``   importing it registers ``cardarena_<game_id>`` OpenSpiel Python games.
``from_view``   ``determinize(game_id, view, rng)``: an engine game a seat could be in, built
                from its view (search bots in the arena: ``cardarena.client.policy``).
``rollout``     a fast engine-level rollout evaluator for MCTS and IS-MCTS.

See ``bench/research.py`` for the speed of each layer.
"""
