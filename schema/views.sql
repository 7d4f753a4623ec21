-- Views for ad-hoc SQL. Each location is 'path:line' relative to the checkout.

-- The dispatch table, one row per (op, key): which C++ kernel serves it and why.
CREATE VIEW v_dispatch AS
SELECT d.op, d.key, d.kernel, d.cpp_namespace, d.origin, d.via,
       d.file || ':' || d.line AS location
FROM dispatch d;

-- Ops with their flags and tags (comma-joined).
CREATE VIEW v_ops AS
SELECT o.name, o.func, o.kind, o.structured, o.structured_delegate, o.python_module,
       o.generated_from,
       (SELECT group_concat(t.tag, ',') FROM op_tags t WHERE t.op_id = o.id) AS tags,
       o.file || ':' || o.line AS location
FROM ops o;

-- Backward and forward-mode formulas per op.
CREATE VIEW v_backward AS
SELECT d.op, d.dispatch_key, f.names, f.kind, f.formula,
       f.file || ':' || f.line AS location
FROM derivatives d JOIN derivative_formulas f ON f.derivative_id = d.id;
