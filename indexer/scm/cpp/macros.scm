; Names of the macro families whose sites are read textually (their
; arguments are parsed from the source bytes, so a site survives an ERROR).
([(identifier) (type_identifier) (field_identifier) (namespace_identifier)] @macro.site
  (#match? @macro.site "^(TORCH_(PRECOMPUTE_)?META_FUNC2?|TORCH_IMPL_FUNC|TORCH_LIBRARY(_IMPL|_FRAGMENT)?|[A-Z][A-Z0-9_]*_DISPATCH)$"))

; The file's own function-like macros (registration and AT_DISPATCH wrappers).
(preproc_function_def
  name: (identifier) @define.name
  parameters: (preproc_params) @define.params
  value: (preproc_arg)? @define.body)
