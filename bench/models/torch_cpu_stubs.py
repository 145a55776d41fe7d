"""Lets PyPI's Linux torch wheel run on the CPU without its multi-GB CUDA packages.

PyPI's x86-64 torch is the CUDA build: its libraries link against libcudart, libcublas, libcudnn
and a dozen more, which come as nvidia-* packages of several GB. The benchmarks need only the CPU
kernels (libtorch_cpu), so the bench venv installs torch with --no-deps, and this script writes
stand-ins for the CUDA libraries: one small shared library per missing soname, defining every
symbol torch's libraries import from it (functions that return 0; data as zeroed bytes) under
the version names torch asks for. No CUDA function is ever called for real: the models run on
device "cpu", and cudaGetDeviceCount answers "no device", so torch.cuda.is_available() is False.

Usage: torch_cpu_stubs.py TORCH_LIB_DIR OUT_DIR   (then LD_LIBRARY_PATH=OUT_DIR python ...)
"""

import collections
import os
import re
import subprocess
import sys

lib_dir, out_dir = sys.argv[1:3]
os.makedirs(out_dir, exist_ok=True)

# Sonames missing for each torch library, and the symbols it imports (kind, name, version).
missing = set()
imports = set()
for f in sorted(os.listdir(lib_dir)):
    if not f.endswith(".so"):
        continue
    path = os.path.join(lib_dir, f)
    ldd = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    missing |= set(re.findall(r"^\s*(\S+) => not found", ldd, re.M))
    syms = subprocess.run(["readelf", "--dyn-syms", "-W", path], capture_output=True, text=True).stdout
    for line in syms.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[6] == "UND":
            name, _, version = cols[7].partition("@")
            imports.add((cols[3], name, re.sub(r"\s*\(\d+\)$", "", version)))

# Which stand-in defines a symbol: by its version name (the soname itself, for CUDA's libraries),
# or for unversioned ones by prefix.
prefixes = {"nccl": "libnccl", "cusparseLt": "libcusparseLt", "cuFile": "libcufile", "nvshmem": "libnvshmem_host"}
versions = {"NVSHMEM": "libnvshmem_host"}


def owner(name, version):
    stem = versions.get(version, version.split(".so")[0] if ".so" in version else None)
    if stem is None:
        m = re.match(r"^(nccl|cusparseLt|cuFile|nvshmem|cu[A-Z])", name)
        if not m:
            return None
        stem = prefixes.get(m.group(1), "libcudart")
    return next((s for s in missing if s.split(".so")[0] == stem), None)


defs = collections.defaultdict(dict)
version_of = {}
for kind, name, version in sorted(imports):
    so = owner(name, version)
    if so is None:
        continue
    defs[so][name] = kind
    if version:
        version_of[so] = version

# The calls torch makes while it starts, answered as a machine without a GPU would.
special = {
    "cudaGetDeviceCount": "int cudaGetDeviceCount(int *n) { if (n) *n = 0; return 100; }\n",
    "cudaDriverGetVersion": "int cudaDriverGetVersion(int *v) { if (v) *v = 0; return 35; }\n",
}
for so in sorted(missing):
    base = os.path.join(out_dir, so.replace(".", "_"))
    body = [f"/* a stand-in for {so}: torch runs on the CPU only */\nint evenhand_stub_{so.split('.')[0]}(void) {{ return 0; }}\n"]
    for name, kind in sorted(defs[so].items()):
        if name in special:
            body.append(special[name])
        elif kind == "OBJECT":
            body.append(f"char {name}[256];\n")
        else:
            body.append(f"long {name}(void) {{ return 0; }}\n")
    open(base + ".c", "w").write("".join(body))
    cmd = ["gcc", "-shared", "-fPIC", "-w", "-o", os.path.join(out_dir, so), base + ".c", f"-Wl,-soname,{so}"]
    if so in version_of:
        open(base + ".map", "w").write(f"{version_of[so]} {{ global: *; }};\n")
        cmd.append(f"-Wl,--version-script={base}.map")
    subprocess.run(cmd, check=True)
print(f"{len(missing)} CUDA libraries stood in for in {out_dir}")
