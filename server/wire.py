"""Translation between the engines' plain-JSON forms and the protobuf messages of proto/.

The engines produce views, actions and events as plain dicts (base.py); each game's typed view
and action messages have exactly those fields (checked by the conformance suite), so the
translation is generic: the dict is parsed into the message of the game's oneof field.
"""
from __future__ import annotations

import json
from functools import lru_cache

from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct

from cardarena.v1 import referee_pb2 as pb

from .games import Game, Result


@lru_cache(maxsize=None)
def oneof_field(game_id: str) -> str:
    """The field of the game in the Decision.view and Action.action oneofs: "sixth-card" → "sixth_card"."""
    name = game_id.replace("-", "_")
    if name not in pb.Decision.DESCRIPTOR.fields_by_name:
        raise LookupError(f"the protocol has no view for game {game_id!r}")
    return name


def fill(msg, data: dict):
    """Set ``msg``'s fields from the plain dict of its JSON form (field names as in the .proto).

    The same result as ``json_format.ParseDict`` for the shapes the engines produce (scalars,
    repeated fields, nested messages, oneofs), several times faster; the conformance suite checks
    that both agree for every game. An unknown key raises ``KeyError``.
    """
    fields = msg.DESCRIPTOR.fields_by_name
    for key, value in data.items():
        fd = fields[key]
        if fd.is_repeated:
            if fd.message_type is not None:
                rep = getattr(msg, key)
                for item in value:
                    fill(rep.add(), item)
            else:
                getattr(msg, key).extend(value)
        elif fd.message_type is not None:
            fill(getattr(msg, key), value)
        else:
            setattr(msg, key, value)
    return msg


def struct(data: dict) -> Struct:
    s = Struct()
    s.update(data)
    return s


def event_message(game: Game, data: dict) -> pb.Event:
    return pb.Event(type=str(data.get("type", "")), text=game.event_text(data),
                    data_json=json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def decision_message(game: Game, match_id: str, seat: int, decision_id: int, view: dict,
                     actions: list, events: list[dict], time_left: float, bank_left: float,
                     event_cache: dict | None = None) -> pb.RefereeMessage:
    """The Decision for one seat. ``event_cache`` (one dict per match) keeps each event's
    message, built once however many seats see it; the match log keeps the dicts alive, so
    their ids are stable keys."""
    field = oneof_field(game.id)
    msg = pb.RefereeMessage()
    d = msg.decision  # filled in place: no copy of the whole decision at the end
    d.match_id, d.seat, d.decision_id, d.game = match_id, seat, decision_id, game.id
    d.time_left, d.bank_left = time_left, bank_left
    fill(getattr(d, field), view)
    if event_cache is None:
        d.events.extend(event_message(game, data) for data in events)
    else:
        for data in events:
            ev = event_cache.get(id(data))
            if ev is None:
                ev = event_cache[id(data)] = event_message(game, data)
            d.events.append(ev)
    cache = _action_cache.setdefault(type(game), {})
    for action in actions:
        label = game.action_label(action)
        built = cache.get((action, label))
        if built is None:
            built = pb.Action(label=label)
            fill(getattr(built, field), game.action_json(action))
            if len(cache) < 100_000:
                cache[(action, label)] = built
        d.actions.append(built)
    return msg


# An action's message depends only on the action and its label (action_json is a function of
# the action), so each is built once per game and copied into every decision that lists it.
_action_cache: dict[type, dict] = {}


def seat_results(result: Result | None, bots: list[str], faults: list[int], forfeited: list[bool]) -> list[pb.SeatResult]:
    out = []
    for seat, bot in enumerate(bots):
        r = pb.SeatResult(seat=seat, bot=bot, faults=faults[seat], forfeited=forfeited[seat])
        if result is not None:
            r.score = float(result.scores[seat])
            r.place = int(result.places[seat])
        out.append(r)
    return out


def to_dict(message) -> dict:
    """A message as the engines' plain JSON (field names as in the .proto, defaults included)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)
