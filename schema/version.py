"""The schema version, importable without SQLAlchemy (the query side and the build's quick check use it)."""

SCHEMA_VERSION = 25  # 2: no file_id indexes (a build deletes stale rows in one pass per table); 3: the graph;
# 4: dispatcher_registrations, registration_macro_uses; 5: dispatch_keys, dispatch_keysets, dispatch_table;
# 6: Python method tables (py_method_defs, py_method_installs); 7: py_branches and py_flags (the conditions
# that pick a Python call); 8: definitions.template_params and definitions.returns (the link stage
# binds template parameters and types call chains by them); 9: stubs.scope (a stub's qualified name) and
# op_backward (the derivatives.yaml entries each op's autograd kernel uses); 10: calls.arg_types (the
# argument types the written text gives: the link stage picks among overloads by them); 11: device_branches
# (the lines of a function that run only on some devices); 12: device_branches.not_on names DenseD too (a
# branch only a layout test such as is_quantized() rules out for a device's dense tensors); 13: classes.fields
# (data members and their types: the link stage types `x_.f()` in a method defined outside its class) and
# calls.receiver_const (a const/non-const member pair is told apart by the object's constness) and
# calls.lambda_line (a call of a local variable holding a lambda); 14: constants (namespace-scope const and
# constexpr variables) and enums in classes (an argument `at::kLong` or `ScalarType::Long` is typed), and
# definitions.constrained (a template SFINAE may drop: an unconstrained forwarding template is viable); 15: definition_macro_uses (definitions written
# through another file's X-macro list are extracted with its #define); 16: macros.guard and device_branches rows
# of branch "#if" (a stretch of a body under an #if: kernels-for leaves out what the checkout's constant #defines
# rule out); 17: definitions.loops (a loop in the body: kernels-for shows the loop function an AT_DISPATCH lambda
# runs per dtype); 18: constants holds every namespace-scope variable, constants.constant says which are const or
# constexpr (a mutable one types a receiver or argument that names it: std::atomic's load, a static functor object);
# 19: definitions.called_params (the parameters a body calls: a caller handing one a function by name reaches it);
# 20: chains (every op's chains walked at build time: a fresh Index reads them instead of walking); 21:
# launches.handed (a lambda's parameter launched: the calls the lambda is handed to, followed by the link stage);
# 22: includes.guard (a header every #include of which is under an #if is compiled only where one holds: its
# definitions' guards take that condition, link/includes.py inclusion_guards); 23: py_attributes (what a method
# assigns to an attribute of self from a call: trace follows `self.self_attn(...)` into the class's forward);
# 24: ix_edges_bindings (the bindings of template parameters by their detail: an update asks, without reading
# every edge, which were deduced at its files' call sites); 25: device_branches.parameter and default_device, and
# calls.forwards (a branch that tests a parameter with a device default runs as on that device where a call leaves
# the parameter to its default)

# Every table of models.py, sorted (tests/test_schema.py checks it against the models): an index
# that lacks one is rebuilt.
TABLES = (
    "calls",
    "chains",
    "classes",
    "constants",
    "definition_macro_uses",
    "definitions",
    "derivative_formulas",
    "derivatives",
    "device_branches",
    "dispatch",
    "dispatch_keys",
    "dispatch_keysets",
    "dispatch_table",
    "dispatcher_registrations",
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
    "op_backward",
    "op_tags",
    "ops",
    "py_attributes",
    "py_bindings",
    "py_branches",
    "py_calls",
    "py_classes",
    "py_decomps",
    "py_defs",
    "py_flags",
    "py_method_defs",
    "py_method_installs",
    "py_reexports",
    "registration_macro_uses",
    "registrations",
    "stub_uses",
    "stubs",
    "tags",
    "type_dispatch",
    "ufunc_loops",
    "usings",
)
