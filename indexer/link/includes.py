"""The include graph: each `#include` to the checkout file it names, and what a file sees through
its include chain (transitively), computed on demand.

An include is looked up the way the build's include path finds it: relative to the including
file's folder first, then as a path ending in the written one (`ATen/native/Foo.h` is
aten/src/ATen/native/Foo.h). A written path that several files end in goes to the one nearest
the includer (longest common folder prefix); one that no file ends in is outside the checkout
(system and vendor headers) and has no edge, except a header torchgen generates from a template of
the checkout (aten/src/ATen/templates, as torchgen/gen.py writes them): its includes are the template's
(ATen/core/TensorBody.h -> templates/TensorBody.h, ATen/Functions.h -> templates/Functions.h;
ATen/CPUFunctions.h -> DispatchKeyFunctions.h, ATen/CPUFunctions_inl.h -> DispatchKeyFunctions_inl.h;
per op ATen/ops/add.h -> Function.h, add_ops.h -> Operator.h, add_native.h -> NativeFunction.h,
add_meta.h -> NativeMetaFunction.h, add_cpu_dispatch.h -> DispatchKeyFunction.h). The lines a template
writes through `${...}` are not read: a generated header reaches what its template includes.

A system include (`<...>`) of a header the toolchain provides, written without a folder (`<math.h>`, `<cuda.h>`,
`<nccl.h>`), is the toolchain's, outside the checkout: the build puts no folder of the checkout that holds a
header of that name (qnnpack's src/qnnpack/math.h, torch/csrc/api/include/torch/cuda.h) first on the include
path, and a compiler would find the C library's, CUDA's or NCCL's.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable


# The headers of the C library, POSIX, the compilers' intrinsics and unwinder, and the CUDA toolkit and NCCL, as
# they are included: by name alone, between angle brackets.
TOOLCHAIN_HEADERS = frozenset("""assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h
math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h stdlib.h stdnoreturn.h
string.h tgmath.h threads.h time.h uchar.h wchar.h wctype.h unistd.h fcntl.h dlfcn.h pthread.h sched.h dirent.h
poll.h pwd.h semaphore.h strings.h syslog.h termios.h execinfo.h cxxabi.h malloc.h alloca.h link.h elf.h unwind.h
libunwind.h immintrin.h x86intrin.h xmmintrin.h emmintrin.h pmmintrin.h tmmintrin.h smmintrin.h nmmintrin.h
cpuid.h intrin.h arm_neon.h arm_sve.h arm_bf16.h arm_fp16.h altivec.h vecintrin.h windows.h io.h process.h
cuda.h cuda_runtime.h cuda_runtime_api.h cuda_fp16.h cuda_bf16.h cuda_fp8.h cuda_fp16.hpp cuda_bf16.hpp
cuda_profiler_api.h cuda_awbarrier.h cuda_pipeline.h cuda_occupancy.h device_functions.h driver_types.h
vector_types.h library_types.h mma.h cooperative_groups.h nvrtc.h nvToolsExt.h nvml.h nccl.h cublas.h cublas_v2.h
cublasLt.h cusparse.h cusparseLt.h cusolverDn.h cusolverSp.h cufft.h cufftXt.h curand.h curand_kernel.h
curand_philox4x32_x.h cudnn.h cupti.h omp.h mpi.h""".split())


_UNKNOWN = object()  # not looked up yet (None: found outside the checkout)
MAX_INCLUSION_GUARDS = 8  # a header included under more distinct guards than this is taken as always compiled


class IncludeGraph:
    def __init__(self, files: Iterable[str], includes: Iterable[tuple]):
        """`includes`: (file, target as written[, whether it is a system include[, its #if guard]]) rows."""
        self._by_name: dict[str, list[str]] = {}  # a file's name -> the paths ending in it, in the order given
        paths = list(files)
        known = set(paths)
        for path in paths:
            self._by_name.setdefault(path.rpartition("/")[2], []).append(path)
        self.direct: dict[str, list[str]] = {}
        self._found: dict[tuple[str, str], str | None] = {}  # (folder, target) -> _find's answer, where the name's
        # characters play no part (a path found beside the includer, or the one path ending so)
        self._endings: dict[str, list[str]] = {}  # a written path -> the paths ending in it (_ending), as looked up
        self.included_under: dict[str, list[str | None]] = {}  # a file -> the guard of each #include naming it
        direct, under, memo = self.direct, self.included_under, self._found
        folders: dict[str, str] = {}
        for row in includes:
            file, target = row[0], row[1]
            if len(row) > 2 and row[2] and target in TOOLCHAIN_HEADERS:
                continue
            folder = folders.get(file)
            if folder is None:
                folder = folders[file] = file.rpartition("/")[0]  # (posixpath.dirname of a relative path)
            found = memo.get((folder, target), _UNKNOWN)
            if found is _UNKNOWN:
                found = self._find(file, folder, target, known)
            if found is not None:
                got = direct.get(file)
                if got is None:
                    direct[file] = [found]
                else:
                    got.append(found)
                if found != file:
                    under.setdefault(found, []).append(row[3] if len(row) > 3 else None)
        self._closure: dict[str, frozenset[str]] = {}
        self._inclusion: dict[str, str] | None = None

    def inclusion_guards(self) -> dict[str, str]:
        """The files that every #include naming them writes under an #if, each with the condition that compiles
        it: the guards of its #includes, sorted, joined with ` || ` (each in parentheses when there are several).
        1.13.1 native/cuda/Loops.cuh:77-81 includes CUDALoops.cuh under `#if !defined(USE_ROCM)` and ROCmLoops.cuh
        in its #else, and no other file includes either: CUDALoops.cuh's gpu_kernel_impl is compiled only where
        USE_ROCM is not defined, ROCmLoops.cuh's only where it is. One level: a header included, unguarded, only
        by such a file keeps no condition; nor does one included under more than MAX_INCLUSION_GUARDS guards."""
        if self._inclusion is not None:
            return self._inclusion
        out = self._inclusion = {}
        for file, guards in self.included_under.items():
            if None in guards:
                continue
            distinct = sorted(set(guards))  # by text: the rows' order is the order the build extracted the files
            if len(distinct) == 1:
                out[file] = distinct[0]
            elif len(distinct) <= MAX_INCLUSION_GUARDS:
                out[file] = " || ".join(f"({g})" for g in distinct)
        return out

    def _find(self, file: str, folder: str, target: str, known: set[str]) -> str | None:
        """The file an #include of `target` in `file` (in `folder`) names, or None; kept in _found where only
        the folder decides."""
        if target.rpartition("/")[2] in self._by_name:  # else no checkout file, beside it or not, has the name
            local = posixpath.normpath(posixpath.join(folder, target))
            if local in known:
                self._found[(folder, target)] = local
                return local
        written = target.lstrip("./")
        found = self._ending(written)
        if not found:
            template = generated_template(written)
            found = self._ending(f"ATen/templates/{template}") if template is not None else found
        if len(found) > 1:  # the nearest to the includer, by the characters of its whole path
            return max(found, key=lambda p: (len(posixpath.commonprefix([p, file])), -len(p)))
        got = found[0] if found else None
        self._found[(folder, target)] = got
        return got

    def _ending(self, written: str) -> list[str]:
        """The paths that are `written` or end in `/written`, in the order given."""
        got = self._endings.get(written)
        if got is None:
            got = self._endings[written] = [
                p for p in self._by_name.get(written.rpartition("/")[2], ())
                if p == written or (p.endswith(written) and p[-len(written) - 1] == "/")]
        return got

    def closure(self, file: str) -> frozenset[str]:
        """Every checkout file `file` includes, directly or through others."""
        got = self._closure.get(file)
        if got is None:
            seen: set[str] = set()
            todo = list(self.direct.get(file, ()))
            while todo:
                f = todo.pop()
                if f in seen:
                    continue
                seen.add(f)
                done = self._closure.get(f)
                if done is not None:
                    seen |= done
                    continue
                todo.extend(self.direct.get(f, ()))
            got = self._closure[file] = frozenset(seen)
        return got


_PER_OP = (("_native.h", "NativeFunction.h"), ("_ops.h", "Operator.h"), ("_meta.h", "NativeMetaFunction.h"),
           ("_dispatch.h", "DispatchKeyFunction.h"))
_NOT_PER_KEY = frozenset(("Functions.h", "NativeFunctions.h", "NativeMetaFunctions.h", "RedispatchFunctions.h",
                          "DispatchKeyFunctions.h"))


def generated_template(target: str) -> str | None:
    """The template torchgen writes an ATen header from (torchgen/gen.py's write_with_template and write
    calls), by the header's name as included; None for a name under no generated folder."""
    if target.startswith("ATen/ops/"):
        name = target[len("ATen/ops/"):]
        return next((template for suffix, template in _PER_OP if name.endswith(suffix)), "Function.h")
    if not target.startswith("ATen/") or target.count("/") > 2 or \
            (target.count("/") == 2 and not target.startswith("ATen/core/")):
        return None
    name = target.rsplit("/", 1)[-1]
    if name.endswith("Functions_inl.h"):
        return "DispatchKeyFunctions_inl.h"
    if name.endswith("Functions.h") and name not in _NOT_PER_KEY:
        return "DispatchKeyFunctions.h"  # CPUFunctions.h, CompositeExplicitAutogradFunctions.h
    return name
