"""The schema version, importable without SQLAlchemy (the query side and the build's quick check use it)."""

SCHEMA_VERSION = 4  # 2: no file_id indexes (a build deletes stale rows in one pass per table); 3: the graph;
# 4: py_branches and py_flags (the conditions that pick a Python call)

# Every table of models.py, sorted (tests/test_schema.py checks it against the models): an index
# that lacks one is rebuilt.
TABLES = (
    "calls",
    "classes",
    "definitions",
    "derivative_formulas",
    "derivatives",
    "dispatch",
    "edges",
    "files",
    "includes",
    "inline_namespaces",
    "kernel_aliases",
    "launches",
    "library_calls",
    "macros",
    "meta",
    "nodes",
    "op_tags",
    "ops",
    "py_bindings",
    "py_branches",
    "py_calls",
    "py_classes",
    "py_decomps",
    "py_defs",
    "py_flags",
    "py_reexports",
    "registrations",
    "stub_uses",
    "stubs",
    "tags",
    "type_dispatch",
    "ufunc_loops",
    "usings",
)
