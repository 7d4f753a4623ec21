"""ops-for from a vendor entry point by the name kernels-for shows: kernels-for's brief writes a library call as
`family:last component` without template arguments (`onednn:compute` for `ideep::eltwise_backward::compute`,
`fbgemm:Quantize` for `fbgemm::Quantize<int8_t, false>`), so ops-for takes the entry point by its whole name or
its last components, with or without the template arguments the call writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from tg_index.indexer.errors import TgIndexError
from tg_index.queries import brief
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: qscale(Tensor self) -> Tensor
  dispatch:
    CPU: qscale_cpu
"""
QSCALE_CPP = """\
namespace at { namespace native {
Tensor qscale_cpu(const Tensor& self) {
  fbgemm::Quantize<int8_t, false>(self, self);                                 // :3
  ideep::eltwise_backward::compute(self, self);                                // :4
  return self;
}
} }
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("vendor_names"), {
        N + "native_functions.yaml": YAML, N + "quantized/QScale.cpp": QSCALE_CPP})


def test_ops_for_takes_an_entry_point_as_the_brief_writes_it(db: Path):
    ix = Index.open(db)
    text = brief.brief("kernels_for", ix.kernels_for("qscale"))[1]
    assert "fbgemm:Quantize" in text or "onednn:compute" in text
    for name in ("Quantize", "fbgemm::Quantize", "::fbgemm::Quantize", "Quantize<int8_t, false>",
                 "fbgemm::Quantize<int8_t,false>", "compute", "eltwise_backward::compute",
                 "ideep::eltwise_backward::compute"):
        hits = {(h.op, h.key): h.path for h in ix.ops_for(name)}
        assert set(hits) == {("qscale", "CPU")}, name
        assert hits[("qscale", "CPU")][0] == "at::native::qscale_cpu", name
    for other in ("backward::compute", "other::compute", "Quantize<int16_t, false>", "Quant"):
        with pytest.raises(TgIndexError, match="no function, stub or kernel named"):
            ix.ops_for(other)
