"""Generate the protobuf and gRPC Python code from proto/cardarena/v1/*.proto.

The modules land in proto/gen/cardarena/v1 (ignored by git) and install as ``cardarena.v1``;
they are never edited by hand. setup.py runs this on every build; ``make proto`` runs it alone.
"""
from __future__ import annotations

import importlib.resources
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def generate() -> list[str]:
    from grpc_tools import protoc

    out = HERE / "gen"
    pkg = out / "cardarena" / "v1"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text('"""Generated from proto/cardarena/v1 by proto/generate.py; do not edit."""\n')
    files = sorted(str(p.relative_to(HERE)) for p in (HERE / "cardarena" / "v1").glob("*.proto"))
    if not files:
        return files
    include = str(importlib.resources.files("grpc_tools") / "_proto")
    rc = protoc.main(["protoc", f"-I{HERE}", f"-I{include}", f"--python_out={out}",
                      f"--pyi_out={out}", f"--grpc_python_out={out}", *files])
    if rc != 0:
        raise SystemExit(f"protoc failed on {files}")
    return files


if __name__ == "__main__":
    print("generated:", " ".join(generate()) or "nothing", file=sys.stderr)
