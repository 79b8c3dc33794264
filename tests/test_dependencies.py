"""pyproject.toml's dependencies describe the code: every third-party package the code imports (at the
top of a module or inside a function) is declared, every imported name exists in the installed version,
and the SDKs whose next major version would break the code are capped.

In the normal venv this keeps the declarations complete; in `.venv-lowest` (`.ci/lowest-deps`, every
direct dependency at its floor) it shows that the floors still carry every name the code imports.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST_PARTY = {"app", "tools", "widgets", "styles"}
# The SDKs whose next major version changes APIs the code calls (as mcp 1 -> 2 did): capped below it.
CAPPED = {"textual", "rich", "openai", "anthropic", "mcp", "mcp-types", "httpx2", "agent-client-protocol",
          "sqlalchemy", "psycopg", "alembic"}


def third_party_imports() -> dict[str, set[str]]:
    """Each imported third-party module (dotted) -> the names taken from it ('' for `import module`)."""
    found: dict[str, set[str]] = {}
    for folder in sorted(FIRST_PARTY):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    pairs = [(alias.name, "") for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    pairs = [(node.module, alias.name) for alias in node.names]
                else:
                    continue
                for module, name in pairs:
                    top = module.split(".")[0]
                    if top not in FIRST_PARTY and top not in sys.stdlib_module_names:
                        found.setdefault(module, set()).add(name)
    return found


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return normalized(re.match(r"[A-Za-z0-9._-]+", requirement.strip()).group(0))


def declared() -> dict[str, str]:
    """The [project] dependencies: normalized distribution name -> its requirement string."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {requirement_name(line): line for line in project["dependencies"]}


def test_the_code_imports_third_party_packages_at_all():
    """The scan finds what it must, or the tests below would pass on nothing."""
    tops = {module.split(".")[0] for module in third_party_imports()}
    assert {"textual", "rich", "openai", "anthropic", "mcp", "mcp_types", "httpx2"} <= tops


def test_every_imported_distribution_is_declared():
    providers = importlib.metadata.packages_distributions()
    undeclared = {}
    for top in sorted({module.split(".")[0] for module in third_party_imports()}):
        distributions = {normalized(name) for name in providers.get(top, [])}
        assert distributions, f"`import {top}`: no installed distribution provides it"
        if not distributions & declared().keys():
            undeclared[top] = sorted(distributions)
    assert not undeclared, f"imported but not in pyproject.toml's dependencies: {undeclared}"


def test_every_imported_name_exists_in_the_installed_versions():
    missing = []
    for module, names in sorted(third_party_imports().items()):
        try:
            loaded = importlib.import_module(module)
        except ImportError as exc:
            missing.append(f"import {module}: {exc}")
            continue
        for name in sorted(names - {"", "*"}):
            if not hasattr(loaded, name):
                try:  # `from package import submodule`
                    importlib.import_module(f"{module}.{name}")
                except ImportError:
                    missing.append(f"from {module} import {name}")
    assert not missing, "\n".join(missing)


def test_the_sdks_are_declared_with_a_floor_and_capped_below_their_next_major():
    requirements = declared()
    for name in sorted(CAPPED):
        assert name in requirements, f"{name} is not declared"
        spec = requirements[name]
        floor = re.search(r">=\s*([0-9][^,;\s]*)", spec)
        cap = re.search(r"<\s*([0-9][^,;\s]*)", spec)
        assert floor and cap, f"{spec!r}: wants both a floor (>=) and a cap (<)"
        floor_v, cap_v = floor.group(1).split("."), cap.group(1).split(".")
        if floor_v[0] == "0":  # 0.x: each minor may break, so the cap is the next minor
            assert cap_v[:2] == ["0", str(int(floor_v[1]) + 1)], f"{spec!r}: cap at the next minor"
        else:
            assert int(cap_v[0]) > int(floor_v[0]) and set(cap_v[1:]) <= {"0"}, f"{spec!r}: cap at a major"


def test_the_mcp_sdk_takes_what_each_oauth_grant_passes_it():
    """Every grant builds its provider from the installed `mcp` (the keyword arguments exist there: `issuer=`
    of the client-credentials providers came in mcp 2.2); the conformance suite signs in with them for real."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from app.mcp.features import ClientHooks
    from app.mcp.oauth.flow import GuardedAuth, build_auth
    from app.settings.mcp_oauth import OAuthSettings
    from app.mcp.oauth.store import TokenStore

    async def assertion(audience: str, resource: str) -> str:
        return "id-jag"

    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    url = "https://mcp.example.com/mcp"
    grants = {
        "secret": OAuthSettings(grant="client_credentials", client_id="c", client_secret="s", issuer=url),
        "private key": OAuthSettings(grant="client_credentials", client_id="c", private_key=key,
                                     signing_algorithm="ES256", issuer=url),
        "identity assertion": OAuthSettings(grant="identity_assertion", client_id="c", client_secret="s",
                                            issuer=url, assertion=assertion),
        "browser": OAuthSettings(client_id="c", redirect_port=0),
    }
    built = {name: build_auth("x", url, settings, TokenStore(None, url), ClientHooks(), lambda *_: None)
             for name, settings in grants.items()}
    assert all(isinstance(auth, GuardedAuth) for auth in built.values())
