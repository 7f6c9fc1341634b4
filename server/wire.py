"""Translation between the engines' plain-JSON forms and the protobuf messages of proto/.

The engines produce views, actions and events as plain dicts (base.py); each game's typed view
and action messages have exactly those fields (checked by the conformance suite), so the
translation is generic: the dict is parsed into the message of the game's oneof field. The
referee's decisions are assembled as wire-format bytes from parts encoded once (docs/conduct.md,
"The cost of a decision").
"""
from __future__ import annotations

import json
from collections.abc import Sequence
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


if json.encoder.c_make_encoder is not None:
    # what JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
    # runs for a dict, made once instead of at every call
    _chunks = json.encoder.c_make_encoder(None, json.JSONEncoder().default, json.encoder.encode_basestring, None,
                                          ":", ",", False, False, True)

    def _event_json(data: dict, _chunks=_chunks) -> str:
        return "".join(_chunks(data, 0))
else:
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


_SMALLS = 4096
_SMALL = tuple(_varint(n) for n in range(_SMALLS))  # the varints of 0 … 4095, ready-made


def _field(number: int, body: bytes) -> bytes:
    """One length-delimited field (a string or a message) in protobuf wire format."""
    n = len(body)
    return _varint(number << 3 | 2) + (_SMALL[n] if n < _SMALLS else _varint(n)) + body


_DECISION = pb.RefereeMessage.DESCRIPTOR.fields_by_name["decision"].number
_EVENTS = pb.Decision.DESCRIPTOR.fields_by_name["events"].number
_ACTIONS = pb.Decision.DESCRIPTOR.fields_by_name["actions"].number
_KEPT = 100_000  # actions' bytes kept, per game


def _tag(message, name: str, wire_type: int) -> bytes:
    return _varint(message.DESCRIPTOR.fields_by_name[name].number << 3 | wire_type)


_EVENT_TYPE, _EVENT_TEXT, _EVENT_JSON = (_tag(pb.Event, n, 2) for n in ("type", "text", "data_json"))


def event_bytes(game: Game, data: dict) -> bytes:
    """One event as ``event_message(game, data).SerializeToString()`` gives it, built by hand."""
    text = game.event_text(data)
    if type(text) is not str:
        raise TypeError(f"{game.id}: event_text gave a {type(text).__name__}, not a str")
    kind = data.get("type", "")
    kind = (kind if type(kind) is str else str(kind)).encode()
    text = text.encode()
    js = _event_json(data).encode()
    parts = []
    if kind:
        parts += (_EVENT_TYPE, _SMALL[len(kind)] if len(kind) < _SMALLS else _varint(len(kind)), kind)
    if text:
        parts += (_EVENT_TEXT, _SMALL[len(text)] if len(text) < _SMALLS else _varint(len(text)), text)
    parts += (_EVENT_JSON, _SMALL[len(js)] if len(js) < _SMALLS else _varint(len(js)), js)  # never empty: "{…}"
    return b"".join(parts)


_EVENTS_TAG = _varint(_EVENTS << 3 | 2)


def _event_field(game: Game, data: dict) -> bytes:
    """An event as one field of a Decision (``events``)."""
    body = event_bytes(game, data)
    n = len(body)
    return b"".join((_EVENTS_TAG, _SMALL[n] if n < _SMALLS else _varint(n), body))


class _ViewCoder:
    """Encodes one game's views with the message constructor (which rejects a key the proto
    does not have, or a value of the wrong type, as :func:`fill` does): a view at once, or a
    seat's own part beside its step's common part (:class:`StepViews`)."""

    __slots__ = ("cls", "tag")

    def __init__(self, game_id: str):
        fd = pb.Decision.DESCRIPTOR.fields_by_name[oneof_field(game_id)]
        self.cls = type(getattr(pb.Decision(), fd.name))
        self.tag = _varint(fd.number << 3 | 2)  # the view's field in a Decision

    def encode(self, view: dict, shared: "dict | StepViews | None") -> bytes:
        cls = self.cls
        if shared is None:
            return cls(**view).SerializeToString()
        if type(shared) is StepViews:
            if view.keys() == shared.keys:
                own = {k: view[k] for k in shared.own}
            else:
                public = shared.public
                own = {k: v for k, v in view.items() if k not in public}
            return cls(**own).SerializeToString() + shared.blob
        own, chunks = {}, []  # a dict of the step's lists and dicts by identity
        for key, value in view.items():
            if type(value) is list or type(value) is dict:
                hit = shared.get(key)
                if hit is None or hit[0] is not value:
                    hit = shared[key] = (value, cls(**{key: value}).SerializeToString())
                chunks.append(hit[1])
            else:
                own[key] = value
        chunks.append(cls(**own).SerializeToString())
        return b"".join(chunks)


_NOTHING = object()


class StepViews:
    """The views of the seats acting together in one step (``Game.views``), their common part
    encoded once: the keys whose values are the same objects in every view. Made by the caller
    from exactly the views it then encodes, within the step (identity says nothing once the
    game has moved on)."""

    __slots__ = ("public", "blob", "keys", "own")

    def __init__(self, game: Game, views: Sequence[dict]):
        first, rest = views[0], views[1:]
        public, own = [], []
        for key, value in first.items():
            for other in rest:
                if other.get(key, _NOTHING) is not value:
                    own.append(key)
                    break
            else:
                public.append((key, value))
        self.public = {key for key, _ in public}
        self.blob = _view_coder(game.id).cls(**dict(public)).SerializeToString()  # one call: the cheapest
        self.keys = first.keys()  # a view with these keys has its own part under ``own``
        self.own = own


@lru_cache(maxsize=None)
def _view_coder(game_id: str) -> _ViewCoder:
    return _ViewCoder(game_id)


class _GameCoder:
    """What :func:`decision_bytes` keeps for one game class: its view coder, its actions' bytes,
    and whether its action labels are a function of the action alone (a static or class method,
    which can read no game's state): then an action's bytes are kept by the action alone."""

    __slots__ = ("view", "actions", "stateless")

    def __init__(self, game: Game):
        from .match import stateless_words
        self.view = _view_coder(game.id)
        self.actions: dict = {}
        self.stateless = stateless_words(type(game))[0] is not None


_game_coders: dict[type, _GameCoder] = {}


def decision_bytes(game: Game, match_id: str, seat: int, decision_id: int, view: dict,
                   actions: list, events: list[dict], time_left: float, bank_left: float,
                   event_cache: dict | None = None, shared: "dict | StepViews | None" = None) -> bytes:
    """The ``RefereeMessage`` holding one seat's Decision, already in wire format.

    Protobuf's wire format is a concatenation of fields, in any order, so the decision is
    assembled from parts, each encoded once and reused where it can be: the scalar fields and
    the view by the message constructors (one call each: cheaper than any encoding by hand in
    Python); each event by hand, once a match (``event_cache``, one dict per match, keeps each
    event's bytes by the id of its dict, which the match log keeps alive); each action once a
    game (by the action and its label, or by the action alone where the label is a function of
    it). The conformance suite checks that the bytes parse to the same message as
    ``json_format`` gives.

    ``shared``, for the decisions of seats acting together (``Game.views`` may share parts
    between their views): a :class:`StepViews` of the step's views, whose common part is encoded
    once; or a dict, new for every step, that keeps the bytes of each list or dict of the views
    by the object's identity. Identity is safe only while nothing changes, within one step.
    """
    gc = _game_coders.get(type(game))
    if gc is None:
        gc = _game_coders[type(game)] = _GameCoder(game)
    coder = gc.view
    view_body = coder.encode(view, shared)
    n = len(view_body)
    parts = [pb.Decision(match_id=match_id, seat=seat, decision_id=decision_id, game=game.id,
                         time_left=time_left, bank_left=bank_left).SerializeToString(),
             coder.tag, _SMALL[n] if n < _SMALLS else _varint(n), view_body]
    if event_cache is None:
        event_cache = {}
    for data in events:
        ev = event_cache.get(id(data))
        if ev is None:
            ev = event_cache[id(data)] = _event_field(game, data)
        parts.append(ev)
    cache = gc.actions
    if gc.stateless:
        for action in actions:
            built = cache.get(action)
            if built is None:
                built = _action_bytes(game, action, game.action_label(action))
                if len(cache) < _KEPT:
                    cache[action] = built
            parts.append(built)
    else:
        label = game.action_label
        for action in actions:
            text = label(action)
            built = cache.get((action, text))
            if built is None:
                built = _action_bytes(game, action, text)
                if len(cache) < _KEPT:
                    cache[(action, text)] = built
            parts.append(built)
    body = b"".join(parts)
    n = len(body)
    return _DECISION_TAG + (_SMALL[n] if n < _SMALLS else _varint(n)) + body


_DECISION_TAG = _varint(_DECISION << 3 | 2)


def _action_bytes(game: Game, action, text: str) -> bytes:
    msg = pb.Action(label=text)
    fill(getattr(msg, oneof_field(game.id)), game.action_json(action))
    return _field(_ACTIONS, msg.SerializeToString())


def serialize(message) -> bytes:
    """The Play stream's serializer: a message, or bytes already in wire format."""
    return message if type(message) is bytes else message.SerializeToString()




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
