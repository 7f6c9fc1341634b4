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


_event_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


def event_message(game: Game, data: dict) -> pb.Event:
    return pb.Event(type=str(data.get("type", "")), text=game.event_text(data), data_json=_event_json(data))


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number: int, body: bytes) -> bytes:
    """One length-delimited field (a string or a message) in protobuf wire format."""
    return _varint(number << 3 | 2) + _varint(len(body)) + body


_DECISION = pb.RefereeMessage.DESCRIPTOR.fields_by_name["decision"].number
_EVENTS = pb.Decision.DESCRIPTOR.fields_by_name["events"].number
_ACTIONS = pb.Decision.DESCRIPTOR.fields_by_name["actions"].number


@lru_cache(maxsize=None)
def _view_class(game_id: str):
    """The game's view message class and its field number in the Decision.view oneof."""
    fd = pb.Decision.DESCRIPTOR.fields_by_name[oneof_field(game_id)]
    return type(getattr(pb.Decision(), fd.name)), fd.number


def decision_bytes(game: Game, match_id: str, seat: int, decision_id: int, view: dict,
                   actions: list, events: list[dict], time_left: float, bank_left: float,
                   event_cache: dict | None = None, shared: dict | None = None) -> bytes:
    """The ``RefereeMessage`` holding one seat's Decision, already in wire format.

    Protobuf's wire format is a concatenation of fields, so the decision is assembled from
    parts: the scalar fields and the view are serialised here, and each event and each action
    is serialised once and reused. ``event_cache`` (one dict per match) keeps each event's
    bytes, built once however many seats see it; the match log keeps the dicts alive, so their
    ids are stable keys. The view is built by the message constructor, which rejects a key the
    proto does not have, like :func:`fill`; the conformance suite checks that the bytes parse
    to the same message as ``json_format`` gives.

    ``shared`` (one dict per step, for the decisions of seats acting together) keeps the bytes
    of each list or dict in the view by the object's identity: a part that several seats' views
    share (``Game.views``) is encoded once. Identity is safe only while nothing changes, that
    is within one step, so the caller starts a new dict for every step.
    """
    view_cls, view_number = _view_class(game.id)
    if shared is None:
        view_body = view_cls(**view).SerializeToString()
    else:
        own, chunks = {}, []
        for key, value in view.items():
            if type(value) is list or type(value) is dict:
                hit = shared.get(key)
                if hit is None or hit[0] is not value:
                    hit = shared[key] = (value, view_cls(**{key: value}).SerializeToString())
                chunks.append(hit[1])
            else:
                own[key] = value
        chunks.append(view_cls(**own).SerializeToString())
        view_body = b"".join(chunks)
    parts = [pb.Decision(match_id=match_id, seat=seat, decision_id=decision_id, game=game.id,
                         time_left=time_left, bank_left=bank_left).SerializeToString(),
             _field(view_number, view_body)]
    if event_cache is None:
        event_cache = {}
    for data in events:
        ev = event_cache.get(id(data))
        if ev is None:
            ev = event_cache[id(data)] = _field(_EVENTS, event_message(game, data).SerializeToString())
        parts.append(ev)
    cache = _action_cache.setdefault(type(game), {})
    label = game.action_label
    for action in actions:
        text = label(action)
        built = cache.get((action, text))
        if built is None:
            msg = pb.Action(label=text)
            fill(getattr(msg, oneof_field(game.id)), game.action_json(action))
            built = _field(_ACTIONS, msg.SerializeToString())
            if len(cache) < 100_000:
                cache[(action, text)] = built
        parts.append(built)
    return _field(_DECISION, b"".join(parts))


def serialize(message) -> bytes:
    """The Play stream's serializer: a message, or bytes already in wire format."""
    return message if type(message) is bytes else message.SerializeToString()


# An action's bytes depend only on the action and its label (action_json is a function of
# the action), so each is built once per game and reused in every decision that lists it.
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
