; Every call; the extractor reads its `function` and `arguments` fields.
; Feeds call edges, stub calls, launch helpers, AT_DISPATCH uses, library
; calls and m.impl/m.def/m.fallback inside TORCH_LIBRARY blocks.
(call_expression) @call
