; kernel<<<grid, block, shmem, stream>>>(args)
(call_expression
  function: (_) @launch.kernel
  (kernel_call_syntax) @launch.config) @launch
