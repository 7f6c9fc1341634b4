"""Whether the codecs run compiled (mypyc) or as Python.

``compile_codecs.py`` (``make research``) compiles the codec modules (:data:`MODULES`: ``spaces``
and the games' codecs), the same source, into the package ``_fast`` beside them. Each of those
modules ends with :func:`take`, which puts the module's build in its place (an import of the
module gives the build) when the build was made from these sources as they are now (the hash of
all of them, ``_SOURCE`` in the build) and ``CARDARENA_CODECS`` is not ``python``; else the
module stays Python, and :func:`why` says why in one line. All the modules are taken or none.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the modules compiled together, in this folder
MODULES = ("spaces", "codec_sixth_card", "codec_unsorted", "codec_show_scout", "codec_three_thirteen")
#: the package of the build (a folder beside this module that only compile_codecs.py writes)
PACKAGE = "cardarena.research._fast"
#: set CARDARENA_CODECS=python to run the codecs as Python
ENV = "CARDARENA_CODECS"

_state: tuple[bool, str] | None = None


def source_hash() -> str:
    """The hash of the sources of :data:`MODULES` as they are now."""
    h = hashlib.sha256()
    for name in MODULES:
        h.update(name.encode() + b"\0" + (HERE / f"{name}.py").read_bytes() + b"\0")
    return h.hexdigest()


def _decide() -> tuple[bool, str]:
    if os.environ.get(ENV) == "python":
        return False, f"the codecs run as Python: {ENV}=python asks for it"
    try:
        built = importlib.import_module(PACKAGE + ".spaces")
    except ImportError as e:
        return False, f"the codecs run as Python: no compiled build here ({e}; make research builds it)"
    if getattr(built, "_SOURCE", None) != source_hash():
        return False, ("the codecs run as Python: their compiled build is of other sources "
                       "(make research builds it again)")
    return True, "the codecs run compiled (mypyc; server/research/compile_codecs.py)"


def state() -> tuple[bool, str]:
    """(compiled or not, the line that says which and why), decided once a process."""
    global _state
    if _state is None:
        _state = _decide()
    return _state


def compiled() -> bool:
    return state()[0]


def why() -> str:
    return state()[1]


def take(name: str) -> bool:
    """Put the compiled build of module ``name`` in its place in ``sys.modules`` if the build is
    current (the module's import then gives the build); whether it did. The build runs this too,
    and takes nothing."""
    if name.startswith(PACKAGE + ".") or not compiled():
        return False
    built = importlib.import_module(PACKAGE + "." + name.rpartition(".")[2])
    if built.__doc__ is None:  # (mypyc keeps no module docstring)
        built.__doc__ = sys.modules[name].__doc__
    sys.modules[name] = built
    return True
