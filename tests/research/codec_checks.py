"""The per-decision checks the codec tests of Unsorted, Scouting and SCOUT share."""
from __future__ import annotations

from collections.abc import Sequence

from cardarena.research.spaces import Codec


def check_decision(codec: Codec, legal: Sequence[dict]) -> None:
    """One decision's legal actions (their JSON) have distinct ids below ``num_actions``;
    ``action_json_of`` gives back each id's fields, and ``pick`` each action's index."""
    ids = codec.ids(legal)
    assert len(set(ids)) == len(ids) and max(ids) < codec.num_actions, legal
    for index, (i, j) in enumerate(zip(ids, legal)):
        (key, fields), = codec.action_json_of(i).items()
        assert all(j[key][f] == v for f, v in fields.items()), (i, j)
        assert codec.pick(legal, i) == index
