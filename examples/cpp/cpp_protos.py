#!/usr/bin/env python3
"""Copy proto/ for the C++ code generator, renaming the fields whose C++ accessors would clash.

protobuf's C++ generator gives a repeated field ``x`` an accessor ``x_size()``; a message that
also has a field named ``x_size`` (UnsortedSeat: ``repeated string hand`` and ``int32
hand_size``) then does not compile. The wire format carries field numbers, not names, so the
copy renames such a field to ``x_size_value`` (accessor ``hand_size_value()``) and stays fully
compatible with the referee. Every other line is copied as it is.

    python3 cpp_protos.py SRC_PROTO_DIR DEST_DIR
"""
import re
import sys
from pathlib import Path

FIELD = re.compile(r"^(\s*)(repeated\s+|optional\s+)?([\w.]+)\s+(\w+)\s*=\s*(\d+)")


def rename_clashes(text: str) -> tuple[str, list[str]]:
    lines = text.split("\n")
    # message blocks: brace depth tracking; fields belong to the innermost open message
    stack: list[dict] = []
    owner: dict[int, dict] = {}
    for i, line in enumerate(lines):
        code = line.split("//")[0]
        if re.match(r"\s*message\s+\w+\s*\{", code):
            stack.append({"repeated": set(), "fields": {}})
            code = code[code.index("{") + 1:]
        elif "{" in code and stack:  # oneof / enum blocks: fields still belong to the message
            stack.append({"inner": stack[-1]})
            code = code[code.index("{") + 1:]
        m = FIELD.match(code)
        if m and stack:
            msg = stack[-1].get("inner", stack[-1])
            if m.group(2) and m.group(2).strip() == "repeated":
                msg["repeated"].add(m.group(4))
            msg["fields"].setdefault(m.group(4), []).append(i)
            owner[i] = msg
        for _ in range(code.count("}")):
            if stack:
                stack.pop()
    renamed = []
    for msg in {id(m): m for m in owner.values()}.values():
        for name in msg["repeated"]:
            for i in msg["fields"].get(f"{name}_size", []):
                lines[i] = re.sub(rf"\b{name}_size\b(?=\s*=)", f"{name}_size_value", lines[i], count=1)
                renamed.append(f"{name}_size")
    return "\n".join(lines), renamed


def main(src: str, dest: str) -> None:
    src_dir, dest_dir = Path(src), Path(dest)
    for path in sorted(src_dir.rglob("*.proto")):
        text, renamed = rename_clashes(path.read_text(encoding="utf-8"))
        out = dest_dir / path.relative_to(src_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")
        for name in renamed:
            print(f"{path.relative_to(src_dir)}: field {name} is {name}_value() in C++", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
