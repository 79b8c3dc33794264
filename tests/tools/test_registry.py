from tools.registry import METADATA_KEYS, ToolRegistry, ToolSpec

BUILTIN = {"bash", "read_file", "write_file", "edit_file", "search", "memory", "recall", "skill", "web_fetch",
           "math", "man", "task", "plan", "watch", "notify", "web_search", "run_code"}


def test_loads_every_builtin(registry: ToolRegistry) -> None:
    assert set(registry.names()) == BUILTIN
    assert registry.get("nope") is None


def test_schemas_are_openai_functions_without_metadata(registry: ToolRegistry) -> None:
    for schema in registry.schemas():
        assert schema["type"] == "function"
        assert schema["function"]["parameters"]["type"] == "object"
        assert len(schema["function"]["description"]) > 80
        assert not set(schema) & set(METADATA_KEYS)


def test_metadata(registry: ToolRegistry) -> None:
    bash, read = registry.get("bash"), registry.get("read_file")
    assert bash and not bash.auto_approve and bash.primary_key == "command"
    assert read and read.auto_approve and read.primary_key == "path" and read.path_args == ("path",)
    assert registry.get("search").primary_key == "pattern"  # type: ignore[union-attr]


async def test_register_and_agent_filter(registry: ToolRegistry) -> None:
    local = ToolRegistry()
    for name in registry.names():
        local.register(registry.get(name))  # type: ignore[arg-type]

    async def echo(args, ctx):  # noqa: ANN001
        return "hi"

    schema = {"type": "function", "function": {"name": "mcp__x__echo", "description": "d",
                                               "parameters": {"type": "object"}}}
    local.register(ToolSpec("mcp__x__echo", schema, echo, agent=False, task_agent=True))
    assert "mcp__x__echo" in local.names()
    assert schema not in local.schemas(agent=True)
    assert schema in local.schemas(agent=False)
