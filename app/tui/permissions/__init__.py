"""The window's side of the permission engine: the approval modal's wiring and the watches' polls."""
