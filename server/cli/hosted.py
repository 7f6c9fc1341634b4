"""``cardarena bot submit | versions | activate | retire | logs``: a hosted bot's author uploads
its code to a server, which runs it in a sandbox (``serve``), and manages its versions and reads
its logs, with the bot's own token. ``--db`` reads or changes a local ledger instead (the
organizer's, who holds the file)."""

import os
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import CliError, bot_app, err, out
from .common import _token_file, check_address, open_ledger, read_ledger

#: Bytes a Submit message carries (under grpc's 4 MB a message).
PART = 1024 * 1024

ServerOpt = Annotated[Optional[str], typer.Option(
    "--server", envvar="CARDARENA_ADDRESS", show_envvar=False,
    help="The server, HOST:PORT (default: CARDARENA_ADDRESS, else 127.0.0.1:50051).")]
TokenFileOpt = Annotated[Optional[Path], typer.Option(
    "--token-file", help="A file holding the bot's token (default: CARDARENA_TOKEN).")]
LocalDbOpt = Annotated[Optional[str], typer.Option(
    "--db", help="Read or change this ledger (a SQLite file or an SQLAlchemy URL) instead of asking a server.")]


def _stub(server: str | None, token_file: Path | None):
    import grpc
    from cardarena.v1 import hosting_pb2_grpc
    server = server or "127.0.0.1:50051"
    check_address(server, "--server")
    token = _token_file(token_file, "token") if token_file is not None else os.environ.get("CARDARENA_TOKEN", "")
    if not token:
        raise typer.BadParameter("no token: give --token-file or set CARDARENA_TOKEN (the bot's own, from `cardarena "
                                 "bot add`)", param_hint="--token-file")
    ca = os.environ.get("CARDARENA_TLS_CA")
    if ca:
        try:
            channel = grpc.secure_channel(server, grpc.ssl_channel_credentials(Path(ca).read_bytes()))
        except OSError as e:
            raise CliError(f"cannot read CARDARENA_TLS_CA: {e}") from None
    else:
        channel = grpc.insecure_channel(server, options=[("grpc.max_send_message_length", 2 * PART)])
    return hosting_pb2_grpc.HostingStub(channel), (("authorization", f"Bearer {token}"),), server


def _call(call, *args, server: str, **kwargs):
    import grpc
    try:
        return call(*args, timeout=600, **kwargs)
    except grpc.RpcError as e:
        if e.code() == grpc.StatusCode.UNAVAILABLE:
            raise CliError(f"cannot reach the server at {server}: is `cardarena serve` running there?") from None
        raise CliError(f"server: {e.details() or e.code().name}") from None


def _version_line(v) -> str:
    ratings = ", ".join(f"{r.game} μ {r.mu:.2f} σ {r.sigma:.2f}" for r in v.ratings) or "not rated yet"
    return f"{v.name}\t{v.state}\t{v.created}\t{v.size:,} B\t{v.matches} matches\t{ratings}\tsha256 {v.sha256[:12]}"


@bot_app.command("submit")
def bot_submit(name: Annotated[str, typer.Argument(help="The bot's name (registered with `bot add`).")],
               path: Annotated[Path, typer.Argument(help="A folder, a .tar.gz or a .zip of the bot's files.")],
               run: Annotated[str, typer.Option("--run", help="The command that starts the bot, run in its folder "
                                                              "(e.g. \"python3 bot.py\", \"./bot\").")],
               build: Annotated[Optional[str], typer.Option(
                   "--build", help="A command run once after the upload, in the sandbox, without network (e.g. "
                                   "\"g++ -O2 -o bot bot.cpp\"); a version whose build fails never plays.")] = None,
               server: ServerOpt = None, token_file: TokenFileOpt = None,
               wait: Annotated[bool, typer.Option("--wait/--no-wait", help="Wait for the build to end and say "
                                                                           "how it went.")] = True):
    """Upload a bot's code: the server keeps it as a new version NAME@K and runs it in a sandbox
    on its ladders, without your machine. Its output a match: `cardarena bot logs NAME`."""
    from cardarena.v1 import hosting_pb2 as hpb
    from .. import bundle
    if not run.strip():
        raise typer.BadParameter("give the command that starts the bot", param_hint="--run")
    if build is not None and not build.strip():
        raise typer.BadParameter("give a command, or leave --build out", param_hint="--build")
    if not path.exists():
        raise typer.BadParameter(f"{path} does not exist", param_hint="PATH")
    try:
        if path.is_dir():
            data, fmt = bundle.pack(path, bundle.MAX_ARCHIVE * 8), "tar.gz"
            sha = bundle.content_hash(path)[0]
        else:
            fmt = bundle.archive_format(path)
            data, sha = path.read_bytes(), None
    except bundle.BundleError as e:
        raise typer.BadParameter(str(e), param_hint="PATH") from None
    except OSError as e:
        raise CliError(f"cannot read {path}: {e.strerror or e}") from None
    stub, md, server = _stub(server, token_file)

    def parts():
        yield hpb.SubmitPart(header=hpb.SubmitHeader(bot=name, run=run, build=build or "", format=fmt,
                                                     size=len(data)), data=data[:PART])
        for at in range(PART, len(data), PART):
            yield hpb.SubmitPart(data=data[at:at + PART])
    v = _call(stub.Submit, parts(), metadata=md, server=server).version
    out.print(f"{v.name}: {v.size:,} bytes of files, sha256 {v.sha256}", markup=False)
    if sha is not None and sha != v.sha256:
        raise CliError(f"the server kept other files than sent (sha256 {v.sha256}, sent {sha})")
    if v.state == "building" and wait:
        err.print(f"{v.name}: building (`{build}`) …", markup=False)
        while v.state == "building":
            time.sleep(1.0)
            reply = _call(stub.Versions, hpb.VersionsRequest(bot=name), metadata=md, server=server)
            v = next((x for x in reply.versions if x.name == v.name), v)
        if v.state == "failed":
            sys.stderr.write(v.build_log[-4000:] + ("\n" if not v.build_log.endswith("\n") else ""))
            raise CliError(f"{v.name} failed to build: it will not play (its build log is above)")
    if v.state == "active":
        out.print(f"{v.name} is {name}'s active version: the server runs it on its ladders", markup=False)
    else:
        out.print(f"{v.name} is {v.state}", markup=False)


@bot_app.command("versions")
def bot_versions(name: Annotated[str, typer.Argument(help="The bot's name.")], server: ServerOpt = None,
                 token_file: TokenFileOpt = None, db: LocalDbOpt = None):
    """List a hosted bot's versions: state (building, active, failed, retired), when, size,
    matches and ratings."""
    if db is not None:
        from ..hosting_service import version_pb
        versions = [version_pb(v) for v in read_ledger(db).versions(name)]
    else:
        from cardarena.v1 import hosting_pb2 as hpb
        stub, md, server = _stub(server, token_file)
        versions = _call(stub.Versions, hpb.VersionsRequest(bot=name), metadata=md, server=server).versions
    if not versions:
        err.print(f"{name} has no versions: `cardarena bot submit {name} FOLDER --run COMMAND` makes one", markup=False)
        return
    sys.stderr.write("version\tstate\tsubmitted\tsize\tmatches\tratings\thash\n")
    for v in versions:
        print(_version_line(v))


def _set_state(name: str, state: str, server, token_file, db) -> None:
    if db is not None:
        from ..hosting_service import version_pb
        v = version_pb(open_ledger(db).set_version_state(name, state))
    else:
        from cardarena.v1 import hosting_pb2 as hpb
        stub, md, server = _stub(server, token_file)
        if state == "active":
            v = _call(stub.Activate, hpb.ActivateRequest(name=name), metadata=md, server=server).version
        else:
            v = _call(stub.Retire, hpb.RetireRequest(name=name), metadata=md, server=server).version
    out.print(f"{v.name} is " + ("the active version: the arena runs it" if state == "active"
                                 else "retired: the arena no longer runs it"), markup=False)


@bot_app.command("activate")
def bot_activate(name: Annotated[str, typer.Argument(help="The version, NAME@K.")], server: ServerOpt = None,
                 token_file: TokenFileOpt = None, db: LocalDbOpt = None):
    """Make a version that built the bot's active one (the arena runs it; the one before is retired)."""
    _set_state(name, "active", server, token_file, db)


@bot_app.command("retire")
def bot_retire(name: Annotated[str, typer.Argument(help="The version, NAME@K.")], server: ServerOpt = None,
               token_file: TokenFileOpt = None, db: LocalDbOpt = None):
    """Retire a version: the arena stops running it (its matches and ratings stay)."""
    _set_state(name, "retired", server, token_file, db)


@bot_app.command("logs")
def bot_logs(name: Annotated[str, typer.Argument(help="The bot (every version) or one version, NAME@K.")],
             match: Annotated[Optional[int], typer.Option("--match", min=1, help="Only this match's.")] = None,
             limit: Annotated[int, typer.Option("--limit", min=1, max=100, help="How many logs, newest first.")] = 5,
             server: ServerOpt = None, token_file: TokenFileOpt = None, db: LocalDbOpt = None):
    """Show what a hosted bot wrote (stdout and stderr) a match, the last 64 KB of each, newest
    first: only to the bot's own token (or to whoever holds the ledger, with --db)."""
    if db is not None:
        rows = [(n, log.match_id or 0, log.created_at.isoformat(timespec="seconds"), log.text)
                for n, log in read_ledger(db).bot_logs(name, match, limit)]
    else:
        from cardarena.v1 import hosting_pb2 as hpb
        stub, md, server = _stub(server, token_file)
        reply = _call(stub.Logs, hpb.LogsRequest(bot=name, match_id=match or 0, limit=limit), metadata=md,
                      server=server)
        rows = [(x.version, x.match_id, x.created, x.text) for x in reply.logs]
    if not rows:
        err.print(f"no logs of {name}" + (f" in match {match}" if match else ""), markup=False)
        return
    for version, match_id, created, text in rows:
        where = f"match {match_id}" if match_id else "outside a match"
        print(f"== {version}, {where}, {created} ==")
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
