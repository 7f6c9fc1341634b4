"""``cardarena play``: one match over gRPC with a readable log as it happens, for bot authors."""

import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import MAX_INT, CliError, DbOpt, GraceOpt, LogDirOpt, MaxFaultsOpt, MaxReconnectsOpt, TimeBankOpt, app, err, out, click_exc
from .common import (
    _register_bots, check_game, check_programs, check_time_control, make_log_dir, new_log_dir, open_ledger,
    parse_bots, parse_options,
)


@app.command()
def play(game: Annotated[str, typer.Option("--game", help="Game id.")],
         bot: Annotated[list[str], typer.Option("--bot", help="NAME=COMMAND, one per seat in seat order (or NAME of a registered bot that connects itself).")],
         seed: Annotated[Optional[int], typer.Option("--seed", min=0, max=MAX_INT, help="The match seed, to replay a deal (whoever knows it knows every hand); default: a secret one from the CSPRNG, shown after the match.")] = None,
         option: Annotated[Optional[list[str]], typer.Option("--option", help="Game option NAME=VALUE.")] = None,
         seat: Annotated[Optional[int], typer.Option("--seat", help="Print only what this seat sees.")] = None,
         move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision.")] = 2.0,
         time_bank: TimeBankOpt = 0.0,
         max_faults: MaxFaultsOpt = 3,
         grace: GraceOpt = 10.0,
         max_reconnects: MaxReconnectsOpt = None,
         record: Annotated[bool, typer.Option("--record", help="Record the match and its ratings in the ledger.")] = False,
         log_dir: LogDirOpt = Path("logs"),
         db: DbOpt = "cardarena.db"):
    """Play one match over gRPC with a readable log as it happens (for bot authors), then the
    result in place order.

    Each run writes its bots' logs to a new folder, --log-dir/play-YYYYmmdd-HHMMSS (it says which).

    It stops with one line if a bot does not connect within 30 s. After the match every bot
    gets its match_end and a few seconds to leave by itself; Ctrl-C and SIGTERM stop the bots too.
    """
    cls = check_game(game)
    bots = parse_bots(bot)
    options = parse_options(option or [])
    if not cls.min_players <= len(bots) <= cls.max_players:
        raise typer.BadParameter(f"{game} is for {cls.min_players}–{cls.max_players} players; {len(bots)} bots given", param_hint="--bot")
    if seat is not None and not 0 <= seat < len(bots):
        raise typer.BadParameter(f"seats are 0–{len(bots) - 1}", param_hint="--seat")
    check_time_control(move_time, time_bank, max_faults, grace, max_reconnects)
    from ..referee import TimeControl
    from .hosting import _run_hosting, _Stopped, _wait_connected
    tc = TimeControl(move_seconds=move_time, bank_seconds=time_bank, max_faults=max_faults, grace_seconds=grace,
                     **({} if max_reconnects is None else {"max_reconnects": max_reconnects}))
    from ..games.base import GameError
    try:
        cls.parse_options(options)
    except GameError as e:  # an option the game has not, or a value it refuses: a bad argument
        raise click_exc.UsageError(str(e)) from None
    check_programs(bots)
    log_dir = new_log_dir(log_dir, "play")
    make_log_dir(bots, log_dir)
    from .. import deal
    given = seed is not None
    seed = seed if given else deal.new_seed()
    salt = deal.new_salt()
    if given:
        err.print(f"play: organizer-seeded: whoever knows seed {seed} knows every hand", markup=False)
    if any(command for _, command in bots):
        shown = f"seed {seed}" if given else "a secret seed (shown after the match)"
        out.print(f"play: {game}, {shown}; bot logs in {log_dir}", markup=False)
    names = [n for n, _ in bots]
    need_ledger = record or any(c is None for _, c in bots)
    ledger = open_ledger(db) if need_ledger else None
    if ledger is not None:
        _register_bots(ledger, bots)

    async def start(referee, ledger_, running):
        await _wait_connected(referee, names, running, 30.0)
        match_id = "play"
        if record:
            match_id = str(ledger.create_match(game, seed, cls.parse_options(options), names, deal_salt=salt))

        def show(match, events):
            for ev in events:
                if seat is None or ev.visible_to(seat):
                    out.print(f"[{len(match.steps):>4}] {match.game.event_text(ev.data)}", markup=False)

        outcome = await referee.play(game, names, seed, options, match_id, time_control=tc, on_events=show,
                                     salt=salt)
        if record:
            ledger.claim_match(int(match_id))
            from ..league import record_args
            ledger.record_match(int(match_id), **record_args(outcome, time.monotonic() - outcome.duration))
        return outcome, match_id

    try:
        outcome, match_id = _run_hosting(bots, db if need_ledger else None, log_dir, start, move_time=move_time)
    except _Stopped as e:
        raise CliError(f"{e}; its bots are stopped", code=128 + e.signum) from None
    out.print("result:")
    for s in sorted(range(len(names)), key=lambda s: (outcome.result.places[s], s)):  # place order
        name = names[s]
        extra = f" ({outcome.faults[s]} faults)" if outcome.faults[s] else ""
        out.print(f"  place {outcome.result.places[s]}: seat {s} {name}, score {outcome.result.scores[s]:g}{extra}")
    out.print(f"deal: seed {seed}, salt {salt}, commitment {outcome.deal_commitment} "
              f"(sha256 of {deal.PREFIX}:{game}:{match_id}:{seed}:{salt})", markup=False)
    if record:
        out.print(f"recorded as match {match_id}")
