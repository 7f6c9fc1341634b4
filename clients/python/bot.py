"""Run a bot against a cardarena referee.

A bot is a function (or an object with a ``decide`` method) that maps a :class:`Decision` to
the index of its choice in ``decision.actions``::

    import random
    from cardarena.client import run

    def bot(decision):
        return random.randrange(len(decision))  # the number of legal actions

    run(bot)   # address and token from CARDARENA_ADDRESS and CARDARENA_TOKEN

``run`` opens the one stream the protocol wants, says hello, answers decisions for every seat
the bot holds in any number of concurrent matches, reconnects after a lost connection (for up
to ``retry_seconds``; the referee re-sends the decisions still waiting for it), and checks every
revealed deal against its commitment (:mod:`cardarena.client.deal`). It returns when the referee
ends the stream for good, and exits non-zero with a clear message on a wrong token, a cut
stream or a replaced one. ``decision.view`` and ``decision.actions`` are plain dicts, the same
JSON the engines produce in-process; an ``async def`` bot is awaited.

The bot author's guide: clients/README.md ("Python", "Checking the deal").
"""
from __future__ import annotations

import asyncio
import json
import inspect
import logging
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from typing import Any

import grpc

from cardarena.v1 import referee_pb2 as pb, referee_pb2_grpc

from .deal import DealCheck, deal_commitment  # noqa: F401 (deal_commitment: for bot authors)

log = logging.getLogger("cardarena.client")
CLIENT = "cardarena-python/0.1"


def _plain(msg) -> dict:
    """A game message as plain JSON: proto field names, scalar fields always present, oneof
    and message fields only when set (what ``json_format.MessageToDict`` gives with
    ``preserving_proto_field_name`` and ``always_print_fields_with_no_presence``, faster)."""
    out = {}
    for fd in msg.DESCRIPTOR.fields:
        if fd.is_repeated:
            value = getattr(msg, fd.name)
            if fd.message_type is not None:
                out[fd.name] = [_plain(v) for v in value]
            else:
                out[fd.name] = list(value)
        elif fd.message_type is not None or fd.containing_oneof is not None or fd.has_presence:
            if msg.HasField(fd.name):
                value = getattr(msg, fd.name)
                out[fd.name] = _plain(value) if fd.message_type is not None else value
        else:
            out[fd.name] = getattr(msg, fd.name)
    return out


def _ints(value):
    """Struct numbers (match options) arrive as floats; give whole numbers back as ints."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    return value


def event_dict(ev: pb.Event) -> dict:
    """An event's fields (``Event.data_json``) as a dict, ``type`` included."""
    d = json.loads(ev.data_json) if ev.data_json else {}
    d.setdefault("type", ev.type)
    return d


def _action(a: pb.Action) -> dict:
    f = a.WhichOneof("action")
    return _plain(getattr(a, f)) if f else {}


class Decision:
    """One decision for one of the bot's seats.

    ``view``, ``actions``, ``labels`` and ``events`` are decoded from the message on first use,
    so a bot that only needs ``len(decision)`` (the number of legal actions) pays for nothing
    else; ``raw`` is the protobuf ``Decision`` itself.
    """

    def __init__(self, raw: pb.Decision):
        self.raw = raw
        self.match_id = raw.match_id
        self.seat = raw.seat
        self.decision_id = raw.decision_id
        self.game = raw.game
        self.time_left = raw.time_left
        self.bank_left = raw.bank_left

    @classmethod
    def from_message(cls, d: pb.Decision) -> "Decision":
        return cls(d)

    @cached_property
    def view(self) -> dict:
        """Everything the seat may know: the JSON of the game's view message."""
        f = self.raw.WhichOneof("view")
        return _plain(getattr(self.raw, f)) if f else {}

    @cached_property
    def actions(self) -> list[dict]:
        """The legal actions, each the JSON of the game's action message."""
        return [_action(a) for a in self.raw.actions]

    @cached_property
    def labels(self) -> list[str]:
        """The legal actions in words, in the same order."""
        return [a.label for a in self.raw.actions]

    @cached_property
    def events(self) -> list[dict]:
        """What the seat saw since its previous decision, each event's data."""
        return [event_dict(e) for e in self.raw.events]

    def __len__(self) -> int:
        return len(self.raw.actions)

    def __repr__(self) -> str:
        return f"Decision(match={self.match_id!r}, seat={self.seat}, id={self.decision_id}, {len(self)} actions)"


class BotError(Exception):
    """The bot cannot go on (wrong token, referee gone for longer than the retry window)."""


def _answer(d: pb.Decision, choice) -> pb.BotMessage:
    return pb.BotMessage(answer=pb.Answer(match_id=d.match_id, seat=d.seat, decision_id=d.decision_id,
                                          choice=int(choice)))


def _metadata(token: str):
    return (("authorization", f"Bearer {token}"),)


#: Each bot its own connection: gRPC would otherwise put every channel of one process to one
#: address on a single connection, and the referee serves 16 streams a connection, so a process
#: running many bots (a bench, a team's bots) would see its 17th bot wait, silently, forever.
_CHANNEL_OPTIONS = [("grpc.use_local_subchannel_pool", 1)]


def _channel(address: str, ca_file: str | None):
    if ca_file:
        creds = grpc.ssl_channel_credentials(root_certificates=open(ca_file, "rb").read())
        return grpc.aio.secure_channel(address, creds, options=_CHANNEL_OPTIONS)
    return grpc.aio.insecure_channel(address, options=_CHANNEL_OPTIONS)


async def play(bot: Any, address: str, token: str, *, games: tuple[str, ...] = (),
               retry_seconds: float = 30.0, threads: int = 0, ca_file: str | None = None,
               max_matches: int = 0, max_matches_per_hour: int = 0) -> None:
    """The async core of :func:`run`."""
    decide = getattr(bot, "decide", bot)
    is_async = inspect.iscoroutinefunction(decide)
    pool = ThreadPoolExecutor(threads) if threads and not is_async else None
    concurrent = is_async or pool is not None
    deals = DealCheck(bot)  # across reconnects: a match may start on one stream and end on the next
    last_ok = time.monotonic()
    backoff = 0.1
    try:
        while True:
            tasks: set[asyncio.Task] = set()
            async with _channel(address, ca_file) as channel:
                stub = referee_pb2_grpc.RefereeStub(channel)
                call = stub.Play(metadata=_metadata(token))
                write_lock = asyncio.Lock()

                async def send(message: pb.BotMessage) -> None:
                    async with write_lock:  # one write in flight at a time
                        await call.write(message)

                async def answer(d: pb.Decision) -> None:  # an async bot, or a thread pool
                    dec = Decision(d)
                    try:
                        if is_async:
                            choice = await decide(dec)
                        else:
                            choice = await asyncio.get_running_loop().run_in_executor(pool, decide, dec)
                    except Exception:
                        log.exception("the bot raised on decision %s of match %s", d.decision_id, d.match_id)
                        return  # the referee's deadline will play the default action
                    await send(_answer(d, choice))

                replaced = ""
                try:
                    await send(pb.BotMessage(hello=pb.Hello(client=CLIENT, games=list(games),
                                                            max_matches=max_matches,
                                                            max_matches_per_hour=max_matches_per_hour)))
                    while True:
                        msg = await call.read()
                        if msg is grpc.aio.EOF:
                            if replaced:
                                raise BotError(replaced)
                            return  # the referee closed the stream: done
                        last_ok = time.monotonic()
                        backoff = 0.1
                        kind = msg.WhichOneof("kind")
                        if kind == "decision":
                            if concurrent:
                                t = asyncio.create_task(answer(msg.decision))
                                tasks.add(t)
                                t.add_done_callback(tasks.discard)
                                continue
                            # a plain function: called here, one decision at a time, so this
                            # loop is the only writer and needs no lock
                            d = msg.decision
                            try:
                                choice = decide(Decision(d))
                            except Exception:
                                log.exception("the bot raised on decision %s of match %s", d.decision_id, d.match_id)
                                continue  # the referee's deadline will play the default action
                            await call.write(_answer(d, choice))
                        elif kind == "match_start":
                            deals.start(msg.match_start)  # remembers the deal's commitment; never raises
                            if hasattr(bot, "on_start"):
                                bot.on_start(msg.match_start)
                        elif kind == "match_end":
                            deals.end(msg.match_end)  # checks the revealed deal; never raises
                            if hasattr(bot, "on_end"):
                                bot.on_end(msg.match_end)
                        elif kind == "notice":
                            if msg.notice.kind == pb.Notice.REPLACED:
                                replaced = f"stopped: {msg.notice.message}"
                            if hasattr(bot, "on_notice"):
                                bot.on_notice(msg.notice)
                            else:
                                log.warning("notice: %s", msg.notice.message)
                        elif kind == "welcome":
                            log.info("connected as %s to cardarena %s", msg.welcome.bot, msg.welcome.server_version)
                except grpc.aio.AioRpcError as e:
                    if e.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                        raise BotError(f"the referee refused the token: {e.details()}") from None
                    if replaced or e.code() == grpc.StatusCode.ABORTED:
                        raise BotError(replaced or f"stopped: {e.details()}") from None
                    if e.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                                        grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN):
                        raise BotError(f"referee error {e.code().name}: {e.details()}") from None
                    log.warning("connection lost (%s); reconnecting", e.code().name)
                finally:
                    for t in tasks:
                        t.cancel()
            if time.monotonic() - last_ok > retry_seconds:
                raise BotError(f"no referee at {address} for {retry_seconds:g} s")
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 2.0)
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def run(bot: Any, address: str | None = None, token: str | None = None, **kwargs) -> None:
    """Play as ``bot`` until the referee closes the stream. Address and token default to
    ``CARDARENA_ADDRESS`` and ``CARDARENA_TOKEN``; ``--address``/``--token`` on the command
    line override both. With ``CARDARENA_TLS_CA`` (a PEM file of the referee's certificate
    authority) the connection uses TLS. Keyword arguments go to :func:`play`."""
    argv = sys.argv[1:]
    for flag in ("--address", "--token"):
        if flag in argv and argv.index(flag) + 1 < len(argv):
            value = argv[argv.index(flag) + 1]
            if flag == "--address":
                address = value
            else:
                token = value
    address = address or os.environ.get("CARDARENA_ADDRESS", "127.0.0.1:50051")
    kwargs.setdefault("ca_file", os.environ.get("CARDARENA_TLS_CA") or None)
    if "games" not in kwargs and os.environ.get("CARDARENA_GAMES"):  # the games said in Hello (ladders)
        kwargs["games"] = tuple(g.strip() for g in os.environ["CARDARENA_GAMES"].split(",") if g.strip())
    if "max_matches" not in kwargs and os.environ.get("CARDARENA_MAX_MATCHES", "").isdigit():
        kwargs["max_matches"] = int(os.environ["CARDARENA_MAX_MATCHES"])
    if "max_matches_per_hour" not in kwargs and os.environ.get("CARDARENA_MAX_MATCHES_PER_HOUR", "").isdigit():
        kwargs["max_matches_per_hour"] = int(os.environ["CARDARENA_MAX_MATCHES_PER_HOUR"])
    token = token or os.environ.get("CARDARENA_TOKEN", "")
    if not token:
        sys.exit("cardarena bot: no token (set CARDARENA_TOKEN or pass --token)")
    logging.basicConfig(level=os.environ.get("CARDARENA_LOG", "WARNING"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(play(bot, address, token, **kwargs))
    except BotError as e:
        sys.exit(f"cardarena bot: {e}")
    except KeyboardInterrupt:
        pass
