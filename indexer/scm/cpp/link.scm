; Names the link stage resolves through: using-directives and -declarations, namespace aliases,
; alias declarations (usings.py); class, struct, union and enum definitions (classes.py).
(using_declaration) @using
(namespace_alias_definition) @using.namespace_alias
(alias_declaration) @using.alias
(class_specifier body: (_)) @class
(struct_specifier body: (_)) @class
(union_specifier body: (_)) @class
(enum_specifier body: (_)) @class

; A variable given kernels or function pointers (aliases.py keeps the ones the code calls).
(init_declarator
  value: [(conditional_expression) (identifier) (qualified_identifier) (template_function)
          (pointer_expression) (initializer_list)]) @alias.init
(assignment_expression
  left: (identifier)
  right: [(conditional_expression) (identifier) (qualified_identifier) (template_function)
          (pointer_expression)]) @alias.assign
