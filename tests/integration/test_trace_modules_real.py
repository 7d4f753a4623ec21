"""tg-query trace into torch.optim, torch.nn.utils, torch.nn.init and torch.distributions, on real 2.6.0 and 1.13.1.

Expected answers read in the sources (file:line with each). An optimizer class
goes to its step, step to the functional form (adamw(...)), and that to the
three implementations through the local alias it calls (`func = _fused_adamw`
... `func(...)`): the hops are charged at the assignment lines. Which condition
picks which path is not in the index (py_calls has no column for it).
"""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index
from tg_index.queries.render import trace_data

pytestmark = pytest.mark.integration


def hop(h) -> tuple:
    return (h.depth, h.kind, h.name, str(h.call) if h.call else None, str(h.definition) if h.definition else None)


def path(ix: Index, name: str) -> list[tuple]:
    """The Python hops (not the ops) down to depth 3."""
    return [hop(h) for h in ix.trace(name).hops if h.kind not in ("op", "unresolved") and h.depth <= 3]


def ops_under(ix: Index, name: str, fn: str) -> dict[str, str]:
    """The ops a hop to `fn` calls directly: op -> where the call is written."""
    hops = ix.trace(name).hops
    i = next(k for k, h in enumerate(hops) if h.name == fn)
    out: dict[str, str] = {}
    for h in hops[i + 1:]:
        if h.depth <= hops[i].depth:
            break
        if h.kind == "op" and h.depth == hops[i].depth + 1:
            out.setdefault(h.name, str(h.call))
    return out


O = "torch/optim"


def test_adamw_has_three_paths(ix: Index):
    # adamw.py:34 class AdamW, 208 step, 243 adamw(...) (811); 869/871/873 func = _fused_adamw/_multi_tensor_adamw/_single_tensor_adamw
    assert [h for h in path(ix, "torch.optim.AdamW") if h[0] != 3 or h[2].startswith("torch.optim.adamw._")] == [
        (0, "class", "torch.optim.adamw.AdamW", None, f"{O}/adamw.py:34"),
        (1, "step", "torch.optim.adamw.AdamW.step", None, f"{O}/adamw.py:208"),
        (2, "call", "torch.optim.optimizer.Optimizer._cuda_graph_capture_health_check", f"{O}/adamw.py:215",
         f"{O}/optimizer.py:420"),
        (2, "call", "torch.optim.adamw.AdamW._init_group", f"{O}/adamw.py:232", f"{O}/adamw.py:132"),
        (2, "call", "torch.optim.adamw.adamw", f"{O}/adamw.py:243", f"{O}/adamw.py:811"),
        (3, "call", "torch.optim.adamw._fused_adamw", f"{O}/adamw.py:869", f"{O}/adamw.py:711"),
        (3, "call", "torch.optim.adamw._multi_tensor_adamw", f"{O}/adamw.py:871", f"{O}/adamw.py:486"),
        (3, "call", "torch.optim.adamw._single_tensor_adamw", f"{O}/adamw.py:873", f"{O}/adamw.py:339"),
    ]


def test_adamw_paths_reach_fused_foreach_and_per_tensor_ops(ix: Index):
    name = "torch.optim.AdamW"
    # 787 torch._fused_adamw_(...)
    assert ops_under(ix, name, "torch.optim.adamw._fused_adamw")["_fused_adamw_"] == f"{O}/adamw.py:787"
    # 612 torch._foreach_lerp_(device_exp_avgs, device_grads, 1 - device_beta1); 675 torch._foreach_addcdiv_
    foreach = ops_under(ix, name, "torch.optim.adamw._multi_tensor_adamw")
    assert (foreach["_foreach_lerp_"], foreach["_foreach_addcdiv_"]) == (f"{O}/adamw.py:612", f"{O}/adamw.py:675")
    assert all(op.startswith("_foreach_") for op in foreach if op not in ("values", "to"))
    # 425 exp_avg.lerp_(grad, 1 - device_beta1); 459 param.addcdiv_(...)
    loop = ops_under(ix, name, "torch.optim.adamw._single_tensor_adamw")
    assert (loop["lerp_"], loop["addcdiv_"]) == (f"{O}/adamw.py:425", f"{O}/adamw.py:459")
    assert not any(op.startswith(("_foreach_", "_fused_")) for op in loop)
    reached = {o.op for o in ix.trace(name).ops}
    assert {"_fused_adamw_", "_foreach_lerp_", "lerp_"} <= reached


def test_adam_paths(ix: Index):
    # adam.py:870/872/874 func = _fused_adam / _multi_tensor_adam / _single_tensor_adam; 786 torch._fused_adam_
    name = "torch.optim.Adam"
    three = [h for h in path(ix, name) if h[0] == 3 and h[2].startswith("torch.optim.adam._")]
    assert three == [(3, "call", "torch.optim.adam._fused_adam", f"{O}/adam.py:870", f"{O}/adam.py:712"),
                     (3, "call", "torch.optim.adam._multi_tensor_adam", f"{O}/adam.py:872", f"{O}/adam.py:485"),
                     (3, "call", "torch.optim.adam._single_tensor_adam", f"{O}/adam.py:874", f"{O}/adam.py:340")]
    assert ops_under(ix, name, "torch.optim.adam._fused_adam")["_fused_adam_"] == f"{O}/adam.py:786"
    assert ops_under(ix, name, "torch.optim.adam._multi_tensor_adam")["_foreach_lerp_"] == f"{O}/adam.py:619"
    assert ops_under(ix, name, "torch.optim.adam._single_tensor_adam")["lerp_"] == f"{O}/adam.py:423"


def test_sgd_paths(ix: Index):
    # sgd.py:104 step -> 125 sgd(...) (246); 294 _multi_tensor_sgd, 296 _fused_sgd, 298 _single_tensor_sgd
    name = "torch.optim.SGD"
    three = [h for h in path(ix, name) if h[0] == 3 and h[2].startswith("torch.optim.sgd._")]
    assert three == [(3, "call", "torch.optim.sgd._multi_tensor_sgd", f"{O}/sgd.py:294", f"{O}/sgd.py:356"),
                     (3, "call", "torch.optim.sgd._fused_sgd", f"{O}/sgd.py:296", f"{O}/sgd.py:449"),
                     (3, "call", "torch.optim.sgd._single_tensor_sgd", f"{O}/sgd.py:298", f"{O}/sgd.py:316")]
    assert ops_under(ix, name, "torch.optim.sgd._fused_sgd")["_fused_sgd_"] == f"{O}/sgd.py:498"
    assert ops_under(ix, name, "torch.optim.sgd._multi_tensor_sgd")["_foreach_add_"] == f"{O}/sgd.py:398"
    # 346 buf.mul_(momentum).add_(grad, alpha=1 - dampening)
    loop = ops_under(ix, name, "torch.optim.sgd._single_tensor_sgd")
    assert (loop["mul_"], loop["add_"]) == (f"{O}/sgd.py:346", f"{O}/sgd.py:346")


def test_adamw_on_1_13_1_has_no_fused_path(old: Index):
    # 1.13.1 adamw.py:9 class AdamW, 108 step, 162 adamw(...) (181); 215 _multi_tensor_adamw, 217 _single_tensor_adamw
    assert [h for h in path(old, "torch.optim.AdamW") if h[2].startswith("torch.optim.adamw")] == [
        (0, "class", "torch.optim.adamw.AdamW", None, f"{O}/adamw.py:9"),
        (1, "step", "torch.optim.adamw.AdamW.step", None, f"{O}/adamw.py:108"),
        (2, "call", "torch.optim.adamw.adamw", f"{O}/adamw.py:162", f"{O}/adamw.py:181"),
        (3, "call", "torch.optim.adamw._multi_tensor_adamw", f"{O}/adamw.py:215", f"{O}/adamw.py:321"),
        (3, "call", "torch.optim.adamw._single_tensor_adamw", f"{O}/adamw.py:217", f"{O}/adamw.py:235"),
    ]
    assert not any(o.op.startswith("_fused_") for o in old.trace("torch.optim.AdamW").ops)


U = "torch/nn/utils/clip_grad.py"


def test_clip_grad_norm(ix: Index, old: Index):
    # 2.6.0 clip_grad.py:176 -> 215 _get_total_norm (41): 87 torch._foreach_norm; 216 _clip_grads_with_norm_ (112):
    # 164 torch._foreach_mul_(device_grads, clip_coef_clamped.to(device))
    name = "torch.nn.utils.clip_grad_norm_"
    assert path(ix, name)[:2] == [(0, "function", "torch.nn.utils.clip_grad.clip_grad_norm_", None, f"{U}:176"),
                                  (1, "call", "torch.nn.utils.clip_grad._get_total_norm", f"{U}:215", f"{U}:41")]
    assert ops_under(ix, name, "torch.nn.utils.clip_grad._get_total_norm")["_foreach_norm"] == f"{U}:87"
    assert ops_under(ix, name, "torch.nn.utils.clip_grad._clip_grads_with_norm_")["_foreach_mul_"] == f"{U}:164"
    # 1.13.1 clip_grad.py:10, 43 torch.norm(torch.stack([...]), norm_type): torch.functional.norm, no foreach
    assert path(old, name)[0] == (0, "function", "torch.nn.utils.clip_grad.clip_grad_norm_", None, f"{U}:10")
    assert ("call", "torch.functional.norm", f"{U}:43") in [(h[1], h[2], h[3]) for h in path(old, name)]
    assert not any(o.op.startswith("_foreach_") for o in old.trace(name).ops)


def test_clip_grad_value_and_weight_norm(ix: Index):
    # clip_grad.py:274 torch._foreach_clamp_min_, 275 torch._foreach_clamp_max_
    assert ops_under(ix, "torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_value_") == {
        "_foreach_clamp_min_": f"{U}:274", "_foreach_clamp_max_": f"{U}:275", "clamp_": f"{U}:282"}
    # weight_norm.py:83 weight_norm -> 143 WeightNorm.apply (36) -> 59 norm_except_dim(weight, 2, dim)
    w = "torch/nn/utils/weight_norm.py"
    assert path(ix, "torch.nn.utils.weight_norm") == [
        (0, "function", "torch.nn.utils.weight_norm.weight_norm", None, f"{w}:83"),
        (1, "call", "torch.nn.utils.weight_norm.WeightNorm.apply", f"{w}:143", f"{w}:36")]
    assert ops_under(ix, "torch.nn.utils.weight_norm", "torch.nn.utils.weight_norm.WeightNorm.apply")[
        "norm_except_dim"] == f"{w}:59"


def test_init(ix: Index, old: Index):
    i = "torch/nn/init.py"
    # 2.6.0 init.py:456 kaiming_uniform_ -> 518 tensor.uniform_(-bound, bound, generator=generator); size is plumbing
    t = ix.trace("torch.nn.init.kaiming_uniform_")
    assert [(o.op, o.plumbing is not None) for o in t.ops] == [("size", True), ("uniform_", False)]
    assert ops_under(ix, "torch.nn.init.kaiming_uniform_", "torch.nn.init.kaiming_uniform_") == {"uniform_": f"{i}:518"}
    assert [o["op"] for o in trace_data(t)["ops"]] == ["uniform_"]
    # 407 xavier_normal_ -> 443 _no_grad_normal_ (20) -> 22 tensor.normal_(mean, std, generator=generator)
    assert ops_under(ix, "torch.nn.init.xavier_normal_", "torch.nn.init._no_grad_normal_") == {"normal_": f"{i}:22"}
    # 1.13.1 init.py:366 kaiming_uniform_ -> 412 tensor.uniform_(-bound, bound)
    assert ops_under(old, "torch.nn.init.kaiming_uniform_", "torch.nn.init.kaiming_uniform_") == {"uniform_": f"{i}:412"}


def test_distributions_sample(ix: Index, old: Index):
    d = "torch/distributions"
    # normal.py:70 sample: 73 torch.normal(self.loc.expand(shape), self.scale.expand(shape)); expand is plumbing
    t = ix.trace("torch.distributions.Normal.sample")
    assert path(ix, "torch.distributions.Normal.sample")[0] == (
        0, "method", "torch.distributions.normal.Normal.sample", None, f"{d}/normal.py:70")
    assert [(o.op, o.reached_by, o.plumbing is not None) for o in t.ops] == [
        ("normal", ("torch.normal",), False), ("expand", ("self.loc.expand",), True)]  # one hop per op and caller
    # bernoulli.py:104 sample: 107 torch.bernoulli(self.probs.expand(shape))
    assert ops_under(ix, "torch.distributions.Bernoulli.sample", "torch.distributions.bernoulli.Bernoulli.sample")[
        "bernoulli"] == f"{d}/bernoulli.py:107"
    # categorical.py:130 sample: 134 torch.multinomial(probs_2d, sample_shape.numel(), True).T
    assert ops_under(ix, "torch.distributions.Categorical.sample",
                     "torch.distributions.categorical.Categorical.sample")["multinomial"] == f"{d}/categorical.py:134"
    # 1.13.1 normal.py:67 sample: 70 torch.normal(...)
    assert ops_under(old, "torch.distributions.Normal.sample", "torch.distributions.normal.Normal.sample")[
        "normal"] == f"{d}/normal.py:70"
