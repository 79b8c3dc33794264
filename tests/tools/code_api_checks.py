"""Checks that a generated code-mode API is a real Python module: it compiles, imports, its hints
resolve, and (with mypy installed, a test dependency) it type-checks strictly as a stub."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import typing
from pathlib import Path

from tools.code_api import CodeApi


def imported(api: CodeApi, where: Path) -> object:
    """The API text as an imported module, every method's type hints resolved."""
    path = where / "whimbrel_tools_api.py"
    path.write_text(api.text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("whimbrel_tools_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for dotted in api.bindings:
        owner = module.Tools
        *namespaces, name = dotted.split(".")
        for namespace in namespaces:
            owner = typing.get_type_hints(owner)[namespace]
        hints = typing.get_type_hints(getattr(owner, name))
        assert hints["return"] is str, dotted
    return module


def mypy_problems(api: CodeApi, where: Path) -> str:
    """mypy --strict's complaints about the API as a stub ('' when clean); None-like '' without mypy."""
    if importlib.util.find_spec("mypy") is None:
        return ""
    stub = where / "whimbrel_tools_api.pyi"
    stub.write_text(api.text, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(where / ".mypy"),
                          str(stub)], capture_output=True, text=True, timeout=600)
    return "" if out.returncode == 0 else out.stdout + out.stderr
