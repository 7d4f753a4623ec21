from __future__ import annotations

import pytest

from tg_index.indexer import derivatives
from tg_index.indexer.errors import SourceError
from tg_index.indexer.facts import Location

from .conftest import MINI

D = derivatives.DERIVATIVES


def test_entries_formulas_and_dispatch_blocks():
    facts = derivatives.parse((MINI / D).read_text())
    assert [(f.op, f.dispatch_key, f.loc.line) for f in facts] == [
        ("add.Tensor", None, 2), ("relu", None, 7), ("mul.Scalar", "Default", 13),
        ("mul.Scalar", "AutogradNestedTensor", 15), ("custom_op", None, 19),
    ]
    add = facts[0]
    assert add.formulas == (
        derivatives.Formula(("self",), "input", "handle_r_to_c(self.scalar_type(), grad)", Location(D, 3)),
        derivatives.Formula(("other",), "input", "handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha.conj()))", Location(D, 4)),
        derivatives.Formula(("result",), "output", "self_t + maybe_multiply(other_t, alpha)", Location(D, 5)),
    )
    assert facts[1].saved_results == ("result",)
    assert add.saved_results == ()
    assert facts[2].output_differentiability == (True,)
    assert [f.formula for f in facts[3].formulas] == ["grad * other"]
    assert facts[4].formulas[0].names == ("self", "n")


def test_return_names():
    assert derivatives.return_names("(Tensor values, Tensor indices)") == ("values", "indices")
    assert derivatives.return_names("(Tensor, Tensor)") == ("result0", "result1")
    assert derivatives.return_names("Tensor(a!)") == ("result",)


def test_bad_entry_names_its_line():
    with pytest.raises(SourceError, match=rf"^{D}:2: an entry needs a 'name' schema string$"):
        derivatives.parse("- name: a(Tensor self) -> Tensor\n- self: grad\n")


@pytest.mark.parametrize(
    "text, message",
    [
        ("- name: a(Tensor self) -> Tensor\n  self: grad\n- just a string\n",
         f"{D}:3: an entry needs a 'name' schema string"),
        ("- name: a(Tensor self) -> Tensor\n  self, ,: grad\n", f"{D}:2: empty name in the formula key 'self, ,'"),
        ("- name: a(Tensor self) -> Tensor\n  dispatch:\n    '':\n      self: grad\n",
         f"{D}:3: dispatch key '' is not a dispatch key name"),
        ("- name: a(Tensor self) -> Tensor\n  self: &g grad\n", f"{D}:2: a YAML anchor (&g); PyTorch's YAML files use none"),
        ("", f"{D}:1: the file has no entries; expected a list of entries"),
    ],
)
def test_bad_entries_name_their_line(text, message):
    with pytest.raises(SourceError) as err:
        derivatives.parse(text)
    assert str(err.value) == message
