"""Python method tables of one C++ file: PyMethodDef arrays, PyMappingMethods slots, and how they are installed.

CPython binds C functions to Python names through tables:

- `static PyMethodDef nn_functions[] = {{"_parse_to", castPyCFunctionWithKeywords(THPVariable__parse_to),
  METH_VARARGS | METH_KEYWORDS, nullptr}, ${py_method_defs} {nullptr}};` gives one MethodDefFact per entry
  (the Python name, the C++ function under its wrappers, the flags) and, in a template of
  tools/autograd/templates, one for the `${...}` slot the generator fills;
- `PyMappingMethods M = {len, getitem, setitem}` binds `__len__`, `__getitem__`, `__setitem__` and
  `__delitem__` (CPython's mp_length, mp_subscript, mp_ass_subscript);
- the install facts say where a table goes, as written in this file: added to a vector or module
  (`THPUtils_addPyMethodDefs(methods, variable_methods)`, `PyModule_AddFunctions`, `v.insert(..., t, ...)`,
  `v.assign(t, ...)`), made a type's methods (`T.tp_methods = methods.data()`, the tp_methods and
  tp_as_mapping slots of a `PyTypeObject` initializer), named (`tp_name` "torch._C.TensorBase", a
  `PyModuleDef`'s "torch._C._nn"), returned by a function (`PyMethodDef* python_functions() { return
  methods; }`), instanced (`X = PyType_GenericNew(&T, ...)`) and set as a module attribute
  (`PyModule_AddObject(module, "_VariableFunctions", X)`).

Following them across files is the query side's (queries/bindings.py). The pattern is
indexer/scm/bindings/method_tables.scm, run only on files that name one of the table types.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum

from .arguments import string_value
from .scan import dec, norm
from .sourcefile import SourceFile

_MARKERS = (b"PyMethodDef", b"PyTypeObject", b"PyModuleDef", b"PyMappingMethods")
_SLOT_RE = re.compile(r"\$\{(\w+)\}")
_NAME_RE = re.compile(r"[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*")
# names in a reference that are casts, types or accessors, not the thing referred to
_NOT_NAMES = frozenset(("reinterpret_cast", "static_cast", "const_cast", "PyObject", "PyCFunction",
                        "PyCFunctionWithKeywords", "PyTypeObject", "PyMethodDef", "void", "std::data", "data",
                        "std::begin", "std::end", "begin", "end", "nullptr", "NULL"))
# CPython's PyTypeObject fields, counted from tp_name (PyVarObject_HEAD_INIT comes before it)
_TP_AS_MAPPING = 11
_TP_METHODS = 26
# PyMappingMethods' fields -> the dunders they serve
_MAPPING_SLOTS = (("mp_length", ("__len__",)), ("mp_subscript", ("__getitem__",)),
                  ("mp_ass_subscript", ("__setitem__", "__delitem__")))


class InstallKind(StrEnum):
    """How a MethodInstallFact connects `source` to `target`."""

    ADD = "add"  # the table (or what a function returns) `source` is added to the vector, module or table `target`
    METHODS = "tp_methods"  # the type `target` takes its methods from `source`
    MAPPING = "tp_as_mapping"  # the type `target` takes its mapping slots from `source`
    NAME = "name"  # the type or PyModuleDef `target` is named `source` in Python ("torch._C.TensorBase")
    RETURNS = "returns"  # the function `target` returns the table `source`
    INSTANCE = "instance"  # the variable `target` holds an instance of the type `source` (PyType_GenericNew)
    ATTRIBUTE = "attribute"  # PyModule_AddObject: `source` is set as the module attribute named `target`


@dataclass(frozen=True)
class MethodDefFact:
    """One entry of a Python method table, or the `${...}` slot a template's generator fills."""

    table_name: str  # qualified as written in its namespaces: "torch::autograd::variable_methods"
    table_line: int  # the line the table's name is written on
    python_name: str | None  # "__add__"; None for a slot
    function: str | None  # the C++ function under the wrappers: "THPVariable_add"; None for a slot
    wrappers: tuple[str, ...]  # outermost first: ("castPyCFunctionWithKeywords", "TypeError_to_NotImplemented_")
    flags: str  # "METH_VARARGS | METH_KEYWORDS"; a mapping slot: "mp_subscript"; a slot: "${py_method_defs}"
    line: int


@dataclass(frozen=True)
class MethodInstallFact:
    """One step of how a table reaches Python, as written in this file (see InstallKind)."""

    kind: InstallKind
    target: str  # the vector, type, module def, function or attribute name (as written; functions qualified)
    source: str  # the table, name or type as written: "torch::autograd::variable_methods"
    line: int


def _names(text: str) -> list[str]:
    """The names a reference is written with, casts and accessors dropped: `methods.data()` -> [methods]."""
    return [n for n in (re.sub(r"\s+", "", m) for m in _NAME_RE.findall(text)) if n not in _NOT_NAMES]


def _ref(text: str) -> str | None:
    names = _names(text)
    return names[0] if names else None


def _elements(node) -> list:
    return [c for c in node.named_children if c.type not in ("comment", "ERROR")]


def _designated(f: SourceFile, elements: list) -> dict[str, str]:
    """`.tp_name = "x"` style elements: field -> value text."""
    out = {}
    for e in elements:
        if e.type == "initializer_pair":
            field, value = e.child_by_field_name("designator"), e.child_by_field_name("value")
            if field is not None and value is not None:
                out[f.text(field).lstrip(".")] = f.text(value)
    return out


def _entries(f: SourceFile, table_name: str, table_line: int, body) -> list[MethodDefFact]:
    out = []
    for item in body.named_children:
        if item.type != "initializer_list":
            continue
        parts = _elements(item)
        name = string_value(f.text(parts[0])) if parts else None
        if name is None or len(parts) < 2:
            continue  # the {nullptr} sentinel
        names = _names(f.text(parts[1]))
        function = names[-1] if names else None
        flags = norm(f.text(parts[2])) if len(parts) > 2 else ""
        out.append(MethodDefFact(table_name, table_line, name, function, tuple(names[:-1]), flags,
                                 item.start_point[0] + 1))
    text = f.text(body)
    for m in _SLOT_RE.finditer(text):
        line = body.start_point[0] + 1 + text.count("\n", 0, m.start())
        out.append(MethodDefFact(table_name, table_line, None, None, (), m.group(0), line))
    return out


def _mapping(f: SourceFile, table_name: str, table_line: int, body) -> list[MethodDefFact]:
    elements = _elements(body)
    named = _designated(f, elements)
    out = []
    for k, (slot, dunders) in enumerate(_MAPPING_SLOTS):
        text = named.get(slot) if named else (f.text(elements[k]) if k < len(elements) else None)
        function = _ref(text) if text else None
        line = elements[k].start_point[0] + 1 if not named and k < len(elements) else table_line
        if function is not None and function != "0":
            out.extend(MethodDefFact(table_name, table_line, d, function, (), slot, line) for d in dunders)
    return out


def _type_object(f: SourceFile, name: str, body, line: int) -> list[MethodInstallFact]:
    elements = _elements(body)
    named = _designated(f, elements)
    if named:
        values = {"tp_name": named.get("tp_name"), "tp_methods": named.get("tp_methods"),
                  "tp_as_mapping": named.get("tp_as_mapping")}
    else:
        first = next((k for k, e in enumerate(elements) if e.type in ("string_literal", "concatenated_string")), None)
        if first is None:
            return []
        at = lambda k: f.text(elements[first + k]) if first + k < len(elements) else None  # noqa: E731
        values = {"tp_name": at(0), "tp_methods": at(_TP_METHODS), "tp_as_mapping": at(_TP_AS_MAPPING)}
    out = []
    python_name = string_value(values["tp_name"]) if values["tp_name"] else None
    if python_name:
        out.append(MethodInstallFact(InstallKind.NAME, name, python_name, line))
    for slot, kind in (("tp_methods", InstallKind.METHODS), ("tp_as_mapping", InstallKind.MAPPING)):
        ref = _ref(values[slot]) if values[slot] else None
        if ref is not None and ref != "0":
            out.append(MethodInstallFact(kind, name, ref, line))
    return out


def _module_def(f: SourceFile, name: str, body, line: int) -> list[MethodInstallFact]:
    elements = _elements(body)
    named = _designated(f, elements)
    if named:
        python_name, methods = named.get("m_name"), named.get("m_methods")
    else:
        first = next((k for k, e in enumerate(elements) if e.type in ("string_literal", "concatenated_string")), None)
        if first is None:
            return []
        python_name = f.text(elements[first])
        methods = f.text(elements[first + 3]) if first + 3 < len(elements) else None
    out = []
    value = string_value(python_name) if python_name else None
    if value:
        out.append(MethodInstallFact(InstallKind.NAME, name, value, line))
    ref = _ref(methods) if methods else None
    if ref is not None:
        out.append(MethodInstallFact(InstallKind.ADD, name, ref, line))
    return out


@functools.lru_cache(maxsize=None)
def _query(language: str):
    import tree_sitter as ts

    from .trees import SCM
    from .trees import language as ts_language

    return ts.Query(ts_language(language), (SCM / "bindings" / "method_tables.scm").read_text())


def _matches(f: SourceFile) -> list[dict[str, list]]:
    """The pattern's matches in document order, each its captures by name."""
    import tree_sitter as ts

    got = [caps for _pattern, caps in ts.QueryCursor(_query(f.language)).matches(f.root)]
    return sorted(got, key=lambda caps: min(n.start_byte for nodes in caps.values() for n in nodes))


def method_tables(f: SourceFile) -> tuple[tuple[MethodDefFact, ...], tuple[MethodInstallFact, ...]]:
    """The file's method-table entries and install facts (none when it names no table type)."""
    if not any(m in f.src for m in _MARKERS):
        return (), ()
    matches = _matches(f)
    defs: list[MethodDefFact] = []
    installs: list[MethodInstallFact] = []
    tables: set[str] = set()
    seen: set[int] = set()
    for caps in sorted(matches, key=lambda caps: "table.body" not in caps):  # typed declarations first
        if "table.body" in caps:
            [type_node], [name_node], [body] = caps["table.type"], caps["table.name"], caps["table.body"]
            kind, name, at = dec(type_node.text), dec(name_node.text), name_node.start_byte
        elif "table.loose" in caps and caps["table.loose"][0].start_byte not in seen:
            [body], [decl] = caps["table.loose"], caps["table.decl"]
            header = dec(f.orig[decl.start_byte:body.start_byte])
            names = re.findall(r"([A-Za-z_]\w*)\s*(?:\[\s*\w*\s*\])?\s*=\s*$", header)
            if not re.search(r"\bPyMethodDef\b", header) or not names:
                continue
            kind, name, at = "PyMethodDef", names[-1], body.start_byte
        else:
            continue
        seen.add(body.start_byte)
        line = f.line_of(at)
        qualified = "::".join([*f.namespaces_at(at), name])
        if kind == "PyMethodDef":
            tables.add(name)
            defs.extend(_entries(f, qualified, line, body))
        elif kind == "PyMappingMethods":
            defs.extend(_mapping(f, qualified, line, body))
        elif kind == "PyTypeObject":
            installs.extend(_type_object(f, name, body, line))
        else:
            installs.extend(_module_def(f, name, body, line))
    for caps in matches:
        installs.extend(_installs(f, caps, tables))
    if defs:
        defs.extend(_file_slots(f, {d.line for d in defs if d.python_name is None}))
    return (tuple(sorted(defs, key=lambda d: (d.line, d.table_name, d.python_name or ""))),
            tuple(sorted(installs, key=lambda x: (x.line, x.kind, x.target, x.source))))


def _file_slots(f: SourceFile, in_tables: set[int]) -> list[MethodDefFact]:
    """A template's `${...}` slots outside its tables (`${py_methods}`: where the generated functions go),
    with no table."""
    text = dec(f.orig)
    out = []
    for m in _SLOT_RE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if line not in in_tables:
            out.append(MethodDefFact("", 0, None, None, (), m.group(0), line))
    return out


def _installs(f: SourceFile, caps: dict[str, list], tables: set[str]) -> list[MethodInstallFact]:
    """The install fact of one match of a call, an assignment or a return (none for a table match)."""
    if "install.fn" in caps:
        return _call(f, caps["install.fn"][0], caps["install.args"][0], tables)
    if "instance.name" in caps:
        name = caps["instance.name"][0]
        arguments = name.parent.child_by_field_name("right").child_by_field_name("arguments")
        first = _elements(arguments)[:1] if arguments is not None else []
        source = _ref(f.text(first[0])) if first else None
        return [MethodInstallFact(InstallKind.INSTANCE, dec(name.text), source, name.start_point[0] + 1)] if source else []
    if "install.slot" in caps:
        left, value = caps["install.left"][0], caps["install.value"][0]
        into, source = _ref(f.text(left.child_by_field_name("argument"))), _ref(f.text(value))
        kind = InstallKind.METHODS if dec(caps["install.slot"][0].text) == "tp_methods" else InstallKind.MAPPING
        return [MethodInstallFact(kind, into, source, left.start_point[0] + 1)] if into and source else []
    if "install.return" in caps:
        node = caps["install.return"][0]
        caller = f.caller_at(node.start_byte)
        if dec(node.text) in tables and caller:
            return [MethodInstallFact(InstallKind.RETURNS, caller, dec(node.text), node.start_point[0] + 1)]
    return []


def _call(f: SourceFile, fn, args, tables: set[str]) -> list[MethodInstallFact]:
    called, values = f.text(fn), [f.text(a) for a in _elements(args)]
    line = fn.start_point[0] + 1
    leaf = re.split(r"::|\.|->", called)[-1].strip()
    if leaf in ("THPUtils_addPyMethodDefs", "addPyMethodDefs", "PyModule_AddFunctions") and len(values) == 2:
        into, source = _ref(values[0]), _ref(values[1])
        return [MethodInstallFact(InstallKind.ADD, into, source, line)] if into and source else []
    if leaf == "PyModule_AddObject" and len(values) == 3:
        attribute, source = string_value(values[1]), _ref(values[2])
        return [MethodInstallFact(InstallKind.ATTRIBUTE, attribute, source, line)] if attribute and source else []
    if leaf in ("insert", "assign") and fn.type == "field_expression":
        into = _ref(f.text(fn.child_by_field_name("argument")))
        source = next((v.strip() for v in values if v.strip() in tables), None)
        return [MethodInstallFact(InstallKind.ADD, into, source, line)] if into and source else []
    return []
