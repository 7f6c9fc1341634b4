"""TLS: the referee serves with a certificate and key; the SDK connects with the CA file.

The certificate is made by the test (cryptography), for 127.0.0.1 and localhost.
"""
from __future__ import annotations

import asyncio
import datetime
import ipaddress
import os
import subprocess
import sys
from pathlib import Path

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from cardarena.server.referee import Referee
from cardarena.server.service import start_server
from cardarena.v1 import referee_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]


def make_cert(tmp: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cardarena test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_a_match_over_tls_and_no_plaintext_access(tmp_path):
    cert, key = make_cert(tmp_path)

    async def main():
        referee = Referee()
        hosted = await start_server(referee, "127.0.0.1:0", tls=(cert.read_bytes(), key.read_bytes()))
        address = f"localhost:{hosted.port}"
        bots = []
        try:
            for name in ("t1", "t2"):
                env = {**os.environ, "CARDARENA_ADDRESS": address, "CARDARENA_TOKEN": referee.mint_session_token(name),
                       "CARDARENA_TLS_CA": str(cert)}
                bots.append(subprocess.Popen([sys.executable, str(ROOT / "examples" / "python" / "random_bot.py")], env=env))
            assert await referee.wait_for_bots(["t1", "t2"], 20) == []
            out = await referee.play("sixth-card", ["t1", "t2"], 5, {"rounds": 1}, "tls-1")
            # a plaintext client cannot talk to the TLS port
            async with grpc.aio.insecure_channel(address) as ch:
                call = referee_pb2_grpc.RefereeStub(ch).Play(metadata=(("authorization", "Bearer x"),))
                try:
                    await asyncio.wait_for(call.read(), 5)
                    reached = True
                except (grpc.aio.AioRpcError, asyncio.TimeoutError):
                    reached = False
            return out, reached
        finally:
            for b in bots:
                b.kill()
            await hosted.server.stop(0)

    out, reached = asyncio.run(main())
    assert out.faults == [0, 0] and sorted(out.result.places)[0] == 1
    assert not reached
