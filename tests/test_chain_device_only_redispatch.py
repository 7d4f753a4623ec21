"""A redispatch to an op that only one device implements is followed wherever the walk meets it (queries/chain.py
_device_only), and a brief line whose own steps end only in queries goes on to (or names) the ops that do the work
(queries/brief.py _path_first).

Modelled on 2.6.0 RNN.cpp:1375 (gru.input, CompositeImplicitAutograd), which calls gru_cudnn_stub; its CUDA
registration gru_cudnn (cudnn/RNN.cpp:2685) calls _cudnn_impl, whose try_get_weight_buf asks cuDNN for the weights'
sizes (cudnnGetRNNParamsSize, :565) and whose `at::_cudnn_rnn(...)` (:2544) runs the RNN: _cudnn_rnn has a CUDA
kernel only (native_functions.yaml), RNN.cpp:1384, which calls cudnnRNNForwardTraining. A backend walk did not follow
a helper's redispatch, and gru's CUDA line ended at cudnnGetRNNParamsSize. A helper's redispatch to an op with
kernels for every device (zero_) stays unfollowed. The same holds for a backend kernel: its line goes on into the
device-only op's work."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index
from tg_index.queries.brief import kernels_for_brief

from .conftest import FIXTURES, built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: seq_thing(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: seq_thing
- func: _seq_cudnn(Tensor self) -> Tensor
  dispatch:
    CUDA: _seq_cudnn_cuda
- func: zero_thing_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU, CUDA: zero_thing_
- func: ask_thing(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: ask_thing
- func: conv_thing(Tensor self) -> Tensor
  dispatch:
    CPU: conv_thing_cpu
    CUDA: conv_thing_cuda
"""
SEQ_H = """\
namespace at { namespace native {
using seq_fn = void (*)(Tensor&, const Tensor&);
DECLARE_DISPATCH(seq_fn, seq_cudnn_stub);
} }
"""
SEQ_CPP = """\
#include <ATen/native/Seq.h>
namespace at { namespace native {
DEFINE_DISPATCH(seq_cudnn_stub);
REGISTER_NO_CPU_DISPATCH(seq_cudnn_stub);
Tensor seq_thing(const Tensor& self) {
  Tensor out;
  seq_cudnn_stub(self.device().type(), out, self);                           // :7
  return out;
}
Tensor zero_thing_(Tensor& self) {
  for (int i = 0; i < 4; i++) { self.fill_(0); }
  return self;
}
Tensor ask_thing(const Tensor& self) {
  size_t size = 0;
  cudnnGetRNNParamsSize(nullptr, &size);                                     // :16
  return at::_seq_cudnn(self);                                               // :17
}
Tensor conv_thing_cpu(const Tensor& self) {
  for (int i = 0; i < 4; i++) { self.fill_(1); }
  return self;
}
} }
"""
CUDNN_CPP = """\
#include <ATen/native/Seq.h>
namespace at { namespace native {
namespace {
Tensor weight_buf(const Tensor& self) {
  size_t size = 0;
  cudnnGetRNNParamsSize(nullptr, &size);                                     // :6
  return self;
}
Tensor seq_impl(const Tensor& self) {
  Tensor w = weight_buf(self);                                               // :10
  at::zero_thing_(w);                                                         // :11
  return at::_seq_cudnn(self);                                               // :12
}
void seq_cudnn(Tensor& out, const Tensor& self) {                            // :14
  out = seq_impl(self);                                                      // :15
}
}
Tensor _seq_cudnn_cuda(const Tensor& self) {                                 // :18
  cudnnRNNForwardTraining(nullptr);                                          // :19
  return self;
}
Tensor conv_helper(const Tensor& self) {
  size_t size = 0;
  cudnnGetConvolutionForwardWorkspaceSize(nullptr, &size);                   // :24
  return at::_seq_cudnn(self);                                               // :25
}
Tensor conv_thing_cuda(const Tensor& self) {                                 // :27
  return conv_helper(self);
}
REGISTER_CUDA_DISPATCH(seq_cudnn_stub, &seq_cudnn)                           // :30
} }
"""
ZERO_CU = """\
namespace at { namespace native {
__global__ void zero_kernel(float* out) { out[0] = 0; }
void zero_launch(float* p) { zero_kernel<<<4, 128>>>(p); }
} }
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    keys = FIXTURES / "dispatch_keys"  # the dispatcher's keys, for a composite kernel asked for by CUDA
    files = {str(p.relative_to(keys)): p.read_text() for p in (keys / "c10").rglob("*") if p.is_file()}
    return Index.open(built_tree(tmp_path_factory.mktemp("device_only"), {
        **files, N + "native_functions.yaml": YAML, N + "Seq.h": SEQ_H, N + "Seq.cpp": SEQ_CPP, N + "cudnn/Seq.cpp": CUDNN_CPP,
        N + "cuda/Zero.cu": ZERO_CU}))


def _key(ix: Index, op: str, key: str):
    [answer] = [a for a in ix.kernels_for(op, (key.split(" ")[0],)) if a.op == op]
    [k] = [k for k in answer.keys if k.key == key]
    return answer, k


def test_the_device_only_op_below_a_registered_helper_is_followed(ix: Index):
    _answer, k = _key(ix, "seq_thing", "CUDA <- CompositeImplicitAutograd")
    chain = [(s.kind, s.name, s.loc.line if s.loc else None) for s in k.chain]
    assert ("definition", "at::native::(anonymous)::seq_cudnn", 14) in chain  # cudnn/Seq.cpp:14, registered at :30
    assert ("redispatch", "_seq_cudnn", 12) in chain  # cudnn/Seq.cpp:12, in seq_impl
    assert ("definition", "at::native::_seq_cudnn_cuda", 18) in chain
    assert ("library", "cudnnRNNForwardTraining", 19) in chain
    # zero_thing_ has a kernel for CPU too: a helper's redispatch to it is shown, not followed
    assert ("redispatch", "zero_thing_", 11) in chain
    assert "at::native::zero_thing_" not in {name for kind, name, _line in chain if kind == "definition"}


def test_a_composite_line_names_the_op_not_the_query(ix: Index):
    answer, _k = _key(ix, "seq_thing", "CUDA <- CompositeImplicitAutograd")
    [line] = [b for b in kernels_for_brief(answer)["keys"] if b["key"].startswith("CUDA")]
    assert line["path"] == ["stubs", "registered"]  # it ends at seq_cudnn, not at cudnnGetRNNParamsSize
    assert line["registered"][0] == "seq_cudnn"
    assert "_seq_cudnn" in line["redispatches"]
    assert "cudnn:cudnnGetRNNParamsSize" in line["library"]  # still listed, not the end


def test_a_backend_line_goes_on_into_the_device_only_op(ix: Index):
    answer, k = _key(ix, "conv_thing", "CUDA")
    chain = [(s.kind, s.name, s.loc.line if s.loc else None) for s in k.chain]
    assert ("redispatch", "_seq_cudnn", 25) in chain and ("library", "cudnnRNNForwardTraining", 19) in chain
    [line] = [b for b in kernels_for_brief(answer)["keys"] if b["key"] == "CUDA"]
    assert line["library"][0] == "cudnn:cudnnRNNForwardTraining"  # not the workspace query at :24
    assert line["path"] == ["library"]


def test_a_composite_line_with_only_queries_of_its_own_has_no_path(ix: Index):
    """A composite kernel without a stub whose own steps end only in a query (Seq.cpp:16): its line names the op
    whose kernel works (`=> _seq_cudnn`) and goes no further, as a composite line does."""
    answer, _k = _key(ix, "ask_thing", "CUDA <- CompositeExplicitAutograd")
    [line] = [b for b in kernels_for_brief(answer)["keys"] if b["key"].startswith("CUDA")]
    assert "path" not in line
    assert line["redispatches"] == ["_seq_cudnn"]
    assert line["library"] == ["cudnn:cudnnGetRNNParamsSize"]  # its own steps only


def test_an_edit_that_gives_the_op_another_device_s_kernel_walks_the_chain_again(tmp_path):
    """Whether a helper's redispatch is followed depends on the op's kernels, which native_functions.yaml gives: an
    edit of it walks every op again (indexer/chain_stage.py), and the chain answers as a fresh build does."""
    from tg_index.indexer.build import build

    keys = FIXTURES / "dispatch_keys"
    files = {str(p.relative_to(keys)): p.read_text() for p in (keys / "c10").rglob("*") if p.is_file()}
    tree = tmp_path / "tree"
    db = built_tree(tree, {**files, N + "native_functions.yaml": YAML, N + "Seq.h": SEQ_H, N + "Seq.cpp": SEQ_CPP,
                           N + "cudnn/Seq.cpp": CUDNN_CPP, N + "cuda/Zero.cu": ZERO_CU})
    _answer, k = _key(Index.open(db), "conv_thing", "CUDA")
    assert "at::native::_seq_cudnn_cuda" in {s.name for s in k.chain}
    yaml = tree / N / "native_functions.yaml"  # _seq_cudnn gets a CPU kernel: no longer CUDA's alone
    yaml.write_text(YAML.replace("    CUDA: _seq_cudnn_cuda", "    CPU: zero_thing_\n    CUDA: _seq_cudnn_cuda"))
    build(tree, db, jobs=1)
    _answer, k = _key(Index.open(db), "conv_thing", "CUDA")
    names = {s.name for s in k.chain}
    assert "_seq_cudnn" in names and "at::native::_seq_cudnn_cuda" not in names
