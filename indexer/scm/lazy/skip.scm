; Text that is not code: where a textual scan for macro uses must not look.
; A query of its own, run only for the files where such a scan finds a
; candidate (most files never need it, and every pattern in the combined
; query costs a walk over every node).
[(comment) (string_literal) (raw_string_literal) (char_literal) (preproc_arg)] @skip
