"""Generates the protobuf/gRPC code from proto/ whenever the package is built (proto/generate.py)."""
import runpy
from pathlib import Path

from setuptools import setup

runpy.run_path(str(Path(__file__).resolve().parent / "proto" / "generate.py"))["generate"]()
setup()
