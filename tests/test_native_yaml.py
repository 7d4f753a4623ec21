from __future__ import annotations

import pytest

from tg_index.indexer import native_yaml, yaml_lines
from tg_index.indexer.errors import SourceError

from .conftest import MINI

NF = native_yaml.NATIVE_FUNCTIONS


def _facts():
    text = (MINI / NF).read_text()
    tags = (MINI / native_yaml.TAGS).read_text()
    return native_yaml.parse(text, tags)


def test_dispatch_table_follows_torchgen_rules():
    rows = {(r.op, r.key, r.kernel, r.cpp_namespace, r.origin, r.via, r.loc.line) for r in _facts().dispatch}
    assert rows == {
        ("add.Tensor", "SparseCPU", "add_sparse", "at::native", "yaml", None, 7),
        ("add.Tensor", "SparseCUDA", "add_sparse", "at::native", "yaml", None, 7),
        ("add.out", "SparseCPU", "add_out_sparse_cpu", "at::native", "yaml", None, 23),
        ("add.out", "SparseMeta", "add_out_sparse_cpu", "at::native", "yaml", None, 23),
        ("add.out", "MPS", "add_out_mps", "at::native", "yaml", None, 24),
        ("add.out", "CPU", "ufunc_add_CPU", "at::native", "ufunc", None, 19),
        ("add.out", "CUDA", "ufunc_add_CUDA", "at::native", "ufunc", None, 19),
        ("relu", "CompositeImplicitAutograd", "relu", "at::native", "composite_implicit", None, 27),
        ("mul.Scalar", "CompositeExplicitAutograd", "mul", "at::native", "yaml", None, 33),
        ("mul_.Scalar", "CompositeExplicitAutograd", "mul_", "at::native", "yaml", None, 39),
        ("custom_op", "CPU", "custom_op_cpu", "my::ns::native", "yaml", None, 44),
        ("mul.Scalar_out", "CompositeExplicitAutograd", "mul_Scalar_out", "at::native", "autogen", None, 40),
        ("custom_op.out", "CompositeExplicitAutograd", "custom_op_out_symint", "at::native", "autogen", None, 45),
        # structured_delegate variants take the delegate's structured kernels (not SparseMeta, not structured)
        ("add.Tensor", "MPS", "add_out_mps", "at::native", "delegate", "add.out", 4),
        ("add.Tensor", "CPU", "ufunc_add_CPU", "at::native", "delegate", "add.out", 4),
        ("add.Tensor", "CUDA", "ufunc_add_CUDA", "at::native", "delegate", "add.out", 4),
        ("add_.Tensor", "MPS", "add_out_mps", "at::native", "delegate", "add.out", 13),
        ("add_.Tensor", "CPU", "ufunc_add_CPU", "at::native", "delegate", "add.out", 13),
        ("add_.Tensor", "CUDA", "ufunc_add_CUDA", "at::native", "delegate", "add.out", 13),
        # the structured group's Meta kernel comes from the meta function of its functional op
        ("add.out", "Meta", "structured_add_Tensor", "at::meta", "meta", None, 15),
        ("add.Tensor", "Meta", "structured_add_Tensor", "at::meta", "meta", "add.out", 4),
        ("add_.Tensor", "Meta", "structured_add_Tensor", "at::meta", "meta", "add.out", 13),
        ("sub.out", "CPU", "add_out", "at::native", "yaml", None, 50),
        ("sub.out", "CUDA", "add_out", "at::native", "yaml", None, 50),
    }


def test_every_field_of_an_entry_is_kept():
    ops = {o.name: o for o in _facts().ops}
    add = ops["add.out"]
    assert (add.kind, add.structured, add.structured_inherits, add.device_check) == ("out", True, "TensorIteratorBase", "NoCheck")
    assert add.ufunc_inner_loop == (
        native_yaml.UfuncLoop("Generic", "add", ("AllAndComplex", "BFloat16", "Half", "ComplexHalf")),
        native_yaml.UfuncLoop("ScalarOnly", "add", ("Bool",)),
    )
    assert add.tags == ("pointwise",)
    assert str(add.loc) == f"{NF}:15"
    assert ops["add.Tensor"].variants == ("function", "method")
    assert ops["add.Tensor"].tags == ("core", "pointwise")
    assert ops["add_.Tensor"].kind == "inplace"
    assert ops["mul.Scalar_out"].generated_from == "mul_.Scalar"
    assert ops["mul.Scalar_out"].kind == "out"
    assert ops["custom_op.out"].generated_from == "custom_op"


def test_tags_yaml():
    assert [(t.name, t.description, t.loc.line) for t in _facts().tags] == [
        ("pointwise", "An elementwise op.", 2),
        ("core", "Part of the core ATen opset.", 5),
        ("pt2_compliant_tag", "Works with torch.compile.", 7),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("- func: foo(Tensor self) -> Tensor\n  ufunc_inner_lop: foo (All)\n",
         f"{NF}:2: unknown key 'ufunc_inner_lop'"),
        ("- func: foo(Tensor self) -> Tensor\n  variants: function, methd\n", f"{NF}:2: illegal variant 'methd'"),
        ("- func: foo(Tensor self) -> Tensor\n  structured: yes please\n",
         f"{NF}:1: 'structured' must be a bool, not str ('yes please')"),
        ("- func: foo(Tensor self\n", f"{NF}:1: not a function schema: 'foo(Tensor self'"),
        ("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: [a, b\n", f"{NF}:4: malformed YAML: "),
        ("- func: a(Tensor self) -> Tensor\n- func: a(Tensor self) -> Tensor\n",
         f"{NF}:2: duplicate op 'a' (first at line 1)"),
        ("- func: a(Tensor self) -> Tensor\n  structured_delegate: a.out\n",
         f"{NF}:1: structured_delegate 'a.out' is not an op of this file"),
        ("- func: a(Tensor self) -> Tensor\n  tags: [nope]\n", f"{NF}:1: illegal tag 'nope'"),
        ("just a string\n", f"{NF}:1: expected a list of entries, found str"),
        ("# only a comment\n", f"{NF}:1: the file has no entries; expected a list of entries"),
        ("- func: a(Tensor self) -> Tensor\n  dispatch:\n    '': k\n", f"{NF}:3: empty dispatch key in ''"),
        ("- func: a(Tensor self) -> Tensor\n  dispatch:\n    CPU, ,: k\n", f"{NF}:3: empty dispatch key in 'CPU, ,'"),
        ("- func: a(Tensor self) -> Tensor\n  dispatch:\n    CPU: ''\n", f"{NF}:3: dispatch 'CPU' names no kernel"),
        ("- func: a.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured_delegate: a.out\n",
         f"{NF}:2: structured_delegate 'a.out' names the op itself; it must name the structured out= op"),
        ("- func: a(Tensor self) -> Tensor\n\n- 3\n", f"{NF}:3: an entry must be a mapping with a 'func' key, not int (3)"),
        ("- func: a(Tensor self) -> Tensor\n  tags: &t [core]\n", f"{NF}:2: a YAML anchor (&t); PyTorch's YAML files use none"),
        ("- func: a(Tensor self) -> Tensor\n  tags: *t\n",
         f"{NF}:2: a YAML alias (*t); PyTorch's YAML files use none, write the value out"),
        ("- func: a(Tensor self) -> Tensor\n\n- func: b\0(Tensor self) -> Tensor\n",
         f"{NF}:3: a NUL byte at column 10; YAML text cannot hold it"),
        ("- func: a(Tensor self) -> Tensor\n  precomputed: [2024-01-01]\n  structured: 1\n",
         f"{NF}:1: 'structured' must be a bool, not int (1)"),
    ],
)
def test_bad_entries_fail_loudly_with_file_and_line(text, message):
    tags = (MINI / native_yaml.TAGS).read_text()
    with pytest.raises(SourceError) as err:
        native_yaml.parse(text, tags)
    assert str(err.value).startswith(message)


def test_schema_parsing():
    s = native_yaml.parse_schema("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
                                 "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)")
    assert (s.name, s.kind, s.cpp_name, [a.name for a in s.out]) == ("max.dim_max", "out", "max_out", ["max", "max_values"])
    assert native_yaml.parse_schema("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)").kind == "inplace"
    assert native_yaml.parse_schema("__and__.Tensor(Tensor self, Tensor other) -> Tensor").kind == "functional"
    assert native_yaml.parse_schema("_foo(Tensor(a!) self, Tensor(b!) x) -> ()").kind == "mutable"
    assert native_yaml.parse_schema("zeros(SymInt[] size) -> Tensor").has_symint


def test_an_alias_bomb_fails_at_its_first_anchor():
    levels = "".join(f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 12))
    text = "- func: a(Tensor self) -> Tensor\n  l0: &l0 [lol]\n" + levels  # 9**11 strings once expanded
    with pytest.raises(SourceError) as err:
        yaml_lines.load(text, NF)
    assert str(err.value) == f"{NF}:2: a YAML anchor (&l0); PyTorch's YAML files use none"


@pytest.mark.parametrize(
    "text, message",
    [
        ("- !!python/object/apply:os.system [ls]\n", "f.yaml:1: the YAML tag 'tag:yaml.org,2002:python/object/apply:os.system' does not fit a list"),
        ("- !foo bar\n", "f.yaml:1: the YAML tag '!foo' is not plain data"),
        ("- !!int twelve\n", "f.yaml:1: int value 'twelve' cannot be read (invalid literal for int() with base 10: 'twelve')"),
        ("- a\n---\n- b\n", "f.yaml:2: a second YAML document (`---`); the file must hold one"),
        ("- {[a]: b}\n", "f.yaml:1: a mapping key must be a plain value, not a list or a mapping"),
        ("- a: 1\n  a: 2\n", "f.yaml:2: duplicate key 'a'"),
        ("x: " + "[" * 70 + "]" * 70 + "\n", "f.yaml:1: nested more than 64 levels deep"),
        ("- a: [b,\n", "f.yaml:2: malformed YAML: did not find expected node content"),  # the end of the file
        ("- a: [b,", "f.yaml:1: malformed YAML: did not find expected node content"),
        ("- a\x7f\n", "f.yaml:1: the control character U+007F at column 4; YAML text cannot hold it"),
    ],
)
def test_yaml_that_is_not_plain_data_names_its_line(text, message):
    with pytest.raises(SourceError) as err:
        yaml_lines.load(text, "f.yaml")
    assert str(err.value) == message


def test_values_and_lines():
    doc = yaml_lines.load("# c\n- a: 1\n  b: [x, 'y', ~, true, 1.5]\n\n- plain\n", "f.yaml")
    assert doc == [{"a": 1, "b": ["x", "y", None, True, 1.5]}, "plain"]
    assert (doc.line, doc.item_lines, doc[0].line, doc[0].key_lines) == (2, [2, 5], 2, {"a": 2, "b": 3})
    assert (doc[0]["b"].line, doc[0]["b"].item_lines) == (3, [3, 3, 3, 3, 3])
    assert yaml_lines.load("", "f.yaml") is None


@pytest.mark.parametrize(
    "data, message",
    [
        ("- a\n".encode("utf-16"), "f.yaml:1: the file is UTF-16 (little-endian), not UTF-8; save it as UTF-8"),
        ("- a\n".encode("utf-16-be"), "f.yaml:1: the file is UTF-16 (big-endian), not UTF-8; save it as UTF-8"),
        ("- a\n".encode("utf-32"), "f.yaml:1: the file is UTF-32 (little-endian), not UTF-8; save it as UTF-8"),
        (b"- a\n- caf\xe9\n", "f.yaml:2: bytes that are not UTF-8 (0xe9 at column 6)"),
        (b"- a\n- \xe2\x82\n", "f.yaml:2: bytes that are not UTF-8 (0xe2 0x82 at column 3)"),
    ],
)
def test_decode_names_what_is_not_utf8(data, message):
    with pytest.raises(SourceError) as err:
        yaml_lines.decode(data, "f.yaml")
    assert str(err.value) == message


def test_decode_takes_utf8():
    assert yaml_lines.decode("- caf\u00e9\n".encode(), "f.yaml") == "- caf\u00e9\n"
