; Text that is not code: where a textual scan for macro uses must not look.
[(comment) (string_literal) (raw_string_literal) (char_literal) (preproc_arg)] @skip

; Parse damage, counted into CxxFacts.parse_errors.
(ERROR) @error
(MISSING) @missing
