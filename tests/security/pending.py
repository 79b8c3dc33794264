"""Attacks that still work on main, by case id (every variant) or variant id (`id:on`, `id:off` for root,
`id:on:nobody` for the unprivileged user), with the branch whose defence they wait for. Their tests are
xfail(strict=True): once an attack stops working, its test fails until its line is deleted here, so this
list only ever shrinks. It is empty: every attack of the corpus is stopped on main (docs/security.md,
"Where main stands")."""

PENDING: dict[str, str] = {}
