"""Compile the codecs (``spaces.py`` and the games' ``codec_*.py``) with mypyc: ``make research`` runs it.

    python server/research/compile_codecs.py [--check]

The codecs are plain Python and stay the one source: this script compiles copies of the modules
of ``compiled.MODULES`` together as the package ``cardarena.research._fast`` (the same code, each
with the hash of all their sources in ``_SOURCE``) and puts the built modules in ``_fast/`` beside
them, where each module takes its build when it is imported, if the build was made from the
sources as they are now (``compiled.take``). Sources edited since the build run as Python until
the next build: a stale build is never used. tests/research/test_compiled_codecs.py holds the
build's tensors and ids to the Python ones.

It needs mypy (mypyc comes with it) and a C compiler; without them it says so in one line and
exits 1, and the codecs run as Python. ``--check`` only says whether the build is current (exit
0) or not (exit 1).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from cardarena.research import compiled

HERE = Path(__file__).resolve().parent

TARGET = HERE / "_fast"
GROUP = "codecs"  # the build's shared library: _fast/codecs__mypyc…

SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(name="cardarena-codecs", script_args=["build_ext", "--inplace"],
      ext_modules=mypycify({paths!r}, group_name="cardarena.research._fast.{group}", opt_level="2"))
"""


def current() -> bool:
    """Whether the build in _fast/ is taken: made from the sources as they are now."""
    env = {k: v for k, v in os.environ.items() if k != compiled.ENV}
    probe = "import sys; from cardarena.research import compiled; sys.exit(0 if compiled.compiled() else 1)"
    return subprocess.run([sys.executable, "-c", probe], env=env).returncode == 0


def compile_codecs() -> None:
    try:
        import mypyc  # noqa: F401
    except ImportError:
        raise SystemExit("compile_codecs: mypy is not installed (pip install mypy); the codecs run as Python")
    digest = compiled.source_hash()
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    with tempfile.TemporaryDirectory(prefix="cardarena-codecs-") as tmp:
        package = Path(tmp, "cardarena", "research", "_fast")
        package.mkdir(parents=True)
        for d in (package.parent.parent, package.parent, package):
            (d / "__init__.py").write_text("")
        paths = []
        for name in compiled.MODULES:
            text = (HERE / f"{name}.py").read_text(encoding="utf-8")
            (package / f"{name}.py").write_text(
                text + f"\n\n_SOURCE = {digest!r}  # (compile_codecs.py: the sources it was built from)\n",
                encoding="utf-8")
            paths.append(f"cardarena/research/_fast/{name}.py")
        shutil.copyfile(HERE / "compiled.py", package.parent / "compiled.py")  # (read, not compiled)
        # the rest of cardarena is not here: its names are of unknown type to the build
        args = ["--ignore-missing-imports", *paths]
        Path(tmp, "setup.py").write_text(SETUP.format(paths=args, group=GROUP))
        out = subprocess.run([sys.executable, "setup.py"], cwd=tmp, capture_output=True, text=True)
        built = sorted(package.glob("*" + suffix))
        wanted = {f"{name}{suffix}" for name in compiled.MODULES} | {f"{GROUP}__mypyc{suffix}"}
        if out.returncode or not wanted <= {p.name for p in built}:
            lines = (out.stdout + out.stderr).strip().splitlines()
            tail = [line for line in lines if line.startswith("error") or ": error" in line][-8:] or lines[-5:]
            raise SystemExit("compile_codecs: mypyc failed; the codecs run as Python:\n  "
                             + "\n  ".join(line[:240] for line in tail))
        TARGET.mkdir(exist_ok=True)
        for old in TARGET.glob("*" + suffix):  # (a process running the old build keeps it: files
            if old.name not in wanted:  # are replaced, never written over)
                old.unlink()
        for lib in built:
            part = TARGET / (lib.name + ".part")
            shutil.copyfile(lib, part)
            os.replace(part, TARGET / lib.name)
        (TARGET / "__init__.py").write_text('"""The codecs compiled by ../compile_codecs.py (not in git)."""\n')


def main() -> None:
    if "--check" in sys.argv[1:]:
        ok = current()
        print(f"compile_codecs: the compiled codecs are {'current' if ok else 'missing or stale'}")
        raise SystemExit(0 if ok else 1)
    compile_codecs()
    if not current():
        raise SystemExit("compile_codecs: the codecs were built but are not taken; they run as Python")
    print(f"compile_codecs: built server/research/_fast/ from {', '.join(m + '.py' for m in compiled.MODULES)}")


if __name__ == "__main__":
    main()
