"""Compile the meld solver (``melds.py``) with mypyc: ``make setup`` runs it.

    python server/games/compile_melds.py [--check]

The solver is plain Python and stays the one source: this script compiles a copy of
``melds.py`` as ``cardarena.server.games._melds_fast`` (the same code, with the hash of the
source it was built from in ``_SOURCE``) and puts the built module beside ``melds.py``, where
``melds`` takes it when it is imported, if it was built from ``melds.py`` as it is now
(:func:`cardarena.server.games.melds._compiled`). A solver edited since the build runs as Python
until the next build: a stale build is never used. The compiled solver is the same code with the
same answers (tests/games/test_three_thirteen.py compares them) and takes about 0.3 times the CPU on
the slowest hands known (bench/engine.py prints which one it measured).

It needs mypy (mypyc comes with it) and a C compiler; without them it says so in one line and
exits 1, and the solver runs as Python. ``--check`` only says whether the build is current
(exit 0) or not (exit 1).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "melds.py"
NAME = "_melds_fast"


def source_hash() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()


def built() -> Path:
    return HERE / (NAME + sysconfig.get_config_var("EXT_SUFFIX"))


def current() -> bool:
    """Whether the compiled solver beside melds.py was built from melds.py as it is now."""
    env = dict(os.environ, CARDARENA_SOLVER="compiled")
    probe = ("import sys; from cardarena.server.games import melds; "
             "sys.exit(0 if melds.COMPILED else 1)")
    return built().exists() and subprocess.run([sys.executable, "-c", probe], env=env).returncode == 0


def compile_melds() -> Path:
    try:
        import mypyc  # noqa: F401
    except ImportError:
        raise SystemExit("compile_melds: mypy is not installed (pip install mypy); "
                         "the meld solver runs as Python")
    with tempfile.TemporaryDirectory(prefix="cardarena-melds-") as tmp:
        package = Path(tmp, "cardarena", "server", "games")
        package.mkdir(parents=True)
        for d in (Path(tmp, "cardarena"), Path(tmp, "cardarena", "server"), package):
            (d / "__init__.py").write_text("")
        text = SOURCE.read_text(encoding="utf-8")
        (package / (NAME + ".py")).write_text(
            text + f"\n\n_SOURCE = {source_hash()!r}  # (compile_melds.py: the source it was built from)\n",
            encoding="utf-8")
        out = subprocess.run([sys.executable, "-m", "mypyc", f"cardarena/server/games/{NAME}.py"],
                             cwd=tmp, capture_output=True, text=True)
        libs = sorted(package.glob(NAME + "*" + sysconfig.get_config_var("EXT_SUFFIX")))
        if out.returncode or (package / built().name) not in libs:
            tail = (out.stdout + out.stderr).strip().splitlines()[-5:]
            raise SystemExit("compile_melds: mypyc failed; the meld solver runs as Python:\n  "
                             + "\n  ".join(tail))
        for old in HERE.glob(NAME + "*"):  # (the module and mypyc's library of its code; a
            if old.name not in {lib.name for lib in libs}:  # process running the old build
                old.unlink()  # keeps it: files are replaced, never written over)
        for lib in libs:
            part = HERE / (lib.name + ".part")
            shutil.copyfile(lib, part)
            os.replace(part, HERE / lib.name)
    return built()


def main() -> None:
    if "--check" in sys.argv[1:]:
        ok = current()
        print(f"compile_melds: the compiled meld solver is {'current' if ok else 'missing or stale'}")
        raise SystemExit(0 if ok else 1)
    path = compile_melds()
    if not current():
        raise SystemExit(f"compile_melds: {path.name} was built but is not taken; "
                         "the meld solver runs as Python")
    print(f"compile_melds: built {path.relative_to(HERE.parent.parent)} from melds.py")


if __name__ == "__main__":
    main()
