"""The mcp SDK's client half, imported without its server half: for the one-shot `whimbrel mcp VERB` process.

`import mcp.anything` first runs the package's `__init__`, which loads the server side too (the low-level server and
MCPServer, uvicorn, starlette, sse-starlette, the auth routes); `mcp.client.client` imports `Server`, `MCPServer` and
`modern_on_request` itself, only to connect to a server object in the same process, which a one-shot verb never does.
That is about a fifth of the SDK's ~0.8 s of import CPU, paid by every `whimbrel mcp tools` while the user waits.

So, in a process that has not imported the SDK and will never serve (the command line's own process: the caller
says so), `import_client_only` puts stand-ins in `sys.modules` for the `mcp` package (its real folder, so its
submodules import as usual, but without its `__init__`) and for those three server names (classes no server object
is an instance of), then imports the client modules the manager uses. Whimbrel's MCP code imports the SDK through
submodules (`mcp.client.client`, `mcp.types`, `mcp.client.stdio`), never `from mcp import X`, so it runs unchanged.
If the SDK's layout has changed and the light import fails, the stand-ins and whatever it loaded are taken out and
the SDK is imported whole (slower, never broken). `tests/mcp/test_cli_speed.py` pins the names.
"""

from __future__ import annotations

import importlib.util
import sys
import types

# the server-side names `mcp.client.client` and `mcp.client._memory` import at module level
SERVER_NAMES = {"mcp.server": ("Server",), "mcp.server.mcpserver": ("MCPServer",),
                "mcp.server.runner": ("modern_on_request",)}


def import_client_only() -> bool:
    """Import the SDK's client modules without its server half; True if the light import was used. A process
    that has loaded any of the SDK already gets the usual import (nothing to save, and nothing to shadow)."""
    if any(name == "mcp" or name.startswith("mcp.") for name in sys.modules):
        import_whole()
        return False
    try:
        _install_stand_ins()
        _import_client_modules()
        return True
    except Exception:  # noqa: BLE001 - a changed SDK: take the stand-ins out and import it as usual
        for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
            del sys.modules[name]
        import_whole()
        return False


def import_whole() -> None:
    """The usual import of what connecting needs (the package's `__init__`, the server half with it)."""
    import mcp  # noqa: F401

    _import_client_modules()


def _import_client_modules() -> None:
    import mcp.client.client  # noqa: F401
    import mcp.client.sse  # noqa: F401
    import mcp.client.stdio  # noqa: F401
    import mcp.client.streamable_http  # noqa: F401
    import mcp.types  # noqa: F401


def _install_stand_ins() -> None:
    spec = importlib.util.find_spec("mcp")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the mcp SDK is not installed")
    package = types.ModuleType("mcp", "The mcp SDK without its __init__ (app/mcp/sdk_client.py).")
    package.__path__ = list(spec.submodule_search_locations)
    package.__file__ = spec.origin
    package.__spec__ = spec
    sys.modules["mcp"] = package
    for module_name, names in SERVER_NAMES.items():
        # no __path__: any other import of the server half fails at once rather than loading half of it
        module = types.ModuleType(module_name, "A stand-in: the one-shot CLI never serves (app/mcp/sdk_client.py).")
        for name in names:
            setattr(module, name, type(name, (), {"__module__": module_name}) if name[0].isupper() else _absent)
        sys.modules[module_name] = module


def _absent(*args: object, **kwargs: object) -> object:
    raise RuntimeError("an in-process MCP server cannot be used from the one-shot command line")
