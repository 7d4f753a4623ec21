; Python method tables and how they are installed (indexer/cxx/method_tables.py).
; Not part of the combined query: it runs only on files that name PyMethodDef,
; PyTypeObject, PyModuleDef or PyMappingMethods.

; A variable of a CPython table type with a brace initializer:
; `static PyMethodDef name[] = {...}`, `PyTypeObject T = {...}`,
; `static struct PyModuleDef def = {...}`, `PyMappingMethods M = {...}`.
(declaration
  type: [(type_identifier) @table.type (struct_specifier name: (type_identifier) @table.type)]
  declarator: (init_declarator
    declarator: [(identifier) @table.name
                 (array_declarator declarator: (identifier) @table.name)]
    value: (initializer_list) @table.body)
  (#match? @table.type "^Py(MethodDef|TypeObject|ModuleDef|MappingMethods)$"))

; Any other brace-initialised variable: `static std::initializer_list<PyMethodDef> TorchMethods = {...}`,
; also where a macro before it leaves the declaration damaged; the extractor keeps those whose
; declaration names PyMethodDef.
(declaration
  declarator: (init_declarator value: (initializer_list) @table.loose)) @table.decl

; Calls that add a table to a vector, a module or another table.
(call_expression
  function: [(identifier) (qualified_identifier) (field_expression)] @install.fn
  arguments: (argument_list) @install.args
  (#match? @install.fn "(addPyMethodDefs|PyModule_AddFunctions|PyModule_AddObject|insert|assign)$"))

; `T.tp_methods = V.data();`
(assignment_expression
  left: (field_expression field: (field_identifier) @install.slot) @install.left
  right: (_) @install.value
  (#match? @install.slot "^tp_(methods|as_mapping)$"))

; `X = PyType_GenericNew(&T, ...)`: the instance a module attribute holds.
(assignment_expression
  left: (identifier) @instance.name
  right: (call_expression function: (identifier) @instance.fn)
  (#eq? @instance.fn "PyType_GenericNew"))

; `return methods;` in a function that hands its table to another file.
(return_statement (identifier) @install.return)
