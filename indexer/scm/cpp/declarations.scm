; Names declared with a type (parameters, locals, range-for variables), and the declarations
; (@decl): the receiver types of member calls (`x.f()`, `x->f()`) are read from them. A name's
; declaration is the innermost @decl around it (receivers.py).
(parameter_declaration
  declarator: [(identifier) @decl.name
               (reference_declarator (identifier) @decl.name)
               (pointer_declarator declarator: (identifier) @decl.name)]) @decl
(optional_parameter_declaration
  declarator: [(identifier) @decl.name
               (reference_declarator (identifier) @decl.name)
               (pointer_declarator declarator: (identifier) @decl.name)]) @decl
(declaration
  declarator: [(identifier) @decl.name
               (init_declarator declarator: [(identifier) @decl.name
                                             (reference_declarator (identifier) @decl.name)
                                             (pointer_declarator declarator: (identifier) @decl.name)])]) @decl
;; `std::vector<int64_t> sizes(n);` in a body, which tree-sitter reads as a function declaration (the
;; most vexing parse): a variable made by its constructor (only names declared in the calling function count)
(declaration
  declarator: (function_declarator declarator: (identifier) @decl.name)) @decl
;; `auto [a0, a1] = convert_to_float<T>(a);`, `auto& [k, v] = *it;`: each name is the element of its place
(declaration
  declarator: (init_declarator declarator: [(structured_binding_declarator (identifier) @decl.name)
                                            (reference_declarator
                                              (structured_binding_declarator (identifier) @decl.name))])) @decl
(for_range_loop
  declarator: [(identifier) @decl.name
               (reference_declarator (identifier) @decl.name)
               (pointer_declarator declarator: (identifier) @decl.name)]) @decl

; A class's fields (@field.name): the receiver type of `x_.f()` / `this->x_.f()` in a method
; defined in the class body (receivers.py).
(field_declaration
  declarator: [(field_identifier) @field.name
               (reference_declarator (field_identifier) @field.name)
               (pointer_declarator declarator: (field_identifier) @field.name)])
