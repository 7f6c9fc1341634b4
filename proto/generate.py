"""Generate the protobuf and gRPC Python code from proto/cardarena/v1/*.proto.

The modules land in proto/gen/cardarena/v1 (ignored by git) and install as ``cardarena.v1``;
they are never edited by hand. setup.py runs this on every build; ``make proto`` runs it alone.

``generate.py --lang LANG`` (``make proto-LANG``) generates another language's code instead,
into proto/gen/LANG: ``buf generate`` with the plugins of proto/buf.gen.yaml whose ``out`` is
gen/LANG, and nothing else of that file's plugins.
"""
from __future__ import annotations

import importlib.resources
import re
import shutil
import subprocess
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


def buf_template(lang: str) -> tuple[str, list[str]]:
    """proto/buf.gen.yaml with only LANG's plugins, and the local plugins they name. The file
    holds one ``  - `` item per plugin under ``plugins:``; an item is LANG's if its ``out`` is
    gen/LANG or under it."""
    head, items, in_plugins = [], [], False
    for line in (HERE / "buf.gen.yaml").read_text(encoding="utf-8").splitlines():
        if not in_plugins:
            head.append(line)
            in_plugins = line == "plugins:"
        elif line.startswith("  - "):
            items.append([line])
        elif line.startswith("    ") and items:
            items[-1].append(line)
    mine = re.compile(rf"\s*out: gen/{re.escape(lang)}(/.*)?")
    chosen = [item for item in items if any(mine.fullmatch(line) for line in item)]
    if not chosen:
        langs = sorted({m.group(1) for item in items for line in item if (m := re.match(r"\s*out: gen/([\w-]+)", line))})
        raise SystemExit(f"no plugin in proto/buf.gen.yaml writes gen/{lang}; languages: {', '.join(langs)}")
    plugins = [m.group(1) for item in chosen if (m := re.match(r"  - local: (\S+)", item[0]))]
    return "\n".join(head + [line for item in chosen for line in item]) + "\n", plugins


def generate_lang(lang: str) -> None:
    template, plugins = buf_template(lang)
    buf = Path(sys.executable).parent / "buf"
    buf = str(buf) if buf.exists() else shutil.which("buf")
    if buf is None:
        raise SystemExit("buf not found: pip install buf-bin")
    missing = [p for p in plugins if not (shutil.which(p) or (HERE / p).exists())]
    if missing:
        raise SystemExit(f"{lang}: plugin not installed: {', '.join(missing)} (proto/buf.gen.yaml says where "
                         "each one comes from)")
    if subprocess.run([buf, "generate", "--template", template], cwd=HERE).returncode != 0:
        raise SystemExit(f"buf generate failed for {lang}")
    print(f"generated: proto/gen/{lang}", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--lang"] and len(sys.argv) == 3:
        generate_lang(sys.argv[2])
    elif len(sys.argv) > 1:
        raise SystemExit("usage: generate.py [--lang LANG]")
    else:
        print("generated:", " ".join(generate()) or "nothing", file=sys.stderr)
