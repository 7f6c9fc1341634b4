"""tests/research: the research extra (cardarena.research); without numpy, pettingzoo or
open_spiel the whole folder is skipped with one line naming the extra to install; under CI (CI
set: `.ci/run` installs the extra) it fails instead, as the PostgreSQL pass does.

Each test module is replaced by a collector that skips (raised from this one line, so pytest
folds every module's skip into one summary line); pytest.importorskip here would skip the folder
too, but breaks a run that names one of its files.
"""
from __future__ import annotations

import importlib.util
import os

import pytest

MISSING = [m for m in ("numpy", "pettingzoo", "pyspiel") if importlib.util.find_spec(m) is None]

if MISSING:
    class _Skipped(pytest.Module):
        def collect(self):
            why = f"needs {', '.join(MISSING)}: pip install 'cardarena[research]'"
            if os.environ.get("CI"):
                pytest.fail(f"CI must run the research tests: {why}", pytrace=False)
            pytest.skip(why)

    def pytest_pycollect_makemodule(module_path, parent):
        return _Skipped.from_parent(parent, path=module_path)
