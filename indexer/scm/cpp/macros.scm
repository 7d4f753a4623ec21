; The file's own function-like macros (registration and AT_DISPATCH wrappers).
(preproc_function_def
  name: (identifier) @define.name
  parameters: (preproc_params) @define.params
  value: (preproc_arg)? @define.body)

; Macro sites (TORCH_IMPL_FUNC, TORCH_LIBRARY*, *_DISPATCH) and stubs passed
; as arguments are found by a bytes regex in cxx.py and confirmed as
; identifier nodes of this tree: a `#match?` predicate on every identifier
; costs as much as the parse itself.
