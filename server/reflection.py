"""gRPC server reflection in both versions: ``grpc.reflection.v1`` and ``grpc.reflection.v1alpha``.

grpcio-reflection implements only v1alpha (grpc/grpc#38576), while newer grpcurl, Postman and
evans ask for v1 first. The two versions are the same protocol: the same messages with the same
field numbers, under another package name. So one servicer answers both: grpcio-reflection's
(async) servicer is registered as itself and once more under the v1 service name, with the
v1alpha messages as (de)serializers, since their bytes are the v1 messages' bytes.

For reflection to describe itself in v1 too (``grpcurl describe grpc.reflection.v1.ServerReflection``),
the v1 file is added to the descriptor pool: the v1alpha file with its package renamed.
"""
from __future__ import annotations

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1ALPHA_SERVICE = reflection.SERVICE_NAME  # grpc.reflection.v1alpha.ServerReflection
V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE = f"{V1_PACKAGE}.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"


def _v1_file() -> descriptor_pb2.FileDescriptorProto:
    """grpc/reflection/v1/reflection.proto, made from the v1alpha file: every name moved from
    the v1alpha package to the v1 package, nothing else changed (so the wire is the same)."""
    old = reflection_pb2.DESCRIPTOR.package
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name, proto.package = V1_FILE, V1_PACKAGE
    proto.ClearField("options")  # v1alpha's language options (java_package, …) are not v1's

    def rename(type_name: str) -> str:
        return type_name.replace(f".{old}.", f".{V1_PACKAGE}.", 1)

    def visit(message: descriptor_pb2.DescriptorProto) -> None:
        for field in message.field:
            if field.type_name:
                field.type_name = rename(field.type_name)
        for nested in message.nested_type:
            visit(nested)

    for message in proto.message_type:
        visit(message)
    for service in proto.service:
        for method in service.method:
            method.input_type, method.output_type = rename(method.input_type), rename(method.output_type)
    return proto


def _add_v1_file(pool: descriptor_pool.DescriptorPool) -> None:
    try:
        pool.FindFileByName(V1_FILE)
    except KeyError:
        pool.AddSerializedFile(_v1_file().SerializeToString())


def enable_server_reflection(service_names: list[str], server: grpc.aio.Server) -> list[str]:
    """Serve reflection v1 and v1alpha on ``server``, listing ``service_names`` and both
    reflection services; returns the names listed."""
    _add_v1_file(descriptor_pool.Default())
    names = [*service_names, V1_SERVICE, V1ALPHA_SERVICE]
    servicer = reflection.aio.ReflectionServicer(names)
    for service in (V1ALPHA_SERVICE, V1_SERVICE):
        info = {"ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)}
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, info),))
        server.add_registered_method_handlers(service, info)
    return names
