; kernel<<<grid, block, shmem, stream>>>(args)
(call_expression
  function: (_) @launch.kernel
  (kernel_call_syntax) @launch.config) @launch

; Every __global__ keyword: a kernel definition tree-sitter could not shape
; (preprocessor lines inside the declaration) is recovered from the text.
"__global__" @kernel.keyword
