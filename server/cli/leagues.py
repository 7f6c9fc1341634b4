"""``cardarena league …``: run a league (locally, or on a ``--server``), resume it, join it as a
worker, list and show leagues."""

import json
import os
import signal
import sys
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Optional

import typer

from .. import procs
from .app import (
    CliError, DbOpt, GraceOpt, LeaseOpt, LogDirOpt, MaxFaultsOpt, MaxReconnectsOpt, ServerOpt, StartTimeoutOpt,
    MAX_INT, TimeBankOpt, click_exc, err, league_app, out,
)
from .common import (
    _league_bar, _league_progress, _register_bots, _web_socket, admin_stub, caption, check_address, check_game,
    check_programs, check_seconds, check_time_control, make_log_dir, new_log_dir, open_ledger, parse_bots,
    parse_options, read_ledger, rpc,
)


def _stopped_at(why: str, league_id: int, ledger, state: dict, total: int) -> str:
    """The line of a stopped league: the matches the ledger holds done once the league's last
    records are in (the progress bar's count can miss a record written while stopping), or the
    bar's where the ledger cannot say (it may be what stopped the league)."""
    done = state.get("done", 0)
    try:
        opened = open_ledger(ledger) if isinstance(ledger, str) else None
        try:
            counts = (opened or ledger).league(league_id).counts
        finally:
            if opened is not None:
                opened.close()
        done = counts["finished"] + counts["failed"]
    except Exception:  # noqa: BLE001 - a ledger that cannot be read: the bar's count
        pass
    return (f"{why}; league {league_id} stopped at {done}/{total} matches: "
            f"go on with `cardarena league resume {league_id}`")


def _print_ratings(rows) -> None:
    from cardarena.ratings import format_ratings
    out.print(format_ratings(rows, "table"))


def _run_league_locally(bots, db: str, log_dir: Path, move_time: float, total: int, done: int, play,
                        state: dict, game: str, web: "_WebPlan | None" = None):
    """Host a referee, start the bots, then ``play(referee, ledger, progress, stats, programs)``
    under a progress bar with ETA. Ctrl-C, SIGTERM and a ledger that cannot record stop it with
    one line and leave the league resumable (league.py); a dead bot never stops it."""
    from cardarena.ratings import LedgerStorageError
    from ..league import LeagueStats, RecorderError
    from .hosting import _run_hosting, _Stopped
    stats = state["stats"] = LeagueStats()

    async def start(referee, ledger_, running):
        state["logs"] = {p.name: p.log_path for p in running}
        bar, task = _league_bar(f"league {state.get('league') or ''} ({game})", total, done)
        with bar:
            progress = _league_progress(state, bar, task, game)
            return await play(referee, ledger_, progress, stats, {p.name: p for p in running})

    def stopped(why: str) -> str:
        lid = state.get("league")
        if lid is None or state.get("served_after"):
            return why
        return _stopped_at(why, lid, db, state, total)

    try:
        result = _run_hosting(bots, db, log_dir, start, move_time=move_time, web=web)
    except KeyboardInterrupt:
        raise CliError(stopped("interrupted"), code=130) from None
    except _Stopped as e:
        raise CliError(stopped(str(e)), code=128 + e.signum) from None
    except (LedgerStorageError, RecorderError) as e:
        raise CliError(stopped(str(e))) from None
    return result, stats


def _after_league(ledger, league_id: int, game: str, stats, logs: dict) -> None:
    """The end of `league run` and `league resume`: counts, absent bots, speed, standings, ratings."""
    info = ledger.league(league_id)
    c = info.counts
    state = "finished" if info.done else "stopped"
    line = f"league {league_id} {state}: {c['finished']} matches"
    if c["failed"]:
        line += f", {c['failed']} failed (`cardarena league resume {league_id} --retry-failed` plays them again)"
    if not info.done:
        line += f", {c['scheduled'] + c['running']} still to play"
    out.print(line + ".", markup=False)
    results = ledger.league_results(league_id)
    for bot, why in sorted(stats.absent.items()):
        forfeits = sum(1 for r in results for b, f in zip(r.bots, r.forfeited) if b == bot and f)
        where = f"its log: {logs[bot]}" if bot in logs else "it connects by itself"
        out.print(f"absent: bot {bot} {why}; {forfeits} seat{'s' if forfeits != 1 else ''} forfeited ({where})",
                  markup=False)
    err.print(f"this run: {stats.summary()}", markup=False)
    _standings_and_ratings(league_id, game, results, info.settings.get("bots"), ledger.ratings(game), info.settings)


def _standings_and_ratings(league_id, game: str, results, bots, ratings, settings: dict | None = None) -> None:
    """The end of a league, local or on a --server: its standings (and duplicate sets, a
    gauntlet's report, what --until-separated found), then the game's rating table."""
    from cardarena.ratings import standings
    from cardarena.ratings.standings import format_duplicate, format_table
    st = standings(results, bots)
    out.print("standings (points: 1 per seat placed below, ½ per shared place):", markup=False)
    out.print(format_table(st), markup=False)
    if st.sets:
        out.print("duplicate sets (one deal in every seat rotation):", markup=False)
        out.print(format_duplicate(st, max_sets=0 if len(st.sets) <= 8 else 8), markup=False)
    _gauntlet_and_separation(settings or {}, results)
    out.print(f"ratings for {game} (every match of the ledger; `cardarena league show {league_id}` for seats "
              "and head-to-head):", markup=False)
    _print_ratings(ratings)


def _gauntlet_and_separation(settings: dict, results) -> None:
    """A gauntlet's result against each opponent; an --until-separated league's verdicts."""
    bot = settings.get("gauntlet")
    if bot:
        from cardarena.ratings.standings import format_gauntlet, gauntlet
        out.print(f"gauntlet: {bot} against each opponent (matches both sat in; mean place difference: the "
                  f"opponent's place minus {bot}'s):", markup=False)
        out.print(format_gauntlet(gauntlet(results, bot), bot), markup=False)
    if settings.get("until_separated"):
        from ..league import until_separated
        out.print(until_separated(settings, results).summary(results) + "\n", markup=False)


def _schedule_line(settings: dict, total: int) -> str:
    kind = settings.get("schedule", "round-robin")
    if kind == "balanced":
        text = f"balanced schedule of {settings.get('matches')} matches"
    else:
        r = settings.get("rounds", 1)
        text = f"round robin, {r} round{'s' if r != 1 else ''}, {total} matches"
    until = settings.get("until_separated")
    if until:  # a round at a time: `rounds` and `matches` are of one round
        per = f"{settings.get('matches')} balanced matches" if kind == "balanced" else "a round robin"
        text = (f"rounds of {per} until separated at {until['confidence']:.0%} (at most {until['max_matches']} "
                f"matches{', the first ' + str(until['top']) + ' places' if until.get('top') else ''}), "
                f"{total} matches so far")
    if settings.get("gauntlet"):
        text = f"gauntlet of {settings['gauntlet']}, " + text
    if settings.get("duplicate"):
        text += f", duplicate ({total // max(settings.get('seats') or 1, 1)} sets: one deal in every seat rotation)"
    return text


#: ``--ray ADDRESS``: where the matches of in-process Python bots are played (docs/research.md, "On Ray").
RayOpt = Annotated[Optional[str], typer.Option(
    "--ray", metavar="ADDRESS",
    help="Play the matches of in-process Python bots (--bot NAME=py:MODULE:ATTR) on Ray, as ray.init's address "
         "names it: local (a Ray of this command's own on this machine), auto (the cluster `ray start` runs here), "
         "HOST:PORT (a cluster's head), ray://HOST:PORT (Ray Client). Without it they play in this process.")]


def _announce(spec, names, plans, settings: dict, where: str) -> None:
    """The league's first lines: who plays how often, and where (its bots' logs, or Ray)."""
    from ..schedule import describe
    plays = sorted(set(describe(plans, names, spec.seats)["plays"].values()))
    each = f"every bot plays {plays[0]} matches" if len(plays) == 1 else f"bots play {plays[0]}–{plays[-1]} matches"
    if spec.seed is not None:
        err.print(f"league: organizer-seeded (--seed {spec.seed}): whoever knows the seed knows every hand",
                  markup=False)
    err.print(f"league: {spec.game}, {len(names)} bots, tables of {spec.seats}, {_schedule_line(settings, len(plans))}"
              f"; {each}; {where}", markup=False)


@league_app.command("run")
def league_run(
    game: Annotated[str, typer.Option("--game", help="Game id (see `cardarena games`).")],
    bot: Annotated[list[str], typer.Option("--bot", help="NAME (a registered bot that connects itself) or NAME=COMMAND (started by the CLI), or NAME=py:MODULE:ATTR (an in-process Python bot, see above). Repeat.")],
    seats: Annotated[int, typer.Option("--seats", help="Table size; 0: the game's smallest.")] = 0,
    rounds: Annotated[int, typer.Option("--rounds", help="Round-robin rounds: every group of bots plays once in every seat rotation per round.")] = 1,
    matches: Annotated[Optional[int], typer.Option("--matches", help="Instead of a round robin: a balanced schedule of N matches (every bot plays equally often, pairs meet as evenly as possible, seats rotate fairly).")] = None,
    duplicate: Annotated[bool, typer.Option("--duplicate", help="Each group plays the same deal in every seat rotation (a duplicate set), to take luck out of comparisons.")] = False,
    seed: Annotated[Optional[int], typer.Option("--seed", min=0, max=MAX_INT, help="League seed, for a reproducible league: the schedule and every match seed derive from it, so whoever knows it knows every hand (the league is marked organizer-seeded). Default: a secret from the CSPRNG, shown once the league has ended.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-j", min=1, max=MAX_INT, help="Matches played at once.")] = 4,
    move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision; a later answer is a fault and the default action is played.")] = 2.0,
    time_bank: TimeBankOpt = 0.0,
    max_faults: MaxFaultsOpt = 3,
    grace: GraceOpt = 10.0,
    max_reconnects: MaxReconnectsOpt = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", help="Game option NAME=VALUE (see `cardarena games`). Repeat.")] = None,
    server: ServerOpt = None,
    start_timeout: StartTimeoutOpt = 30.0,
    log_dir: LogDirOpt = Path("logs"),
    db: DbOpt = "cardarena.db",
    web_address: Annotated[Optional[str], typer.Option(
        "--web-address", help="Also serve the web pages on HOST:PORT while the league plays, to watch its "
                              "matches live (port 0: a free one).")] = None,
    lease: LeaseOpt = 30.0,
    gauntlet: Annotated[Optional[str], typer.Option("--gauntlet", help="One bot against the field: NAME sits at every table with opponents from the others, seats rotated; the standings add its result against each opponent.")] = None,
    until_separated: Annotated[bool, typer.Option("--until-separated", help="Add rounds (of the round robin, or of --matches N) until the order asked about is known: a gauntlet bot against each opponent, or every adjacent pair of the ranking (--top K: of the first K places).")] = False,
    confidence: Annotated[float, typer.Option("--confidence", help="Of --until-separated: the chance that no pair is separated wrongly (family-wise).")] = 0.95,
    max_matches: Annotated[Optional[int], typer.Option("--max-matches", help="Of --until-separated: play no round that would pass N matches (default: 20 rounds).")] = None,
    top: Annotated[Optional[int], typer.Option("--top", help="Of --until-separated: only the order of the first K places (and the K-th above the next).")] = None,
    ray: RayOpt = None,
):
    """Run a league: a round robin (or --matches N balanced), optionally duplicate; then standings and ratings.

    The schedule, seeds, options and each bot's command are written to the ledger before the
    first match, so an interrupted league (Ctrl-C, a killed process, a restart) goes on with
    `cardarena league resume ID`. A bot whose program exits before connecting, does not connect
    within --start-timeout, or dies during the league is absent: its seats forfeit and the
    league plays on; the summary names it and its log. This process is the league's first
    worker: `cardarena league work ID` joins it from other processes or machines (a shared
    PostgreSQL --db); each match is claimed on a lease (--lease) that its worker renews.

    --gauntlet NAME plays one bot against the field. --until-separated adds whole rounds
    (seat-balanced, duplicate sets kept whole) until a sequential test (testing by betting,
    valid however often it is looked at) separates every pair asked about at --confidence, or
    the next round would pass --max-matches; the summary says which pairs were separated, after
    how many matches, and which were not by the cap.

    In-process Python bots: --bot NAME=py:MODULE:ATTR names a bot object (a callable
    bot(decision) -> index, or an object with decide(decision)); py:MODULE:ATTR(ARGS) calls
    ATTR with literal ARGS first (py:cardarena.server.match:RandomBot(7));
    pettingzoo:MODULE:ATTR and openspiel:MODULE:ATTR wrap a policy with
    cardarena.client.policy.policy_bot. MODULE is a module name or a .py file, from this
    folder. Every bot of such a league is one: its matches are played in this process, or on
    Ray with --ray ADDRESS, and recorded as any league's (docs/research.md, "On Ray").
    """
    from ..league import LeagueError, LeagueSpec, check_spec, league_plans
    check_game(game)
    bots = parse_bots(bot)
    python = _python_bots(bots, ray)
    options = parse_options(option or [])
    check_time_control(move_time, time_bank, max_faults, grace, max_reconnects)
    check_seconds(start_timeout, "--start-timeout", above_zero=True)
    check_seconds(lease, "--lease", above_zero=True)
    if web_address is not None:  # before anything is said: a bad argument is the only line
        check_address(web_address, "--web-address")
    names = [n for n, _ in bots]
    spec = LeagueSpec(game=game, bots=names, seats=seats, rounds=rounds, seed=seed, concurrency=concurrency,
                      move_seconds=move_time, options=options, start_timeout=start_timeout,
                      bank_seconds=time_bank, max_faults=max_faults, grace_seconds=grace, matches=matches,
                      duplicate=duplicate, commands=dict(bots), workdir=os.getcwd(), max_reconnects=max_reconnects,
                      gauntlet=gauntlet, until_separated=until_separated, confidence=confidence,
                      max_matches=max_matches, top=top)
    try:
        spec = check_spec(spec)
    except LeagueError as e:  # the arguments do not make a league: a bad argument
        raise click_exc.UsageError(str(e)) from None
    if python:
        if server:
            raise click_exc.UsageError("--server plays bot programs over gRPC; in-process Python bots (py:…) play "
                                       "here or on --ray")
        if web_address is not None:
            raise click_exc.UsageError("--web-address shows matches played over gRPC; in-process Python bots (py:…) "
                                       "have none to watch live")
        return _league_run_in_process(spec, bots, ray, db, lease)
    check_programs(bots)
    if server:
        if gauntlet is not None or until_separated:
            raise click_exc.UsageError("--gauntlet and --until-separated run only in a local league: a --server's "
                                       "RunLeague request has no field for them")
        if web_address is not None:
            raise click_exc.UsageError("--web-address serves the pages of a local league; the --server serves its "
                                       "own (`cardarena serve --web-address`)")
        if spec.seed == 0:
            raise click_exc.UsageError("--seed 0 cannot be sent to a --server (0 asks it for a secret seed): give "
                                       "another seed")
        return _league_remote(server, spec, bots, log_dir)
    plans = league_plans(spec)
    total = len(plans)
    league_log = new_log_dir(log_dir, "league")
    make_log_dir(bots, league_log)
    ledger = open_ledger(db)
    _register_bots(ledger, bots)
    from ..league import league_settings, time_control
    from ..referee import TimeControl
    settings = league_settings(spec, time_control(spec, TimeControl()))
    _announce(spec, names, plans, settings, f"bot logs in {league_log}")

    async def play(referee, ledger_, progress, stats, programs):
        from ..league import run_league
        return await run_league(referee, ledger_, spec, progress=progress, stats=stats, plans=plans,
                                programs=programs, lease=lease)

    state: dict = {}
    serve_after = _SERVE_AFTER.get()
    web = None
    if web_address is not None or serve_after:
        from .hosting import _WebPlan
        sock = _web_socket(web_address, required=True)

        def then() -> None:  # demo --web: the league's summary, then the pages go on
            state["served_after"] = True
            _after_league(ledger, state["league"], game, state["stats"], state.get("logs", {}))
        web = _WebPlan(sock, then if serve_after else None)
    league_id, stats = _run_league_locally(bots, db, league_log, move_time, total, 0, play, state, game, web)
    _after_league(ledger, league_id, game, stats, state.get("logs", {}))


#: Set by ``demo --web``: a league run locally serves its pages on after it finished, until a signal.
_SERVE_AFTER: ContextVar[bool] = ContextVar("serve_after", default=False)


@league_app.command("resume")
def league_resume(
    league_id: Annotated[int, typer.Argument(min=1, max=MAX_INT, help="League id (see `cardarena league list`).")],
    bot: Annotated[Optional[list[str]], typer.Option("--bot", help="NAME=COMMAND to start a bot with another command than the league recorded, or NAME for a registered bot that connects itself. Repeat.")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", "-j", min=1, max=MAX_INT, help="Matches played at once (default: as the league was run).")] = None,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Also play the league's failed matches again.")] = False,
    stale_after: Annotated[Optional[float], typer.Option("--stale-after", help="Replay only running matches claimed more than this many seconds ago (when another process may still be playing the league). Default: every running match, its process being gone.")] = None,
    start_timeout: StartTimeoutOpt = 30.0,
    log_dir: LogDirOpt = Path("logs"),
    db: DbOpt = "cardarena.db",
    ray: RayOpt = None,
):
    """Go on with an interrupted league: replay its interrupted matches from their seeds, play the rest.

    The bots are started again with the commands the league recorded (from the folder it was
    started in), unless --bot gives a new command; the time control (--move-time, --time-bank,
    --max-faults, --grace, --max-reconnects) is the league's own. No match is lost, played
    twice, or counted twice in the ratings. Absent bots forfeit as in `league run`.

    Resume is for a league nobody plays any more: it takes back every running match at once
    (with --stale-after, those claimed longer ago) and replays it. To add a worker to a league
    that is being played, use `cardarena league work ID`, which leaves the running matches to
    their workers and replays only those whose lease ran out.
    """
    check_seconds(start_timeout, "--start-timeout", above_zero=True)
    if stale_after is not None:
        check_seconds(stale_after, "--stale-after")
    ledger = read_ledger(db, f"league {league_id}")
    info, bots = _league_bots(ledger, league_id, bot, concurrency)
    python = _python_bots(bots, ray)
    settings, c = info.settings, info.counts
    redo = c["running"] + (c["failed"] if retry_failed else 0)
    if c["scheduled"] == 0 and redo == 0 and not _grows(ledger, info):
        out.print(f"league {league_id} is complete: {c['finished']} matches finished, {c['failed']} failed; "
                  "nothing to resume" + (" (--retry-failed plays the failed ones again)" if c["failed"] else ""),
                  markup=False)
        return
    loaded = _load_python_bots(bots, bot, settings.get("workdir")) if python else None
    _connect_ray(ray)
    _register_bots(ledger, bots)
    from ..league import settings_time_control
    from ..referee import TimeControl
    tc = settings_time_control(settings, TimeControl())
    total = info.total
    done = c["finished"] + c["failed"] - (c["failed"] if retry_failed else 0)
    league_log = new_log_dir(log_dir, f"league-{league_id}-resume")
    if not python:
        make_log_dir(bots, league_log)
    err.print(f"league {league_id}: {info.game}, {c['finished']}/{total} matches recorded; replaying "
              f"{c['running']} interrupted" + (f" and {c['failed']} failed" if retry_failed and c["failed"] else "")
              + f" from their seeds, {c['scheduled']} still scheduled; "
              + (_where(ray) if python else f"bot logs in {league_log}"), markup=False)

    async def play(referee, ledger_, progress, stats, programs):
        from ..league import resume_league
        return await resume_league(referee, ledger_, league_id, concurrency, progress=progress, stats=stats,
                                   start_timeout=start_timeout, stale_after=stale_after, retry_failed=retry_failed,
                                   programs=programs)

    state: dict = {"league": league_id}
    if python:
        _, stats = _run_in_process(loaded, ray, ledger, total, done, play, state, info.game)
    else:
        _, stats = _run_league_locally(bots, db, league_log, tc.move_seconds, total, done, play, state, info.game)
    _after_league(ledger, league_id, info.game, stats, state.get("logs", {}))


def _seeding(info, ended: bool) -> str:
    """How a league's deals are made, for `league show`: its seed or secret once it has ended."""
    s = info.settings
    if info.organizer_seeded:
        return f"organizer-seeded (seed {s.get('seed') if ended else 'shown once the league has ended'})"
    return f"secret seeds (league secret {s['secret'] if ended else 'shown once the league has ended'})"


def _grows(ledger, info) -> bool:
    """An --until-separated league that would add a round: not separated, within its cap."""
    if not info.settings.get("until_separated"):
        return False
    from ..league import until_separated
    return until_separated(info.settings, ledger.league_results(info.id)).stopped is None


def _league_bots(ledger, league_id: int, bot: list[str] | None, concurrency: int | None):
    """For `league resume` and `league work`: the league, and its bots as (name, command): the
    command the league recorded (run from its folder) unless --bot gives another."""
    info = ledger.league(league_id)
    settings = info.settings
    names = list(settings.get("bots") or [])
    if not names:
        raise CliError(f"league {league_id} does not record its bots; it cannot be resumed")
    if concurrency is not None and concurrency < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--concurrency")
    overrides = dict(parse_bots(bot)) if bot else {}
    strangers = sorted(set(overrides) - set(names))
    if strangers:
        raise typer.BadParameter(f"league {league_id} has no bot {strangers[0]!r} (its bots: {', '.join(names)})",
                                 param_hint="--bot")
    check_programs([(n, c) for n, c in overrides.items() if not _is_python_bot(c)])
    stored = settings.get("commands") or {}
    workdir = settings.get("workdir")
    bots = []
    for name in names:
        if name in overrides:
            bots.append((name, overrides[name]))
        elif name in stored and _is_python_bot(stored[name]):  # loaded from the league's folder when it plays
            bots.append((name, stored[name]))
        elif name in stored:
            bots.append((name, stored[name] and _recorded_command(league_id, name, stored[name], workdir)))
        else:
            raise CliError(f"league {league_id} does not record how to start bot {name!r}: give --bot {name}=COMMAND "
                           f"(or --bot {name} for a registered bot that connects itself)")
    return info, bots


@league_app.command("work")
def league_work(
    league_id: Annotated[int, typer.Argument(min=1, max=MAX_INT, help="League id (see `cardarena league list`).")],
    bot: Annotated[Optional[list[str]], typer.Option("--bot", help="NAME=COMMAND to start a bot with another command than the league recorded, or NAME for a registered bot that connects itself. Repeat.")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", "-j", min=1, max=MAX_INT, help="Matches this worker plays at once (default: as the league was run).")] = None,
    lease: LeaseOpt = 30.0,
    start_timeout: StartTimeoutOpt = 30.0,
    log_dir: LogDirOpt = Path("logs"),
    db: DbOpt = "cardarena.db",
    ray: RayOpt = None,
):
    """Join a league as one more worker, from another process or machine: claim, play and record its matches.

    The worker hosts its own referee and starts its own copies of the league's bots (the
    commands the league recorded, run from the folder it was run from, unless --bot gives
    another), claims scheduled matches, and matches whose worker stopped renewing its lease
    (killed, cut off: each is replayed from its seed), and exits once no match is left to claim
    (0), saying what it played. Matches other workers are playing are theirs: unlike `league
    resume`, nothing is taken back before its lease runs out. Every worker needs the same
    ledger: a PostgreSQL URL for workers on several machines.
    """
    from ..league import settings_time_control, worker_name
    from ..referee import TimeControl
    check_seconds(lease, "--lease", above_zero=True)
    check_seconds(start_timeout, "--start-timeout", above_zero=True)
    ledger = read_ledger(db, f"league {league_id}")
    info, bots = _league_bots(ledger, league_id, bot, concurrency)
    python = _python_bots(bots, ray)
    c = info.counts
    if info.done:
        out.print(f"league {league_id} is complete: {c['finished']} matches finished, {c['failed']} failed; "
                  "nothing to claim", markup=False)
        return
    loaded = _load_python_bots(bots, bot, info.settings.get("workdir")) if python else None
    _connect_ray(ray)
    _register_bots(ledger, bots)
    tc = settings_time_control(info.settings, TimeControl())
    league_log = new_log_dir(log_dir, f"league-{league_id}-work")
    if not python:
        make_log_dir(bots, league_log)
    worker = worker_name()
    err.print(f"league {league_id}: {info.game}, {c['finished']}/{info.total} matches recorded, {c['scheduled']} "
              f"scheduled, {c['running']} being played; joining as worker {worker}; "
              + (_where(ray) if python else f"bot logs in {league_log}"), markup=False)

    async def play(referee, ledger_, progress, stats, programs):
        from ..league import work_league
        return await work_league(referee, ledger_, league_id, concurrency, progress=progress, stats=stats,
                                 start_timeout=start_timeout, programs=programs, lease=lease, worker=worker)

    state: dict = {"league": league_id}
    done = c["finished"] + c["failed"]
    if python:
        _, stats = _run_in_process(loaded, ray, ledger, info.total, done, play, state, info.game)
    else:
        _, stats = _run_league_locally(bots, db, league_log, tc.move_seconds, info.total, done, play, state,
                                       info.game)
    played = ", ".join(str(m) for m in sorted(stats.matches)) or "none"
    line = f"worker {worker} played {stats.played} matches of league {league_id} (match ids: {played})"
    if stats.skipped:
        line += f"; {stats.skipped} dropped (taken over by another worker, or recorded already)"
    out.print(line, markup=False)
    _after_league(ledger, league_id, info.game, stats, state.get("logs", {}))


def _recorded_command(league_id: int, name: str, command: str, workdir: str | None) -> str:
    """A bot's command as its league recorded it, run from the folder the league was run from
    (one line if that folder is gone or the program cannot run)."""
    elsewhere = bool(workdir) and Path(workdir) != Path.cwd()
    if elsewhere and not Path(workdir).is_dir():
        raise CliError(f"league {league_id} ran its bots from {workdir}, which is gone; give --bot {name}=COMMAND")
    try:
        argv = procs.check_command(command, cwd=workdir)
    except procs.BotStartError as e:
        raise CliError(f"league {league_id} starts bot {name} with {command!r}, which cannot run: {e}; "
                       f"give --bot {name}=COMMAND") from None
    if not elsewhere:
        return command
    # run the recorded command from the recorded folder ("python" is this interpreter)
    import shlex
    return "sh -c " + shlex.quote(f"cd {shlex.quote(workdir)} && exec {shlex.join(argv)}")


def _league_remote(server: str, spec, bots, log_dir: Path):
    """``league run --server``: the league on the server (schedule, every time option), the bots
    with commands started here; the same progress bar, standings and rating table as a local one."""
    from cardarena.ratings import RatingRow, SeatResults
    from cardarena.v1 import admin_pb2
    from .. import wire
    from .hosting import _Stopped
    stub, md = admin_stub(server)
    local = [n for n, c in bots if c]
    req = admin_pb2.RunLeagueRequest(game=spec.game, bots=[n for n, c in bots if not c], local_bots=local,
                                     seats=spec.seats, rounds=spec.rounds, seed=spec.seed or 0,
                                     concurrency=spec.concurrency, move_seconds=spec.move_seconds or 0,
                                     options=wire.struct(spec.options), start_timeout=spec.start_timeout,
                                     matches=spec.matches or 0, duplicate=spec.duplicate,
                                     bank_seconds=spec.bank_seconds or 0, max_faults=spec.max_faults,
                                     grace_seconds=spec.grace_seconds, max_reconnects=spec.max_reconnects)
    running = []
    rows = []
    league_id, total = "", 0
    bar = task = None

    def stop(signum, frame):
        raise _Stopped(signum)
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        if local:
            procs.prepare_log_dir(log_dir)
        for msg in rpc(stub.RunLeague, req, metadata=md):
            if msg.session_tokens:
                commands = dict(bots)
                for st in msg.session_tokens:
                    running.append(procs.start_bot(st.bot, commands[st.bot], server, st.token, log_dir))
            if msg.error:
                raise CliError(msg.error)
            if msg.total:
                league_id, total = msg.league_id, msg.total
                if bar is None:
                    bar, task = _league_bar(f"league {league_id} ({spec.game}) on {server}", total, 0)
                    bar.start()
                bar.update(task, completed=msg.done, total=total)
            if msg.ratings:
                league_id = msg.league_id or league_id
                rows = [RatingRow(r.rank, r.bot, r.game, r.mu, r.sigma, r.conservative, r.matches, r.wins,
                                  r.mean_place) for r in msg.ratings]
    except procs.BotStartError as e:
        raise CliError(str(e)) from None
    except _Stopped as e:
        raise CliError(f"{e}; the bots it started are stopped", code=128 + e.signum) from None
    except Exception as e:
        import grpc
        if isinstance(e, grpc.RpcError):
            raise CliError(f"server: {e.details()}") from None
        raise
    finally:
        if bar is not None:
            bar.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        procs.stop_all(running)
    listed = rpc(stub.ListMatches, admin_pb2.ListMatchesRequest(league_id=league_id, limit=max(total, 1)), metadata=md)
    results = [SeatResults(int(m.match_id), None, None, None, 0, m.status, [s.bot for s in m.seats],
                           [s.score for s in m.seats], [s.place or None for s in m.seats],
                           [s.faults for s in m.seats], [s.forfeited for s in m.seats])
               for m in reversed(listed.matches)]
    finished = sum(1 for r in results if r.status == "finished")
    out.print(f"league {league_id} on {server} finished: {finished} matches.", markup=False)
    _standings_and_ratings(league_id, spec.game, results, spec.bots, rows)


@league_app.command("list")
def league_list(db: DbOpt = "cardarena.db"):
    """The leagues: game, schedule, bots, progress (finished/total, failed, interrupted), state."""
    from cardarena.ratings.standings import text_table
    rows = []
    ledger = read_ledger(db)
    leagues = ledger.leagues()
    caption(ledger, f"{len(leagues)} league{'s' if len(leagues) != 1 else ''}")
    for lg in leagues:
        s, c = lg.settings, lg.counts
        kind = "balanced" if s.get("schedule") == "balanced" else f"round robin ×{s.get('rounds', 1)}"
        if s.get("gauntlet"):
            kind = f"gauntlet of {s['gauntlet']}, {kind}"
        if s.get("until_separated"):
            kind += ", until separated"
        if s.get("duplicate"):
            kind += ", duplicate"
        if lg.done and not _grows(ledger, lg):
            state = "complete"
        else:
            state = f"open: {c['running']} running, {c['scheduled']} scheduled"
        rows.append([str(lg.id), lg.game, kind, str(len(s.get("bots") or [])), str(s.get("seats", "")),
                     f"{c['finished']}/{lg.total}", str(c["failed"]), state,
                     lg.created_at.isoformat(timespec="seconds")])
    if not rows:
        out.print("(no leagues yet: `cardarena league run`)", markup=False)
        return
    out.print(text_table(["id", "game", "schedule", "bots", "seats", "finished", "failed", "state", "created"], rows,
                         [True, False, False, True, True, True, True, False, False]), markup=False)


@league_app.command("show")
def league_show(league_id: Annotated[int, typer.Argument(min=1, max=MAX_INT, help="League id (see `cardarena league list`).")],
                fmt: Annotated[str, typer.Option("--format", help="table or json")] = "table",
                sets: Annotated[int, typer.Option("--sets", min=0, max=MAX_INT, help="Duplicate sets to list one by one (0: all).")] = 20,
                db: DbOpt = "cardarena.db"):
    """A league: settings, progress, standings (points, places with 95% intervals, per-seat results),
    head-to-head, and for a duplicate league the results per set."""
    from cardarena.ratings import standings
    from cardarena.ratings.standings import format_duplicate, format_head_to_head, format_seats, format_table
    if fmt not in ("table", "json"):
        raise typer.BadParameter("use table or json", param_hint="--format")
    ledger = read_ledger(db, f"league {league_id}")
    info = ledger.league(league_id)
    results = ledger.league_results(league_id)
    if fmt == "table":
        caption(ledger, f"league {league_id}")
    s = info.settings
    st = standings(results, s.get("bots"))
    from ..league import league_ended
    ended = league_ended(info, results)
    if fmt == "json":
        doc = {"league": info.to_json(reveal=ended), "standings": st.to_json()}
        if s.get("gauntlet"):
            from dataclasses import asdict
            from cardarena.ratings.standings import gauntlet
            doc["gauntlet"] = [asdict(line) for line in gauntlet(results, s["gauntlet"])]
        if s.get("until_separated"):
            from ..league import until_separated
            doc["until_separated"] = until_separated(s, results).to_json(results)
        sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
        return
    c = info.counts
    lines = [f"league {info.id}: {info.game}, {len(s.get('bots') or [])} bots, tables of {s.get('seats')}, "
             f"{_schedule_line(s, info.total)}, {_seeding(info, ended)}"]
    if info.options:
        lines.append("options: " + ", ".join(f"{k}={v!r}" for k, v in info.options.items()))
    if "move_seconds" in s:
        faults = s.get("max_faults")
        lines.append(f"time: {s.get('move_seconds'):g} s per decision, bank {s.get('bank_seconds', 0):g} s, "
                     + (f"forfeit after {faults} faults" if faults else "no forfeit for faults")
                     + (f", away at most {s['grace_seconds']:g} s per match" if s.get("grace_seconds") is not None else "")
                     + (f" and {s['max_reconnects']} reconnects" if s.get("max_reconnects") is not None else ""))
    commands = s.get("commands") or {}
    lines.append("bots: " + ", ".join(f"{b} ({commands.get(b) or 'connects itself'})" for b in s.get("bots") or []))
    progress = f"progress: {c['finished']}/{info.total} finished, {c['failed']} failed, {c['running']} running, {c['scheduled']} scheduled"
    if not info.done or _grows(ledger, info):
        progress += f" (interrupted or in progress: `cardarena league resume {info.id}` goes on)"
    lines.append(progress)
    lines.append(f"created {info.created_at.isoformat(timespec='seconds')}")
    out.print("\n".join(lines) + "\n", markup=False)
    out.print("standings (points: 1 per seat placed below, ½ per shared place; mean place with its 95% interval):",
              markup=False)
    out.print(format_table(st), markup=False)
    out.print("mean place by seat (matches):", markup=False)
    out.print(format_seats(st), markup=False)
    out.print("head-to-head (row bot placed above-below-level with column bot, in the matches where both sat):",
              markup=False)
    out.print(format_head_to_head(st), markup=False)
    if st.sets:
        out.print("duplicate sets (one deal in every seat rotation; a set ranks its bots by mean place once complete):",
                  markup=False)
        out.print(format_duplicate(st, max_sets=sets), markup=False)
    _gauntlet_and_separation(s, results)


# ----------------------------------------------------------------------------- in-process Python bots


def _is_python_bot(command: str | None) -> bool:
    from cardarena.research.ray_league import is_python_bot
    return is_python_bot(command)


def _python_bots(bots, ray: str | None) -> bool:
    """Whether the league's bots are in-process Python bots (``--bot NAME=py:…``); one line
    (exit 2) for a league mixing them with bots that play over gRPC, or ``--ray`` without them."""
    python = [n for n, c in bots if _is_python_bot(c)]
    others = [(n, c) for n, c in bots if not _is_python_bot(c)]
    if python and others:
        raise typer.BadParameter(f"bot {python[0]} is an in-process Python bot and bot {others[0][0]} is not: a "
                                 "league plays Python bots in-process or bots over gRPC, not both (a Python bot "
                                 "plays over gRPC as a program: cardarena.client.run)", param_hint="--bot")
    if ray is not None and others:
        name, command = others[0]
        what = "a program" if command else "a registered bot that connects itself"
        raise click_exc.UsageError(f"--ray plays the matches of in-process Python bots (--bot NAME=py:MODULE:ATTR); "
                                   f"bot {name} is {what}")
    return bool(python)


def _where(ray: str | None) -> str:
    if ray is None:
        return "in-process Python bots, played in this process"
    if ray == "local":
        return "in-process Python bots, played on a Ray of this command's own"
    return f"in-process Python bots, played on the Ray cluster at {ray}"


def _load_python_bots(bots, given: list[str] | None = None, workdir: str | None = None) -> dict:
    """The bots' objects: those given on this command line (``given``: its --bot arguments; all
    of them for `league run`) from this folder, one line and exit 2 if one names none; those a
    league recorded from its folder (``workdir``), one line and exit 1."""
    from cardarena.research.ray_league import BotSpecError, load_bot
    here = {n for n, _ in parse_bots(given)} if given else set()
    loaded = {}
    for name, command in bots:
        try:
            loaded[name] = load_bot(command, None if name in here or not workdir else workdir)
        except BotSpecError as e:
            if name in here:
                raise typer.BadParameter(f"bot {name}: {e}", param_hint="--bot") from None
            raise CliError(f"bot {name} of the league ({command}) cannot be loaded: {e}") from None
    return loaded


def _connect_ray(ray: str | None) -> None:
    """Start or join Ray for ``--ray`` (once): a malformed address is one line and exit 2; Ray
    missing, or not answering, one line and exit 1."""
    if ray is None:
        return
    from cardarena.research import ray_play
    try:
        ray_play.connect(ray)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--ray") from None
    except (ray_play.RayMissing, ray_play.RayUnavailable) as e:
        raise CliError(str(e)) from None


def _league_run_in_process(spec, bots, ray: str | None, db: str, lease: float) -> None:
    """`league run` of in-process Python bots: the league scheduled and recorded as any league,
    its matches played in this process or on Ray (cardarena.research.ray_league)."""
    from ..league import league_plans, league_settings, time_control
    from ..referee import TimeControl
    loaded = _load_python_bots(bots, [f"{n}={c}" for n, c in bots])
    _connect_ray(ray)
    plans = league_plans(spec)
    total = len(plans)
    ledger = open_ledger(db)
    _register_bots(ledger, bots)
    settings = league_settings(spec, time_control(spec, TimeControl()))
    _announce(spec, spec.bots, plans, settings, _where(ray))

    async def play(referee, ledger_, progress, stats, programs):
        from ..league import run_league
        return await run_league(referee, ledger_, spec, progress=progress, stats=stats, plans=plans, lease=lease)

    state: dict = {}
    league_id, stats = _run_in_process(loaded, ray, ledger, total, 0, play, state, spec.game)
    _after_league(ledger, league_id, spec.game, stats, {})


def _run_in_process(bots: dict, ray: str | None, ledger, total: int, done: int, play, state: dict, game: str):
    """``play(referee, ledger, progress, stats, programs)`` with the referee of in-process bots
    (on Ray with ``ray``), under the progress bar, as :func:`_run_league_locally` runs it with a
    hosted one: Ctrl-C, SIGTERM, SIGHUP and a ledger that cannot record stop it with one line and
    leave the league resumable. Ray that cannot be started or joined: one line, exit 1."""
    import asyncio
    from cardarena.ratings import LedgerStorageError
    from cardarena.research import ray_play
    from cardarena.research.ray_league import InProcessReferee
    from ..league import LeagueStats, RecorderError
    stats = state["stats"] = LeagueStats()
    _connect_ray(ray)
    got: list[int] = []

    def stopped(why: str) -> str:
        lid = state.get("league")
        if lid is None:
            return why
        return _stopped_at(why, lid, ledger, state, total)

    async def main():
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, lambda s=sig: (got.append(s), task.cancel()))
        referee = InProcessReferee(bots, ray=ray is not None)
        bar, bar_task = _league_bar(f"league {state.get('league') or ''} ({game})", total, done)
        try:
            with bar:
                return await play(referee, ledger, _league_progress(state, bar, bar_task, game), stats, {})
        finally:
            referee.close()

    try:
        result = asyncio.run(main())
    except KeyboardInterrupt:
        raise CliError(stopped("interrupted"), code=130) from None
    except asyncio.CancelledError:
        if not got:
            raise
        raise CliError(stopped(f"stopped by {signal.Signals(got[0]).name}"), code=128 + got[0]) from None
    except (LedgerStorageError, RecorderError) as e:
        raise CliError(stopped(str(e))) from None
    finally:
        if ray is not None:
            ray_play.shutdown()
    return result, stats
