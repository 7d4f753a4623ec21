"""Filter values that no op could match are errors, not empty answers: a dispatch key that is none of the
checkout's c10/core/DispatchKey.h (kernels-for, trace, doctor, ops), an op kind, kernel origin, tag or Python
module the index does not know (ops). A synonym key is its key; an alias key (Autograd) answers with the kernel
registered for it. On the fixture checkout with the key headers of tests/fixtures/dispatch_keys."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tg_index.indexer.errors import TgIndexError
from tg_index.queries.api import Index

from .conftest import FIXTURES, MINI, run


@pytest.fixture(scope="module")
def keyed_db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("filters") / "mini"
    shutil.copytree(MINI, root)
    shutil.copytree(FIXTURES / "dispatch_keys" / "c10", root / "c10")
    db = root.parent / "keyed.db"
    done = run("tg-index", str(root), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stderr
    return db


def _error(db: Path, *args: str) -> str:
    done = run("tg-query", "--db", str(db), *args)
    assert (done.returncode, done.stdout) == (1, ""), (done.returncode, done.stdout)
    return done.stderr


def _json(db: Path, *args: str):
    done = run("tg-query", "--db", str(db), *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("command", [("kernels-for", "add.Tensor"), ("trace", "torch.add"), ("doctor",), ("ops",)])
def test_a_key_that_is_none_of_the_checkouts_is_an_error(keyed_db, command):
    assert _error(keyed_db, *command, "--key", "cpu") == "error: unknown dispatch key 'cpu'; did you mean 'CPU'?\n"
    assert _error(keyed_db, *command, "--key", "Nokey") == (
        "error: unknown dispatch key 'Nokey'; see `tg-query sql \"SELECT name, kind FROM dispatch_keys\"`\n")


def test_the_api_raises_for_an_unknown_key(keyed_db):
    ix = Index.open(keyed_db)
    with pytest.raises(TgIndexError, match="unknown dispatch key 'Cuda'; did you mean 'CUDA'"):
        ix.kernels_for("add.Tensor", ("CPU", "Cuda"))
    with pytest.raises(TgIndexError, match="unknown kind 'inplce'; did you mean 'inplace'"):
        ix.ops(kind="inplce")


def test_a_synonym_is_its_key(keyed_db):
    # tests/fixtures/dispatch_keys/c10/core/DispatchKey.h: CPUTensorId = CPU
    assert _json(keyed_db, "kernels-for", "add.Tensor", "--key", "CPUTensorId") == \
        _json(keyed_db, "kernels-for", "add.Tensor", "--key", "CPU")
    assert _json(keyed_db, "ops", "--key", "CPUTensorId") == _json(keyed_db, "ops", "--key", "CPU")


def test_an_alias_key_answers_with_the_kernel_registered_for_it(keyed_db):
    [autograd] = _json(keyed_db, "kernels-for", "add.Tensor", "--key", "Autograd")["keys"]
    assert (autograd["key"], autograd["kernel"], autograd["origin"]) == ("Autograd", "VariableType::add_Tensor",
                                                                         "generated")
    assert autograd["note"].startswith("autograd kernel (computed dispatch table); registered in the generated "
                                       "VariableType_")
    # a key of the checkout that no kernel is registered for (a functionality key) answers with none
    assert _json(keyed_db, "kernels-for", "add.Tensor", "--key", "Dense")["keys"] == []


def test_ops_filters_that_no_op_could_match_are_errors(keyed_db):
    assert _error(keyed_db, "ops", "--kind", "bogus") == (
        "error: unknown kind 'bogus'; one of: functional, inplace, out, mutable, scratch\n")
    assert _error(keyed_db, "ops", "--origin", "Ufunc") == "error: unknown origin 'Ufunc'; did you mean 'ufunc'?\n"
    assert _error(keyed_db, "ops", "--tag", "Pointwise") == "error: unknown tag 'Pointwise'; did you mean 'pointwise'?\n"
    assert _error(keyed_db, "ops", "--tag", "reduction") == (
        "error: unknown tag 'reduction'; see `tg-query sql \"SELECT name, description FROM tags\"`\n")
    # known values: a kind no op of the fixture has is an empty list, not an error
    assert _json(keyed_db, "ops", "--kind", "scratch") == []
    assert [o["name"] for o in _json(keyed_db, "ops", "--tag", "pointwise")][:2] == ["add.Tensor", "add.out"]


def test_python_modules_are_those_of_the_ops(tmp_path):
    root = tmp_path / "mini"
    shutil.copytree(MINI, root)
    yaml = root / "aten/src/ATen/native/native_functions.yaml"
    yaml.write_text(yaml.read_text() + "\n- func: gelu_like(Tensor self) -> Tensor\n  python_module: nn\n")
    db = tmp_path / "i.db"
    assert run("tg-index", str(root), "--db", str(db), "--quiet").returncode == 0
    assert [o["name"] for o in _json(db, "ops", "--python-module", "nn")] == ["gelu_like"]
    assert _error(db, "ops", "--python-module", "NN") == "error: unknown Python module 'NN'; did you mean 'nn'?\n"
    assert _error(db, "ops", "--python-module", "vision") == "error: unknown Python module 'vision'; one of: nn\n"


def test_without_the_key_headers_keys_are_taken_as_given(mini_db):
    # no c10/core/DispatchKey.h in the checkout: nothing to check a key against
    assert _json(mini_db, "kernels-for", "add.Tensor", "--key", "cpu")["keys"] == []


def test_symbol_kinds(keyed_db):
    assert _error(keyed_db, "symbol", "add_out", "--kind", "struct") == (
        "error: unknown definition kind 'struct'; one of: function, method, global_kernel, device_function, meta_func, "
        "impl_func\n")
    assert _error(keyed_db, "symbol", "add_out", "--kind", "Impl_Func") == (
        "error: unknown definition kind 'Impl_Func'; did you mean 'impl_func'?\n")
    # the name has definitions, of another kind than the one asked
    assert _error(keyed_db, "symbol", "add_kernel_cuda", "--kind", "function") == (
        "error: no function definition named 'add_kernel_cuda'; its definitions are of kind global_kernel\n")
    assert [s["kind"] for s in _json(keyed_db, "symbol", "add_out", "--kind", "impl_func")] == ["impl_func"]


def test_an_empty_op_name_asks_for_one(keyed_db):
    expected = "error: unknown op '': an op name is needed (add.out); try `tg-query ops --name PATTERN`\n"
    assert _error(keyed_db, "kernels-for", "") == expected
    assert _error(keyed_db, "op", "") == expected
