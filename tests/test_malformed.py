"""The malformed-input suite: hostile checkouts made at run time from copies of the fixture,
given to the real `tg-index` and `tg-query` commands.

Each case checks the exit code, that no traceback is printed, the one line that names the
problem (or, for a build that goes on, the status every skipped file gets in the files table),
and that nothing is written anywhere but the index asked for: the temporary folder's listing,
with every file's size and modification time, is the same before and after but for that index.
The commands run as a user without the capabilities that override file modes (root gives them
up for the child), so an unreadable file is unreadable to them.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import socket
import sqlite3
import stat
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .conftest import BIN, MINI

NF = "aten/src/ATen/native/native_functions.yaml"
TAGS = "aten/src/ATen/native/tags.yaml"
DERIV = "tools/autograd/derivatives.yaml"
NATIVE = "aten/src/ATen/native"
MODULES = "torch/nn/modules"
# The fixture's own file that does not parse: listed in every index of it.
FIXTURE_ERRORS = {f"{MODULES}/broken.py": f"error: {MODULES}/broken.py:1: invalid syntax"}
BOMB = "".join(f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 9))


_PRCTL = ctypes.CDLL(None, use_errno=True).prctl  # looked up here: the child only calls it


def _drop_override() -> None:
    """In the child, before exec: give up CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (PR_CAPBSET_DROP),
    so root reads only what file modes allow; for a user without capabilities this changes nothing."""
    for cap in (1, 2):
        _PRCTL(24, cap, 0, 0, 0)


def _cli(tmp: Path, cmd: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TG_INDEX_DB"}
    env["TILEGYM_SKILL_CACHE_DIR"] = str(tmp / "cache")
    return subprocess.run([str(BIN / cmd), *args], capture_output=True, text=True, errors="backslashreplace",
                          env=env, timeout=120, preexec_fn=_drop_override)


def _listing(top: Path) -> dict[str, tuple]:
    """Every path under top with its type, and for a regular file its size and modification time (lstat only)."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            kind = stat.S_IFMT(info.st_mode)
            out[os.fsencode(os.path.relpath(path, top)).decode("utf-8", "backslashreplace")] = (
                (kind, info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else (kind,))
    return out


# Ways to break a copy of the fixture: each takes the copy's root and the temporary folder.
Breaker = Callable[[Path, Path], None]


def _text(rel: str, change: Callable[[str], str]) -> Breaker:
    def breaker(m: Path, _tmp: Path) -> None:
        (m / rel).write_text(change((m / rel).read_text()))
    return breaker


def _bytes(rel: str, change: Callable[[bytes], bytes]) -> Breaker:
    def breaker(m: Path, _tmp: Path) -> None:
        (m / rel).write_bytes(change((m / rel).read_bytes()))
    return breaker


def _cut(rel: str, after: str) -> Breaker:
    """The file truncated right after the first `after`."""
    return _text(rel, lambda t: t[: t.index(after) + len(after)])


def _append(rel: str, entry: str) -> Breaker:
    return _text(rel, lambda t: t + "\n" + entry)


def _replace(rel: str, old: str, new: str) -> Breaker:
    return _text(rel, lambda t: t.replace(old, new, 1))


def _chmod(rel: str, mode: int) -> Breaker:
    return lambda m, _tmp: os.chmod(m / rel, mode)


def _remove(rel: str) -> Breaker:
    return lambda m, _tmp: (m / rel).unlink()


def _fifo(rel: str) -> Breaker:
    def breaker(m: Path, _tmp: Path) -> None:
        (m / rel).unlink(missing_ok=True)
        os.mkfifo(m / rel)
    return breaker


def _device(rel: str) -> Breaker:
    return lambda m, _tmp: os.mknod(m / rel, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers


def _socket(rel: str) -> Breaker:
    def breaker(m: Path, _tmp: Path) -> None:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(m / rel))
    return breaker


def _symlink(rel: str, target: str) -> Breaker:
    """rel becomes a symlink to target ({tmp} is the temporary folder, outside the checkout)."""
    def breaker(m: Path, tmp: Path) -> None:
        (m / rel).unlink(missing_ok=True)
        os.symlink(target.format(tmp=tmp), m / rel)
    return breaker


def _outside(rel: str, content: str = "void evil() {}\n") -> Breaker:
    """rel becomes a symlink to a file of the same name outside the checkout."""
    def breaker(m: Path, tmp: Path) -> None:
        (tmp / "outside").mkdir(exist_ok=True)
        target = tmp / "outside" / Path(rel).name
        target.write_text(content)
        (m / rel).unlink(missing_ok=True)
        os.symlink(target, m / rel)
    return breaker


def _mkdir(rel: str, *files: str, mode: int | None = None) -> Breaker:
    def breaker(m: Path, _tmp: Path) -> None:
        path = Path(os.fsdecode(os.path.join(os.fsencode(m), os.fsencode(rel))))
        path.mkdir()
        for name in files:
            (path / name).write_text("void f() {}\n")
        if mode is not None:
            os.chmod(path, mode)
    return breaker


def _file(rel: bytes | str, content: bytes) -> Breaker:
    def breaker(m: Path, _tmp: Path) -> None:
        name = rel if isinstance(rel, bytes) else rel.encode()
        with open(os.path.join(os.fsencode(m), name), "wb") as f:
            f.write(content)
    return breaker


def _both(*breakers: Breaker) -> Breaker:
    def breaker(m: Path, tmp: Path) -> None:
        for b in breakers:
            b(m, tmp)
    return breaker


@dataclass(frozen=True)
class Case:
    id: str
    breaker: Breaker
    code: int = 1
    error: str | None = None  # the one line on stderr ({m}: the checkout copy, {tmp}: the temporary folder)
    skipped: dict[str, str] = field(default_factory=dict)  # for a build that goes on: its files rows that are not ok
    # (besides the fixture's own Python file that does not parse, listed in every index of it)
    args: tuple[str, ...] = ()
    checkout: Callable[[Path, Path], Path] | None = None  # the path given to tg-index (default: the copy)


def _nf_error(line: int, text: str) -> str:
    return f"error: {NF}:{line}: {text}"


YAML_CASES = [
    # anchors and aliases: refused where they are met, before anything expands them
    Case("alias-bomb", _replace(NF, "  device_check: NoCheck\n", "  device_check: NoCheck\n  l0: &l0 [lol]\n" + BOMB),
         error=_nf_error(4, "a YAML anchor (&l0); PyTorch's YAML files use none")),
    Case("alias-alone", _append(NF, "- *entry\n"), error=_nf_error(52, "a YAML alias (*entry); PyTorch's YAML files use none, write the value out")),
    Case("anchor-in-derivatives", _replace(DERIV, "- name: relu", "- &r name: relu"),
         error=f"error: {DERIV}:7: a YAML anchor (&r); PyTorch's YAML files use none"),
    Case("anchor-in-tags", _replace(TAGS, "- tag: core", "- tag: &c core"),
         error=f"error: {TAGS}:5: a YAML anchor (&c); PyTorch's YAML files use none"),
    # keys and values that the dispatch rules cannot take
    Case("empty-dispatch-key", _replace(NF, "    MPS: add_out_mps\n", "    '': add_out_mps\n"),
         error=_nf_error(24, "empty dispatch key in ''")),
    Case("comma-only-dispatch-key", _replace(NF, "    MPS: add_out_mps\n", "    ', ,': add_out_mps\n"),
         error=_nf_error(24, "empty dispatch key in ', ,'")),
    Case("dispatch-without-kernel", _replace(NF, "    MPS: add_out_mps\n", "    MPS: 'ns::'\n"),
         error=_nf_error(24, "dispatch 'MPS' names no kernel")),
    Case("structured-delegate-itself", _replace(NF, "  structured_delegate: add.out\n  variants: function, method",
                                                "  structured_delegate: add.Tensor\n  variants: function, method"),
         error=_nf_error(4, "structured_delegate 'add.Tensor' names the op itself; it must name the structured out= op")),
    Case("structured-delegate-unknown", _replace(NF, "  structured_delegate: add.out\n  variants: function, method",
                                                 "  structured_delegate: add.outt\n  variants: function, method"),
         error=_nf_error(2, "structured_delegate 'add.outt' is not an op of this file")),
    # bytes that are not YAML text
    Case("not-utf8", _bytes(NF, lambda b: b.replace(b"add_out_mps", b"add_out_\xe9mps", 1)),
         error=_nf_error(24, "bytes that are not UTF-8 (0xe9 at column 18)")),
    Case("nul-byte", _bytes(NF, lambda b: b.replace(b"relu(Tensor", b"relu\x00(Tensor", 1)),
         error=_nf_error(27, "a NUL byte at column 13; YAML text cannot hold it")),
    Case("control-character", _bytes(NF, lambda b: b.replace(b"relu(Tensor", b"relu\x07(Tensor", 1)),
         error=_nf_error(27, "the control character U+0007 at column 13; YAML text cannot hold it")),
    Case("utf16", _bytes(NF, lambda b: b.decode().encode("utf-16")),
         error=_nf_error(1, "the file is UTF-16 (little-endian), not UTF-8; save it as UTF-8")),
    Case("utf16-no-mark", _bytes(NF, lambda b: b.decode().encode("utf-16-be")),
         error=_nf_error(1, "the file is UTF-16 (big-endian), not UTF-8; save it as UTF-8")),
    Case("nul-in-derivatives", _bytes(DERIV, lambda b: b.replace(b"grad", b"gr\x00ad", 1)),
         error=f"error: {DERIV}:3: a NUL byte at column 45; YAML text cannot hold it"),
    Case("not-utf8-in-tags", _bytes(TAGS, lambda b: b.replace(b"elementwise", b"element\xffwise", 1)),
         error=f"error: {TAGS}:4: bytes that are not UTF-8 (0xff at column 15)"),
    # entries that are not mappings: reported at their own line
    Case("scalar-entry", _replace(NF, "- func: relu(", "- just a string\n\n- func: relu("),
         error=_nf_error(27, "an entry must be a mapping with a 'func' key, not str ('just a string')")),
    Case("scalar-entry-in-derivatives", _replace(DERIV, "- name: relu", "- just a string\n- name: relu"),
         error=f"error: {DERIV}:7: an entry needs a 'name' schema string"),
    Case("scalar-entry-in-tags", _replace(TAGS, "- tag: core", "- core\n- tag: core"),
         error=f"error: {TAGS}:5: a tags.yaml entry needs a 'tag' string"),
    # truncated files, at several points
    Case("truncated-in-flow-list", _cut(NF, "tags: [core, "),
         error=_nf_error(8, "malformed YAML: did not find expected node content")),
    Case("truncated-in-schema", _cut(NF, "- func: relu(Tensor self"),
         error=_nf_error(27, "not a function schema: 'relu(Tensor self'")),
    Case("truncated-in-key", _cut(NF, "  ufunc_inner_l"),
         error=_nf_error(19, "malformed YAML: could not find expected ':'")),
    Case("truncated-in-quoted", _text(NF, lambda t: t + "\n- func: \"sub(Tensor self) -> Ten"),
         error=_nf_error(52, "malformed YAML: found unexpected end of stream")),
    Case("truncated-derivatives", _cut(DERIV, "  output_differentiability: [Tr"),
         error=f"error: {DERIV}:17: malformed YAML: did not find expected ',' or ']'"),
    # YAML that is well-formed but not the files' shape
    Case("tab-indent", _replace(NF, "  variants: method\n", "\tvariants: method\n"),
         error=_nf_error(12, "malformed YAML: found a tab character that violates indentation")),
    Case("unknown-key", _replace(NF, "  ufunc_inner_loop:", "  ufunc_inner_lop:"),
         error=_nf_error(19, "unknown key 'ufunc_inner_lop'")),
    Case("duplicate-func", _append(NF, "- func: relu(Tensor self) -> Tensor\n"),
         error=_nf_error(52, "duplicate op 'relu' (first at line 27)")),
    Case("duplicate-key", _replace(NF, "  variants: method\n", "  variants: method\n  variants: function\n"),
         error=_nf_error(13, "duplicate key 'variants'")),
    Case("schema-without-arrow", _replace(NF, "relu(Tensor self) -> Tensor", "relu(Tensor self) Tensor"),
         error=_nf_error(27, "not a function schema: 'relu(Tensor self) Tensor'")),
    Case("schema-without-name", _replace(NF, "relu(Tensor self) -> Tensor", "(Tensor self) -> Tensor"),
         error=_nf_error(27, "not a function schema: '(Tensor self) -> Tensor'")),
    Case("schema-not-a-string", _replace(NF, "- func: relu(Tensor self) -> Tensor", "- func: [relu]"),
         error=_nf_error(27, "entry has no 'func' string")),
    Case("bad-derivative-schema", _replace(DERIV, "- name: relu(Tensor self) -> Tensor", "- name: relu(Tensor self"),
         error=f"error: {DERIV}:7: not a function schema: 'relu(Tensor self -> ()'"),
    Case("tags-unknown-key", _replace(TAGS, "  desc: Part of", "  dsc: Part of"),
         error=f"error: {TAGS}:6: unknown key 'dsc'"),
    Case("yaml-tag", _replace(NF, "  variants: method\n", "  variants: !!python/name:os.system method\n"),
         error=_nf_error(12, "the YAML tag 'tag:yaml.org,2002:python/name:os.system' is not plain data")),
    Case("two-documents", _append(NF, "---\n- func: zzz(Tensor self) -> Tensor\n"),
         error=_nf_error(52, "a second YAML document (`---`); the file must hold one")),
    Case("nested-too-deep", _append(NF, "- func: zzz(Tensor self) -> Tensor\n  tags: " + "[" * 80 + "]" * 80 + "\n"),
         error=_nf_error(53, "nested more than 64 levels deep")),
    Case("mapping-as-key", _append(NF, "- {func: zzz(Tensor self) -> Tensor, [CPU]: k}\n"),
         error=_nf_error(52, "a mapping key must be a plain value, not a list or a mapping")),
    Case("empty-native-functions", _text(NF, lambda t: ""),
         error=_nf_error(1, "the file has no entries; expected a list of entries")),
    Case("empty-derivatives", _text(DERIV, lambda t: "# nothing\n"),
         error=f"error: {DERIV}:1: the file has no entries; expected a list of entries"),
    Case("empty-tags", _text(TAGS, lambda t: ""), code=0),
    Case("missing-derivatives", _remove(DERIV), code=0),
    Case("missing-tags", _remove(TAGS), code=0),
]

YAML_FILE_CASES = [
    Case("unreadable-native-functions", _chmod(NF, 0), error=f"error: cannot read {NF}: unreadable (Permission denied)"),
    Case("unreadable-derivatives", _chmod(DERIV, 0), error=f"error: cannot read {DERIV}: unreadable (Permission denied)"),
    Case("unreadable-tags", _chmod(TAGS, 0), error=f"error: cannot read {TAGS}: unreadable (Permission denied)"),
    Case("fifo-native-functions", _fifo(NF), error=f"error: cannot read {NF}: a fifo, not a regular file"),
    Case("directory-derivatives", _both(_remove(DERIV), _mkdir(DERIV)),
         error=f"error: cannot read {DERIV}: a directory, not a regular file"),
    Case("loop-tags", _symlink(TAGS, "tags.yaml"), error=f"error: cannot read {TAGS}: a symlink loop, not a regular file"),
    Case("native-functions-out", _outside(NF, "- func: evil(Tensor self) -> Tensor\n"),
         error=f"error: {NF} is a symlink that leads out of the checkout; refusing to read it"),
    Case("derivatives-out", _outside(DERIV, "- name: relu(Tensor self) -> Tensor\n  self: grad\n"),
         error=f"error: {DERIV} is a symlink that leads out of the checkout; refusing to read it"),
    Case("native-functions-too-large", lambda m, t: None, args=("--max-file-size", "1000"),
         error=f"error: cannot read {NF}: too large (1482 bytes; --max-file-size is 1000)"),
    Case("missing-native-functions", _remove(NF),
         error=f"error: {{m}} is not a PyTorch checkout: {NF} is missing"),
]

# Files the build passes over: it goes on, and lists each with its status.
SOURCE_CASES = [
    Case("fifo-source", _fifo(f"{NATIVE}/x.cpp"), code=0, skipped={f"{NATIVE}/x.cpp": "skipped: fifo"}),
    Case("device-source", _device(f"{NATIVE}/zero.cpp"), code=0, skipped={f"{NATIVE}/zero.cpp": "skipped: device"}),
    Case("socket-source", _socket(f"{NATIVE}/s.cu"), code=0, skipped={f"{NATIVE}/s.cu": "skipped: socket"}),
    Case("symlink-loop", _both(_symlink(f"{NATIVE}/a.cpp", "b.cpp"), _symlink(f"{NATIVE}/b.cpp", "a.cpp")), code=0,
         skipped={f"{NATIVE}/a.cpp": "skipped: symlink loop", f"{NATIVE}/b.cpp": "skipped: symlink loop"}),
    Case("broken-symlink", _symlink(f"{NATIVE}/gone.h", "nowhere.h"), code=0,
         skipped={f"{NATIVE}/gone.h": "skipped: broken symlink"}),
    Case("symlink-out", _outside(f"{NATIVE}/evil.cpp"), code=0,
         skipped={f"{NATIVE}/evil.cpp": "skipped: symlink leads out of the checkout"}),
    Case("symlink-out-to-device", _symlink(f"{NATIVE}/null.cpp", "/dev/null"), code=0,
         skipped={f"{NATIVE}/null.cpp": "skipped: symlink leads out of the checkout"}),
    Case("symlinked-directory", _symlink(f"{NATIVE}/linked", "cpu"), code=0,
         skipped={f"{NATIVE}/linked": "skipped: symlinked directory"}),
    Case("symlinked-directory-out", _symlink(f"{NATIVE}/etc", "/etc"), code=0,
         skipped={f"{NATIVE}/etc": "skipped: symlinked directory"}),
    Case("unreadable-directory", _mkdir(f"{NATIVE}/locked", "a.cpp", mode=0), code=0,
         skipped={f"{NATIVE}/locked": "skipped: unreadable directory (Permission denied)"}),
    Case("unreadable-source", _chmod(f"{NATIVE}/BinaryOps.cpp", 0), code=0,
         skipped={f"{NATIVE}/BinaryOps.cpp": "skipped: unreadable (Permission denied)"}),
    Case("undecodable-file-name", _file(f"{NATIVE}/bad\xff.cpp".encode("latin-1"), b"void f() {}\n"), code=0,
         skipped={f"{NATIVE}/bad\\xff.cpp": "skipped: name is not UTF-8"}),
    Case("undecodable-folder-name", _mkdir(os.fsdecode(f"{NATIVE}/dir\xfe".encode("latin-1")), "a.cpp"), code=0,
         skipped={f"{NATIVE}/dir\\xfe": "skipped: name is not UTF-8"}),
    Case("too-large-source", _file(f"{NATIVE}/big.cpp", b"// x\n" * 400), code=0, args=("--max-file-size", "1500"),
         skipped={f"{NATIVE}/big.cpp": "skipped: too large (2000 bytes; --max-file-size is 1500)"}),
    Case("python-symlink-out", _outside(f"{MODULES}/evil.py", "import os\n"), code=0,
         skipped={f"{MODULES}/evil.py": "skipped: symlink leads out of the checkout"}),
    Case("python-fifo", _fifo(f"{MODULES}/pipe.py"), code=0,
         skipped={f"{MODULES}/pipe.py": "skipped: fifo"}),
    Case("python-symlinked-directory", _symlink(f"{MODULES}/linked", "."), code=0,
         skipped={f"{MODULES}/linked": "skipped: symlinked directory"}),
    Case("python-unreadable", _chmod("torch/functional.py", 0), code=0,
         skipped={"torch/functional.py": "skipped: unreadable (Permission denied)"}),
    # files that are read as they are
    Case("directory-named-cpp", _mkdir(f"{NATIVE}/folder.cpp", "inner.cpp"), code=0),
    Case("names-with-spaces-and-unicode", _file(f"{NATIVE}/with space ü.cpp", b"void f() {}\n"), code=0),
    Case("nul-bytes-in-source", _file(f"{NATIVE}/nul.cpp", b"void f() {\x00}\n"), code=0),
    Case("empty-source", _file(f"{NATIVE}/empty.h", b""), code=0),
    Case("long-file-name", _file(f"{NATIVE}/{'n' * 250}.cpp", b"void f() {}\n"), code=0),
]

CHECKOUT_CASES = [
    Case("checkout-is-a-file", _file("../plain", b"x"), checkout=lambda m, tmp: tmp / "plain",
         error="error: {tmp}/plain is not a directory; pass the root of a PyTorch checkout"),
    Case("no-checkout", lambda m, t: None, checkout=lambda m, tmp: tmp / "nowhere",
         error="error: no checkout at {tmp}/nowhere; clone PyTorch there (see README) or pass its path"),
    Case("checkout-path-not-utf8", lambda m, tmp: os.rename(m, os.path.join(os.fsencode(tmp), b"m\xff")),
         checkout=lambda m, tmp: Path(os.fsdecode(os.path.join(os.fsencode(tmp), b"m\xff"))),
         error="error: the checkout path {tmp}/m\\xff is not UTF-8; rename or move the checkout"),
]


ALL_CASES = YAML_CASES + YAML_FILE_CASES + CHECKOUT_CASES + SOURCE_CASES


@dataclass(frozen=True)
class Outcome:
    tmp: Path
    m: Path
    db: Path
    got: subprocess.CompletedProcess[str]
    before: dict[str, tuple]
    after: dict[str, tuple]


def _run_case(case: Case, tmp: Path) -> Outcome:
    m = tmp / "m"
    shutil.copytree(MINI, m)
    case.breaker(m, tmp)
    checkout = case.checkout(m, tmp) if case.checkout else m
    db = tmp / "ix.db"
    before = _listing(tmp)
    got = _cli(tmp, "tg-index", str(checkout), "--db", str(db), "--quiet", "--jobs", "1", *case.args)
    return Outcome(tmp, m, db, got, before, _listing(tmp))


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """The cases this session selected, run a few at a time (each builds in a folder of its own)."""
    wanted = {item.callspec.params["case"].id for item in request.session.items
              if item.module is request.module and "case" in getattr(getattr(item, "callspec", None), "params", {})}
    base = tmp_path_factory.mktemp("malformed")
    cases = [c for c in ALL_CASES if c.id in wanted]
    for case in cases:
        (base / case.id).mkdir()
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip([c.id for c in cases], pool.map(lambda c: _run_case(c, base / c.id), cases)))


def _check(case: Case, outcome: Outcome) -> None:
    got, after = outcome.got, dict(outcome.after)
    assert "Traceback" not in got.stderr
    assert got.returncode == case.code, got.stderr
    if case.code == 0:
        assert got.stderr == ""
        assert got.stdout.startswith("indexed ") and got.stdout.endswith(f" -> {outcome.db}\n")
        with sqlite3.connect(f"file:{outcome.db}?mode=ro", uri=True) as conn:
            rows = dict(conn.execute("SELECT path, status FROM files WHERE status != 'ok'"))
        assert rows == case.skipped | FIXTURE_ERRORS
        assert set(after) - set(outcome.before) == {"ix.db"}
        del after["ix.db"]
    else:
        assert got.stderr == case.error.format(m=outcome.m, tmp=outcome.tmp) + "\n"  # type: ignore[union-attr]
        assert got.stdout == ""
    assert after == outcome.before  # nothing written in the checkout, the cache or anywhere else


@pytest.mark.parametrize("case", YAML_CASES + YAML_FILE_CASES + CHECKOUT_CASES, ids=lambda c: c.id)
def test_bad_yaml_and_checkouts_are_one_line(case: Case, outcomes: dict[str, Outcome]):
    _check(case, outcomes[case.id])


@pytest.mark.parametrize("case", SOURCE_CASES, ids=lambda c: c.id)
def test_files_passed_over_are_listed(case: Case, outcomes: dict[str, Outcome]):
    _check(case, outcomes[case.id])


def test_the_commands_cannot_read_what_modes_forbid(tmp_path: Path):
    """The unreadable cases test something: the children cannot read a mode-000 file, even as root."""
    secret = tmp_path / "secret"
    secret.write_text("x")
    secret.chmod(0)
    got = subprocess.run(["cat", str(secret)], capture_output=True, text=True, preexec_fn=_drop_override)
    assert (got.returncode, got.stdout) == (1, "")


SQL_OP = "o'; DROP TABLE ops; --.x"
LONG_OP = "l" * 20_000


@pytest.fixture(scope="module")
def odd_names(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fixture copy with two more ops: SQL metacharacters in one name, 20,000 characters in another."""
    tmp = tmp_path_factory.mktemp("odd")
    m = tmp / "m"
    shutil.copytree(MINI, m)
    _append(NF, f'- func: "{SQL_OP}(Tensor self) -> Tensor"\n\n- func: {LONG_OP}(Tensor self) -> Tensor\n')(m, tmp)
    got = _cli(tmp, "tg-index", str(m), "--db", str(tmp / "ix.db"), "--quiet", "--jobs", "1")
    assert (got.returncode, got.stderr) == (0, "")
    return tmp


@pytest.mark.parametrize("name, line", [(SQL_OP, 52), (LONG_OP, 54)], ids=["sql-metacharacters", "very-long-name"])
def test_odd_op_names_are_only_data(odd_names: Path, name: str, line: int):
    before = _listing(odd_names)
    db = str(odd_names / "ix.db")
    op = _cli(odd_names, "tg-query", "--db", db, "op", name, "--json")
    kernels = _cli(odd_names, "tg-query", "--db", db, "kernels-for", name, "--json")
    for got in (op, kernels):
        assert (got.returncode, got.stderr) == (0, "")
    assert (json.loads(op.stdout)["name"], json.loads(op.stdout)["location"]) == (name, {"file": NF, "line": line})
    [key] = json.loads(kernels.stdout)["keys"]
    assert (key["key"], key["kernel"], key["origin"]) == ("CompositeImplicitAutograd", name.partition(".")[0], "composite_implicit")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT count(*) FROM ops").fetchone() == (12,)
    assert _listing(odd_names) == before
