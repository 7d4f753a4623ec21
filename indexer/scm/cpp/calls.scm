; Every call; the extractor reads its `function` and `arguments` fields.
; Feeds call edges, stub calls, launch helpers, AT_DISPATCH uses, library
; calls and m.impl/m.def/m.fallback inside TORCH_LIBRARY blocks.
(call_expression) @call

; A stub handed to a helper, e.g. `binary_op(iter, add_stub)`.
(argument_list
  [(identifier) (qualified_identifier)] @stub.argument
  (#match? @stub.argument "_stub$"))
