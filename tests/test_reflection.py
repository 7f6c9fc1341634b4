"""A generic gRPC client, knowing nothing of cardarena, discovers the server's services through
server reflection, resolves cardarena.v1.Referee and its messages, and plays the first move of
the protocol (Hello → Welcome) with message classes built from the reflected descriptors only.
"""
from __future__ import annotations

import asyncio

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from cardarena.ratings import Ledger
from cardarena.server.referee import Referee
from cardarena.server.service import start_server


def generic_client(address: str, token: str) -> dict:
    """What grpcurl does: list, describe, call; no generated code."""
    with grpc.insecure_channel(address) as channel:
        db = ProtoReflectionDescriptorDatabase(channel)
        services = set(db.get_services())
        pool = DescriptorPool(db)
        referee = pool.FindServiceByName("cardarena.v1.Referee")
        play = referee.FindMethodByName("Play")
        decision = pool.FindMessageTypeByName("cardarena.v1.Decision")
        admin = pool.FindServiceByName("cardarena.v1.Admin")

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
            "first": (first.WhichOneof("kind"), first.welcome.bot),
        }


def test_a_generic_client_discovers_and_calls_the_referee_through_reflection(tmp_path):
    async def scenario():
        referee = Referee()
        hosted = await start_server(referee, "127.0.0.1:0", ledger=Ledger(str(tmp_path / "r.db")),
                                    admin_token="admin-secret")
        try:
            token = referee.mint_session_token("explorer")
            return await asyncio.to_thread(generic_client, hosted.address, token)
        finally:
            await hosted.server.stop(grace=0)

    seen = asyncio.run(scenario())
    assert {"cardarena.v1.Referee", "cardarena.v1.Admin", "grpc.health.v1.Health",
            "grpc.reflection.v1alpha.ServerReflection"} <= seen["services"]
    assert seen["play"] == ("cardarena.v1.BotMessage", "cardarena.v1.RefereeMessage", True, True)
    assert {"sixth_card", "unsorted", "scout", "scouting", "three_thirteen"} <= set(seen["views"])
    assert "RunLeague" in seen["admin_methods"]
    assert seen["first"] == ("welcome", "explorer")
