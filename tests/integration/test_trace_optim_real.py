"""Which condition picks each path: optimizers, nn.utils, nn.init, nn.attention and distributions on real trees.

Every file:line and every condition below was read in the sources of that
version (2.6.0 unless the test says 1.13.1). A hop's conditions are the
if/elif/else (and conditional expressions) around its call, outermost first;
an else names the tests of its chain that are false there.
"""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index
from tg_index.queries.render import trace_data, trace_text

pytestmark = pytest.mark.integration

O = "torch/optim"
PICK = "not torch.jit.is_scripting()"


def paths(ix: Index, name: str, prefix: str) -> list[tuple]:
    """The hops to Python defs whose names start with prefix: (depth, name, call, definition, conditions)."""
    return [(h.depth, h.name, str(h.call), str(h.definition), [str(c) for c in getattr(h, "conditions", ())])
            for h in ix.trace(name).hops if h.name.startswith(prefix) and h.call is not None]


def flags(ix: Index, name: str, fn: str) -> list[tuple]:
    """The flags the hop to fn carries: (name, kind, text, where, conditions of an assignment)."""
    hop = next(h for h in ix.trace(name).hops if h.name == fn)
    return [(f.name, f.kind, f.text, str(f.location), [str(c) for c in f.conditions]) for f in hop.flags]


def op_conditions(ix: Index, name: str, op: str) -> list[tuple]:
    """(call, conditions) of every hop to op."""
    return [(str(h.call), [str(c) for c in getattr(h, "conditions", ())]) for h in ix.trace(name).hops
            if h.kind == "op" and h.name == op]


# --- the three paths of Adam, AdamW and Adagrad, with the conditions that pick them -----------------


def test_adam_paths_and_their_conditions(ix: Index):
    # adam.py:869 if fused and not torch.jit.is_scripting(): 870 func = _fused_adam (712)
    #         871 elif foreach and ...: 872 func = _multi_tensor_adam (485); 873 else: 874 func = _single_tensor_adam (340)
    assert paths(ix, "torch.optim.Adam", "torch.optim.adam._") == [
        (3, "torch.optim.adam._fused_adam", f"{O}/adam.py:870", f"{O}/adam.py:712", [f"if fused and {PICK}"]),
        (3, "torch.optim.adam._multi_tensor_adam", f"{O}/adam.py:872", f"{O}/adam.py:485",
         [f"elif foreach and {PICK}"]),
        (3, "torch.optim.adam._single_tensor_adam", f"{O}/adam.py:874", f"{O}/adam.py:340",
         [f"else: not (fused and {PICK}), not (foreach and {PICK})"]),
    ]


def test_adam_flags_their_defaults_and_the_default_to_fused_or_foreach_call(ix: Index):
    # adam.py:843 if fused is None and foreach is None: 844 _, foreach = _default_to_fused_or_foreach(...);
    # 848 if foreach and isinstance(lr, Tensor) and not capturable: 849 foreach = False; 850/851 fused = False;
    # 852/853 foreach = False; parameters of adam(): 819 foreach=None, 822 fused=None; Adam.__init__: 44, 48
    both = "if fused is None and foreach is None"
    assert flags(ix, "torch.optim.Adam", "torch.optim.optimizer._default_to_fused_or_foreach") == [
        ("fused", "parameter", "fused=None", f"{O}/adam.py:822", []),
        ("fused", "assign", "fused = False", f"{O}/adam.py:851", ["if fused is None"]),
        ("fused", "parameter", "fused=None", f"{O}/adam.py:48", []),
        ("foreach", "parameter", "foreach=None", f"{O}/adam.py:819", []),
        ("foreach", "assign", "_, foreach = _default_to_fused_or_foreach(params, differentiable, use_fused=False)",
         f"{O}/adam.py:844", [both]),
        ("foreach", "assign", "foreach = False", f"{O}/adam.py:849",
         [both, "if foreach and isinstance(lr, Tensor) and not capturable"]),
        ("foreach", "assign", "foreach = False", f"{O}/adam.py:853", ["if foreach is None"]),
        ("foreach", "parameter", "foreach=None", f"{O}/adam.py:44", []),
    ]
    hop = next(h for h in ix.trace("torch.optim.Adam").hops if h.name.endswith("_default_to_fused_or_foreach"))
    assert (str(hop.call), [str(c) for c in hop.conditions]) == (f"{O}/adam.py:844", [both])


def test_adamw_paths_and_their_conditions(ix: Index):
    # adamw.py:868 if fused and ...: 869 func = _fused_adamw (711); 870 elif foreach and ...: 871 _multi_tensor_adamw
    # (486); 872 else: 873 _single_tensor_adamw (339)
    assert paths(ix, "torch.optim.AdamW", "torch.optim.adamw._") == [
        (3, "torch.optim.adamw._fused_adamw", f"{O}/adamw.py:869", f"{O}/adamw.py:711", [f"if fused and {PICK}"]),
        (3, "torch.optim.adamw._multi_tensor_adamw", f"{O}/adamw.py:871", f"{O}/adamw.py:486",
         [f"elif foreach and {PICK}"]),
        (3, "torch.optim.adamw._single_tensor_adamw", f"{O}/adamw.py:873", f"{O}/adamw.py:339",
         [f"else: not (fused and {PICK}), not (foreach and {PICK})"]),
    ]
    # adamw.py:45 foreach=None, 48 fused=None in AdamW.__init__ (which tests both: 51, 102, 106)
    got = flags(ix, "torch.optim.AdamW", "torch.optim.optimizer._default_to_fused_or_foreach")
    assert [f for f in got if f[1] == "parameter"] == [
        ("fused", "parameter", "fused=None", f"{O}/adamw.py:823", []),
        ("fused", "parameter", "fused=None", f"{O}/adamw.py:48", []),
        ("foreach", "parameter", "foreach=None", f"{O}/adamw.py:820", []),
        ("foreach", "parameter", "foreach=None", f"{O}/adamw.py:45", []),
    ]


def test_adamw_fused_path_ops_and_their_own_conditions(ix: Index):
    # adamw.py:774 if grad_scale is not None: 776 grad_scale.to(...); 787 torch._fused_adamw_(...) unconditioned;
    # 804 if device_found_inf is not None: 805 torch._foreach_sub_(...)
    name = "torch.optim.AdamW"
    assert op_conditions(ix, name, "_fused_adamw_") == [(f"{O}/adamw.py:787", [])]
    assert op_conditions(ix, name, "_foreach_sub_")[0] == (f"{O}/adamw.py:805", ["if device_found_inf is not None"])


def test_adagrad_paths_and_their_conditions(ix: Index):
    # adagrad.py:291 if fused and ...: 292 func = _fused_adagrad (489); 293 elif foreach: 294 _multi_tensor_adagrad
    # (382); 295 else: 296 _single_tensor_adagrad (321), already expanded under _multi_tensor_adagrad (425)
    got = paths(ix, "torch.optim.Adagrad", "torch.optim.adagrad._")
    assert [g for g in got if g[0] == 3] == [
        (3, "torch.optim.adagrad._fused_adagrad", f"{O}/adagrad.py:292", f"{O}/adagrad.py:489",
         [f"if fused and {PICK}"]),
        (3, "torch.optim.adagrad._multi_tensor_adagrad", f"{O}/adagrad.py:294", f"{O}/adagrad.py:382",
         [f"elif foreach and {PICK}"]),
        (3, "torch.optim.adagrad._single_tensor_adagrad", f"{O}/adagrad.py:296", f"{O}/adagrad.py:321",
         [f"else: not (fused and {PICK}), not (foreach and {PICK})"]),
    ]
    # adagrad.py:424 if device_has_sparse_grad: 425 _single_tensor_adagrad(...) inside the foreach path
    assert (4, "torch.optim.adagrad._single_tensor_adagrad", f"{O}/adagrad.py:425", f"{O}/adagrad.py:321",
            ["if device_has_sparse_grad"]) in got
    # adagrad.py:548 torch._fused_adagrad_(...)
    assert op_conditions(ix, "torch.optim.Adagrad", "_fused_adagrad_") == [(f"{O}/adagrad.py:548", [])]


def test_text_and_json_show_the_conditions(ix: Index):
    t = ix.trace("torch.optim.AdamW")
    text = trace_text(t)
    assert (f"        calls torch.optim.adamw._multi_tensor_adamw  {O}/adamw.py:871 -> {O}/adamw.py:486"
            f"  [elif foreach and {PICK}]\n") in text
    assert f"            flag foreach: parameter foreach=None of torch.optim.adamw.AdamW.__init__  {O}/adamw.py:45\n" in text
    [hop] = [h for h in trace_data(t)["hops"] if h["name"] == "torch.optim.adamw._single_tensor_adamw"]
    assert hop["conditions"] == [{"kind": "else", "test": "", "negated": [f"fused and {PICK}", f"foreach and {PICK}"],
                                  "line": 870, "text": f"else: not (fused and {PICK}), not (foreach and {PICK})"}]
    # adamw.py:394 grad = torch.view_as_real(grad) (complex as real pairs) is plumbing, grouped after the work
    assert {"view_as_real", "view_as_complex", "is_complex"} <= {o["op"] for o in trace_data(t)["plumbing"]}


# --- 1.13.1: adamw has no fused path; adam picks foreach before fused ----------------------------------


def test_adamw_1_13_1_has_two_paths(old: Index):
    # 1.13.1 adamw.py:214 if foreach and not torch.jit.is_scripting(): 215 func = _multi_tensor_adamw (321);
    # 216 else: 217 func = _single_tensor_adamw (235)
    assert paths(old, "torch.optim.AdamW", "torch.optim.adamw._") == [
        (3, "torch.optim.adamw._multi_tensor_adamw", f"{O}/adamw.py:215", f"{O}/adamw.py:321",
         [f"if foreach and {PICK}"]),
        (3, "torch.optim.adamw._single_tensor_adamw", f"{O}/adamw.py:217", f"{O}/adamw.py:235",
         [f"else: not (foreach and {PICK})"]),
    ]
    # 189 foreach: bool = None; 207 if foreach is None: 209 foreach = False. AdamW.__init__ (77 foreach=None)
    # tests no foreach in 1.13.1, so py_flags has no row of it
    assert flags(old, "torch.optim.AdamW", "torch.optim.adamw._multi_tensor_adamw") == [
        ("foreach", "parameter", "foreach=None", f"{O}/adamw.py:189", []),
        ("foreach", "assign", "foreach = False", f"{O}/adamw.py:209", ["if foreach is None"]),
    ]


def test_adam_1_13_1_foreach_before_fused(old: Index):
    # 1.13.1 adam.py:293 if foreach and ...: 294 _multi_tensor_adam (415); 295 elif fused and ...: 296 _fused_adam
    # (551); 297 else: 298 _single_tensor_adam (319)
    assert [p for p in paths(old, "torch.optim.Adam", "torch.optim.adam._") if p[0] == 3] == [
        (3, "torch.optim.adam._multi_tensor_adam", f"{O}/adam.py:294", f"{O}/adam.py:415", [f"if foreach and {PICK}"]),
        (3, "torch.optim.adam._fused_adam", f"{O}/adam.py:296", f"{O}/adam.py:551", [f"elif fused and {PICK}"]),
        (3, "torch.optim.adam._single_tensor_adam", f"{O}/adam.py:298", f"{O}/adam.py:319",
         [f"else: not (foreach and {PICK}), not (fused and {PICK})"]),
    ]


# --- nn.utils, nn.init, nn.attention ---------------------------------------------------------------------

U = "torch/nn/utils"
FOREACH_NORM = ("foreach is None and _has_foreach_support(device_tensors, device) or "
                "(foreach and _device_has_foreach_support(device))")


def test_clip_grad_norm_foreach_or_per_tensor(ix: Index):
    # clip_grad.py:83-86 if (foreach is None and _has_foreach_support(...)) or (foreach and ...): 87 torch._foreach_norm;
    # 88 elif foreach: raise; 93 else: 94 torch.linalg.vector_norm(g, norm_type) per tensor
    name = "torch.nn.utils.clip_grad_norm_"
    assert op_conditions(ix, name, "_foreach_norm") == [(f"{U}/clip_grad.py:87", [f"if {FOREACH_NORM}"])]
    [vector] = [h for h in ix.trace(name).hops if h.name == "torch.linalg.vector_norm"]
    assert (str(vector.call), [str(c) for c in vector.conditions]) == (
        f"{U}/clip_grad.py:94", [f"else: not ({FOREACH_NORM}), not (foreach)"])
    # clip_grad.py:45 foreach: Optional[bool] = None in _get_total_norm
    assert [(f.name, f.text, str(f.location)) for f in vector.flags] == [
        ("foreach", "foreach=None", f"{U}/clip_grad.py:45")]


def test_clip_grad_value_foreach_or_per_tensor(ix: Index):
    # clip_grad.py:269-272 if (foreach is None and _has_foreach_support(cast(...), device=device)) or (...):
    # 274 torch._foreach_clamp_min_, 275 _foreach_clamp_max_; 276 elif foreach: raise; 280 else: 282 clamp_
    test = ("foreach is None and _has_foreach_support(cast(List[Tensor], grads), device=device) or "
            "(foreach and _device_has_foreach_support(device))")
    name = "torch.nn.utils.clip_grad_value_"
    assert op_conditions(ix, name, "_foreach_clamp_min_") == [(f"{U}/clip_grad.py:274", [f"if {test}"])]
    assert op_conditions(ix, name, "clamp_") == [(f"{U}/clip_grad.py:282", [f"else: not ({test}), not (foreach)"])]


def test_pack_padded_sequence_sorts_unless_enforce_sorted(ix: Index):
    # rnn.py:333 if enforce_sorted: 334 sorted_indices = None; 335 else: 336 torch.sort(lengths, descending=True),
    # 339 input.index_select(batch_dim, sorted_indices); 341 _VF._pack_padded_sequence unconditioned
    name = "torch.nn.utils.rnn.pack_padded_sequence"
    assert op_conditions(ix, name, "sort") == [(f"{U}/rnn.py:336", ["else: not (enforce_sorted)"])]
    assert op_conditions(ix, name, "index_select") == [(f"{U}/rnn.py:339", ["else: not (enforce_sorted)"])]
    assert op_conditions(ix, name, "_pack_padded_sequence") == [(f"{U}/rnn.py:341", [])]


def test_init_normal_through_no_grad_helper(ix: Index):
    # init.py:169 normal_: 189 if has_torch_function_variadic(tensor): return handle_torch_function(...) (an early
    # return, no branch of the call below); 193 return _no_grad_normal_(...) (20): 21 with torch.no_grad(): 22 tensor.normal_
    t = ix.trace("torch.nn.init.normal_")
    assert [(h.depth, h.kind, h.name, str(h.call), getattr(h, "conditions", ())) for h in t.hops[1:]] == [
        (1, "call", "torch.nn.init._no_grad_normal_", "torch/nn/init.py:193", ()),
        (2, "op", "normal_", "torch/nn/init.py:22", ())]


def test_sdpa_kernel_sets_each_backend_flag(ix: Index):
    # attention/__init__.py:83 _sdpa_kernel: 84 for name, val in _backend_names.items(): (63: cudnn, flash,
    # mem_efficient, math) 86 getattr(torch.backends.cuda, f"enable_{name}_sdp")(enabled) -> backends/cuda/__init__.py
    # 429 enable_cudnn_sdp, 284 enable_flash_sdp, 302 enable_mem_efficient_sdp, 320 enable_math_sdp
    a, b = "torch/nn/attention/__init__.py", "torch/backends/cuda/__init__.py"
    hops = [(h.depth, h.name, str(h.call), str(h.definition)) for h in ix.trace("torch.nn.attention.sdpa_kernel").hops
            if h.name.startswith("torch.backends.cuda.enable_")]
    assert hops == [
        (2, "torch.backends.cuda.enable_cudnn_sdp", f"{a}:86", f"{b}:429"),
        (2, "torch.backends.cuda.enable_flash_sdp", f"{a}:86", f"{b}:284"),
        (2, "torch.backends.cuda.enable_mem_efficient_sdp", f"{a}:86", f"{b}:302"),
        (2, "torch.backends.cuda.enable_math_sdp", f"{a}:86", f"{b}:320"),
    ]
    # each setter calls its torch._C flag: 435 _set_sdp_use_cudnn, 290 _flash, 308 _mem_efficient, 326 _math
    rows = ix.conn.execute("SELECT caller, kind, name, line FROM py_calls WHERE file = ? AND name LIKE '_set_sdp_use_%' "
                           "ORDER BY line", (b,)).fetchall()
    assert rows == [
        ("torch.backends.cuda.enable_flash_sdp", "torch_c", "_set_sdp_use_flash", 290),
        ("torch.backends.cuda.enable_mem_efficient_sdp", "torch_c", "_set_sdp_use_mem_efficient", 308),
        ("torch.backends.cuda.enable_math_sdp", "torch_c", "_set_sdp_use_math", 326),
        ("torch.backends.cuda.enable_cudnn_sdp", "torch_c", "_set_sdp_use_cudnn", 435),
    ]


# --- distributions -------------------------------------------------------------------------------------

D = "torch/distributions"


def test_normal_rsample_traced_or_not(ix: Index):
    # normal.py:75 rsample -> 77 _standard_normal (utils.py:58): 59 if torch._C._get_tracing_state(): 61 torch.normal
    # (62 zeros, 63 ones); 65 torch.empty(...).normal_() otherwise
    name = "torch.distributions.Normal.rsample"
    traced = ["if torch._C._get_tracing_state()"]
    assert op_conditions(ix, name, "normal") == [(f"{D}/utils.py:61", traced)]
    assert op_conditions(ix, name, "normal_") == [(f"{D}/utils.py:65", [])]


def test_bernoulli_sample_under_no_grad(ix: Index, old: Index):
    # bernoulli.py:104 sample: 106 with torch.no_grad(): 107 torch.bernoulli(self.probs.expand(shape))
    name = "torch.distributions.Bernoulli.sample"
    assert op_conditions(ix, name, "bernoulli") == [(f"{D}/bernoulli.py:107", [])]
    # 1.13.1 bernoulli.py:95 sample: 97 with torch.no_grad(): 98 torch.bernoulli(self.probs.expand(shape))
    assert op_conditions(old, name, "bernoulli") == [(f"{D}/bernoulli.py:98", [])]
