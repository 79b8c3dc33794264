"""Cases whose defence has not reached main yet, by id (or `id:sandbox` / `id:sandbox:user` for one variant),
with the branch that brings it. Their tests are xfail(strict=True): once a branch lands and a case holds, its
test fails until its id is deleted here, so this list only ever shrinks."""

PENDING: dict[str, str] = {
}
