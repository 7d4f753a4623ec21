; Every call, by its `function` field (the call itself is its parent and starts
; at the same byte). Feeds call edges, stub calls, launch helpers, AT_DISPATCH
; uses, library calls and m.impl/m.def/m.fallback inside TORCH_LIBRARY blocks.
(call_expression function: (_) @call.fn)

; A call by plain or qualified name whose first argument may name a device
; (`foo(kCPU, ...)`, `foo(self.device().type(), ...)`): how a DispatchStub is
; called when its name does not end in _stub. The regex is the extractor's
; _DEVICE_HINT, a cheap filter run inside the query; the extractor checks the
; whole argument.
(call_expression
  function: [(identifier) (qualified_identifier)]
  arguments: (argument_list . (_) @call.device_arg
    (#match? @call.device_arg "e\\W*v\\W*i\\W*c\\W*e|k\\W*[CMXHP]")))

; The argument lists of calls, by where they start: a call's argc (arity.py).
(call_expression arguments: (argument_list) @call.args)

; A call of a function template whose argument is a macro use parses as a declaration
; (the most vexing parse): `gemm_internal<float>(CUDABLAS_GEMM_ARGS(float));` is the
; type `gemm_internal<float>` and the parenthesized declarator `(CUDABLAS_GEMM_ARGS(float))`.
; calls.py takes it as the call it is when it is in a function body.
(declaration
  type: [(template_type) (qualified_identifier)]
  declarator: (parenthesized_declarator) @call.vexing)

; An operator expression that calls an operator function when an operand is of a class type (`a + b`, `a += b`,
; `-a`, `a != b` on Tensors): the operator token, whose parent is the expression. calls.py keeps those with an
; operand whose type may be a class, as calls of `operator+` and so on, the operands as their arguments.
(binary_expression
  operator: ["+" "-" "*" "/" "%" "&" "|" "^" "<" "<=" ">" ">=" "==" "!="] @call.operator)
(assignment_expression
  operator: ["+=" "-=" "*=" "/=" "%=" "&=" "|=" "^="] @call.operator)
(unary_expression operator: ["-" "~"] @call.operator)
