# ruff: noqa: F405  (the names come from spack.package)
# hetprobe as a Spack package: `spack repo add bench/install/spack` (the
# folder with repo.yaml), then `spack install hetprobe`, `hetprobe+cuda
# cuda_arch=90` or `hetprobe+rocm amdgpu_target=gfx90a`. pip builds it with
# scikit-build-core, as `pip install .` does: the C++ probes go inside the
# Python package (hetprobe/_bin), and `hetprobe` on PATH is its command.
# How it was tried: docs/setup.md.
from spack.package import *  # noqa: F403  (Spack's own idiom: its package API by name)


class Hetprobe(PythonPackage, CudaPackage, ROCmPackage):
    """CPU/GPU interference and notification probes for HPC nodes: how GPU traffic in pinned
    host memory slows MPI sends, how fast the CPU and GPU tell each other things, and a node
    verdict, in one command (hetprobe characterize)."""

    homepage = "https://github.com/hetprobe/hetprobe"
    git = "https://github.com/hetprobe/hetprobe.git"

    version("main", branch="main")

    depends_on("cxx", type="build")
    depends_on("cmake@3.24:", type="build")
    depends_on("ninja", type="build")
    depends_on("py-scikit-build-core@0.8:", type="build")  # pyproject.toml's floor
    depends_on("py-pybind11@2.10:", type="build")
    depends_on("python@3.9:", type=("build", "run"))
    depends_on("mpi")
    depends_on("hwloc@2:")
    depends_on("cli11")
    depends_on("nlohmann-json")
    depends_on("zlib-api")
    depends_on("py-numpy", type=("build", "run"))
    depends_on("py-pandas", type="run")
    depends_on("py-matplotlib", type="run")

    conflicts("+cuda", when="+rocm", msg="one GPU backend a build: CUDA or HIP")

    def config_settings(self, spec, prefix):
        """The CMake options scikit-build-core passes on: no tests, and the GPU backend the variants ask for."""
        settings = {
            "cmake.define.HETPROBE_ENABLE_TESTS": "OFF",
            "cmake.define.HETPROBE_ENABLE_CUDA": "ON" if spec.satisfies("+cuda") else "OFF",
            "cmake.define.HETPROBE_ENABLE_HIP": "ON" if spec.satisfies("+rocm") else "OFF",
        }
        if spec.satisfies("+cuda") and spec.variants["cuda_arch"].value[0] != "none":
            settings["cmake.define.CMAKE_CUDA_ARCHITECTURES"] = ";".join(spec.variants["cuda_arch"].value)
        if spec.satisfies("+rocm") and spec.variants["amdgpu_target"].value[0] != "none":
            settings["cmake.define.CMAKE_HIP_ARCHITECTURES"] = ";".join(spec.variants["amdgpu_target"].value)
        return settings
