; Function bodies: free functions, methods, kernels, and the function-shaped
; macros (TORCH_IMPL_FUNC(x) (...) {...}, TORCH_LIBRARY_IMPL(ns, key, m) {...}).
(function_definition) @definition
