"""The YAML layer on real trees, against the checkout's own torchgen."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest
import yaml

from tg_index.indexer import yaml_lines

from ..conftest import real_tree

VERSIONS = ["2.6.0", "1.13.1", "2.13.0"]

# Runs inside the tree, with the tree's own torchgen first on sys.path.
TORCHGEN_INDEX = r"""
import json, os, sys
sys.path.insert(0, os.getcwd())
from torchgen.gen import parse_native_yaml
nf = "aten/src/ATen/native/native_functions.yaml"
tags = "aten/src/ATen/native/tags.yaml"
parsed = parse_native_yaml(nf, tags) if os.path.exists(tags) else parse_native_yaml(nf)
rows = sorted([str(op), str(key), md.kernel]
              for key, index in parsed.backend_indices.items() for op, md in index.index.items())
json.dump(rows, sys.stdout)
"""


@pytest.mark.parametrize("version", VERSIONS)
def test_dispatch_rows_equal_torchgen_backend_index(version, real_dbs):
    tree = real_tree(version)
    ref = subprocess.run([sys.executable, "-c", TORCHGEN_INDEX], cwd=tree, capture_output=True, text=True, check=True)
    expected = {tuple(r) for r in json.loads(ref.stdout)}
    with sqlite3.connect(real_dbs(version)) as conn:
        ours = set(conn.execute("SELECT op, key, kernel FROM dispatch "
                                "WHERE origin IN ('yaml', 'composite_implicit', 'autogen', 'ufunc')"))
    assert len(expected) > 4000
    assert sorted(expected - ours) == [], "missing rows"
    assert sorted(ours - expected) == [], "extra rows"


@pytest.mark.parametrize("version", VERSIONS)
def test_every_derivative_is_attached_to_an_op(version, real_dbs):
    with sqlite3.connect(real_dbs(version)) as conn:
        total = conn.execute("SELECT count(*) FROM derivatives").fetchone()[0]
        unattached = conn.execute("SELECT op, line FROM derivatives WHERE op_id IS NULL").fetchall()
    assert total > 600
    # Every entry of all three trees names an op of native_functions.yaml; none is exempt.
    assert unattached == []


def test_add_out_on_2_6_0(real_dbs):
    with sqlite3.connect(real_dbs("2.6.0")) as conn:
        rows = conn.execute("SELECT key, kernel, origin, line FROM dispatch WHERE op = 'add.out' ORDER BY id").fetchall()
        op = conn.execute("SELECT line, structured, structured_inherits FROM ops WHERE name = 'add.out'").fetchone()
        backward = conn.execute("SELECT f.names, f.formula, f.line FROM derivatives d JOIN derivative_formulas f "
                                "ON f.derivative_id = d.id WHERE d.op = 'add.Tensor' ORDER BY f.id").fetchall()
    assert op == (575, 1, "TensorIteratorBase")
    assert ("CPU", "ufunc_add_CPU", "ufunc", 579) in rows
    assert ("CUDA", "ufunc_add_CUDA", "ufunc", 579) in rows
    assert ("SparseCPU", "add_out_sparse_cpu", "yaml", 583) in rows
    assert ("MPS", "add_out_mps", "yaml", 588) in rows
    assert ("Meta", "structured_add_Tensor", "meta", 575) in rows
    assert backward[0] == ('["self"]', "handle_r_to_c(self.scalar_type(), grad)", 230)


YAML_FILES = ["aten/src/ATen/native/native_functions.yaml", "aten/src/ATen/native/tags.yaml",
              "tools/autograd/derivatives.yaml"]


@pytest.mark.parametrize("version", VERSIONS)
def test_lined_yaml_equals_safe_load_and_lines_point_at_entries(version):
    """The event-built values are yaml.safe_load's, and every entry's and key's line is where it is written;
    PyTorch's files pass the plain-data rules (no anchors, aliases, tags or NUL)."""
    tree = real_tree(version)
    checked = 0
    for rel in YAML_FILES:
        path = tree / rel
        text = yaml_lines.decode(path.read_bytes(), rel)
        doc = yaml_lines.load(text, rel)
        assert doc == yaml.safe_load(text)
        lines = text.splitlines()
        for entry, line in zip(doc, doc.item_lines):
            assert entry.line == line and lines[line - 1].startswith("- ")
            for key, key_line in entry.key_lines.items():
                assert lines[key_line - 1].lstrip("- ").startswith(f"{key}:")
            checked += 1
    assert checked > 3000
