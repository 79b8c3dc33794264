"""Attacks that still work on main, by case id (every variant) or variant id (`id:on`, `id:off` for root,
`id:on:nobody` for the unprivileged user), with the branch whose defence they wait for. Their tests are
xfail(strict=True): once an attack stops working, its test fails until its line is deleted here, so this
list only ever shrinks. Every branch of the work (shell, gate, sandbox, project) has merged; these are
what their merges left open (see docs/security.md, "Where main stands")."""

GATE = "gate (still open after its merge)"

PENDING: dict[str, str] = {
    # gate (still open after its merge): reads past a read deny rule, and outside the workspace
    "fr-grep": GATE, "fr-search": GATE,
}
