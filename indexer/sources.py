"""Get real PyTorch sources to index: a git clone, Debian's source package, or the wheel's YAML.

    python -m tg_index.indexer.sources checkout DEST   # DEST absent: git clone v2.6.0, else Debian's 2.6.0
    python -m tg_index.indexer.sources debian 2.6.0 DEST
    python -m tg_index.indexer.sources wheel 2.13.0 DEST

Debian's source packages carry the whole tree (2.6.0 in trixie, 1.13.1 in
bookworm). The deb-src entry is made from the machine's own apt sources, so no
archive host is written anywhere in this project. Each tree is unpacked next to
DEST and renamed into place, so an interrupted fetch leaves nothing half-made.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

DEBIAN = {"2.6.0": ("2.6.0+dfsg-7", "trixie"), "1.13.1": ("1.13.1+dfsg-4", "bookworm")}
GIT_URL = "https://github.com/pytorch/pytorch.git"
SRC_LIST = Path("/etc/apt/sources.list.d/tg-index-src.sources")
WHEEL_FILES = {
    "torchgen/packaged/ATen/native/native_functions.yaml": "aten/src/ATen/native/native_functions.yaml",
    "torchgen/packaged/ATen/native/tags.yaml": "aten/src/ATen/native/tags.yaml",
    "torchgen/packaged/autograd/derivatives.yaml": "tools/autograd/derivatives.yaml",
}


USAGE = """usage: python -m tg_index.indexer.sources checkout DEST
       python -m tg_index.indexer.sources debian {2.6.0,1.13.1} DEST
       python -m tg_index.indexer.sources wheel VERSION DEST"""


class FetchError(Exception):
    pass


def _say(message: str) -> None:
    print(f"sources: {message}", file=sys.stderr, flush=True)


def _debian_uri() -> str:
    """The Debian archive URI this machine's apt already uses."""
    texts = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")) + ["/etc/apt/sources.list"]:
        if Path(path).is_file() and Path(path) != SRC_LIST:
            texts.append(Path(path).read_text(errors="replace"))
    for text in texts:
        for uri in re.findall(r"^URIs:\s*(\S+)", text, re.M) + re.findall(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", text, re.M):
            if re.search(r"/debian/?$", uri):
                return uri
    raise FetchError("no Debian archive in this machine's apt sources; cannot add a deb-src entry")


def _ensure_deb_src(suite: str) -> None:
    uri = _debian_uri()
    wanted = {"bookworm", "trixie", suite}
    if SRC_LIST.is_file() and all(s in SRC_LIST.read_text() for s in wanted) and uri in SRC_LIST.read_text():
        return
    SRC_LIST.write_text(
        "Types: deb-src\n"
        f"URIs: {uri}\n"
        f"Suites: {' '.join(sorted(wanted))}\n"
        "Components: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
    )
    _say("apt-get update (deb-src entry added)")
    subprocess.run(["apt-get", "update", "-qq"], check=True)


def _unpack(tarball: Path, dest: Path) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        subprocess.run(["tar", "-xJf", str(tarball), "-C", str(tmp), "--strip-components=1"], check=True)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def debian(version: str, dest: Path) -> None:
    """PyTorch `version` from Debian's source package into dest (skipped when dest exists)."""
    if (dest / "aten/src/ATen/native/native_functions.yaml").is_file():
        _say(f"{dest} already there")
        return
    if version not in DEBIAN:
        raise FetchError(f"no Debian source package known for PyTorch {version} (known: {', '.join(DEBIAN)})")
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        raise FetchError("Debian's source package needs apt-get as root; clone PyTorch instead")
    package, suite = DEBIAN[version]
    _ensure_deb_src(suite)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent) as work:
        _say(f"apt-get source pytorch={package}")
        # Only the upstream tarball is needed; the Debian patch tarball may be gone from the archive.
        subprocess.run(["apt-get", "source", "--download-only", "-qq", f"pytorch={package}"], cwd=work, check=False)
        tarballs = glob.glob(os.path.join(work, f"pytorch_{version}*.orig.tar.*"))
        if not tarballs:
            raise FetchError(f"apt-get source pytorch={package} gave no upstream tarball")
        _unpack(Path(tarballs[0]), dest)
    _say(f"PyTorch {version} unpacked at {dest}")


def wheel(version: str, dest: Path) -> None:
    """The YAML files and torchgen of the torch `version` wheel, laid out like a checkout."""
    if (dest / "aten/src/ATen/native/native_functions.yaml").is_file():
        _say(f"{dest} already there")
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent) as work:
        _say(f"pip download torch=={version}")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", work, f"torch=={version}"],
                       check=True)
        found = glob.glob(os.path.join(work, "torch-*.whl"))
        if not found:
            raise FetchError(f"pip download torch=={version} gave no wheel")
        tree = Path(work) / "tree"
        with zipfile.ZipFile(found[0]) as whl:
            for name in whl.namelist():
                if name.startswith("torchgen/"):
                    target = tree / WHEEL_FILES.get(name, name)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(whl.read(name))
        (tree / "version.txt").write_text(f"{version}\n")
        os.replace(tree, dest)
    _say(f"torch {version} YAML files at {dest}")


def checkout(dest: Path, tag: str = "v2.6.0") -> None:
    """The default checkout: a git clone of `tag` when the internet is reachable, else Debian's 2.6.0."""
    if (dest / "aten/src/ATen/native/native_functions.yaml").is_file():
        _say(f"checkout at {dest}")
        return
    if dest.exists() and any(dest.iterdir()):
        raise FetchError(f"{dest} exists but is not a PyTorch checkout; move it away or pass another path")
    if shutil.which("git"):
        probe = subprocess.run(["git", "ls-remote", "--tags", GIT_URL, tag], capture_output=True, timeout=60,
                               check=False)
        if probe.returncode == 0 and probe.stdout:
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.parent / f".{dest.name}.clone"
            shutil.rmtree(tmp, ignore_errors=True)
            _say(f"git clone --depth 1 --branch {tag}")
            subprocess.run(["git", "clone", "--depth", "1", "--branch", tag, GIT_URL, str(tmp)], check=True)
            os.replace(tmp, dest)
            return
    _say("git remote not reachable; using Debian's source package of PyTorch 2.6.0")
    if dest.exists():
        dest.rmdir()
    debian("2.6.0", dest)


def main(argv: list[str]) -> int:
    try:
        match argv:
            case ["checkout", dest]:
                checkout(Path(dest).expanduser())
            case ["debian", version, dest]:
                debian(version, Path(dest).expanduser())
            case ["wheel", version, dest]:
                wheel(version, Path(dest).expanduser())
            case _:
                print(USAGE, file=sys.stderr)
                return 2
    except (FetchError, subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
