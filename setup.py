"""Builds the wagener package's extension module with the project's own CMake, so that pip and
python3 -m build make the same module as `cmake --build`: one list of sources (CMakeLists.txt), one
version (its project(VERSION)).

The CMake tree is build-python/, beside build/: CMakeLists.txt compiles through ccache where it is
installed, with paths relative to the source root, so a tree at the same depth of another checkout
shares its objects (a wheel built from a fresh clone recompiles nothing the tests' build/ compiled).
Environment: CMAKE_ARGS (extra -D options, e.g. -DWAGENER_CUDA=OFF) and
CMAKE_BUILD_PARALLEL_LEVEL (default: all cores). nvcc on the PATH, or in /usr/local/cuda/bin, gives
a module with the CUDA backend, as scripts/build.sh does.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
CMAKE_TREE = ROOT / "build-python"


def project_version() -> str:
    match = re.search(r"project\(\s*wagener\s+VERSION\s+([0-9][0-9.]*)", (ROOT / "CMakeLists.txt").read_text())
    if match is None:
        raise RuntimeError("CMakeLists.txt has no project(wagener VERSION ...)")
    return match.group(1)


class CMakeExtension(Extension):
    """The module the CMake target _wagener builds (no sources of its own here)."""

    def __init__(self, name: str, target: str) -> None:
        super().__init__(name, sources=[])
        self.target = target


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, CMakeExtension):
            return super().build_extension(ext)
        env = dict(os.environ)
        nvcc_home = Path("/usr/local/cuda/bin")
        if shutil.which("nvcc") is None and (nvcc_home / "nvcc").exists():
            env["PATH"] = f"{nvcc_home}{os.pathsep}{env.get('PATH', '')}"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(CMAKE_TREE),
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DWAGENER_BUILD_PYTHON=ON",
            "-DWAGENER_BUILD_TESTS=OFF",
            "-DWAGENER_BUILD_CLI=OFF",
            "-DWAGENER_MPI=OFF",
        ]
        configure += shlex.split(env.get("CMAKE_ARGS", ""))
        parallel = env.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True, env=env)
        subprocess.run(["cmake", "--build", str(CMAKE_TREE), "--target", ext.target, "--parallel", parallel],
                       check=True, env=env)
        built = sorted((CMAKE_TREE / "python" / "wagener").glob(f"{ext.target}.*"))
        built = [path for path in built if path.suffix in (".so", ".pyd", ".dylib")]
        if len(built) != 1:
            raise RuntimeError(f"expected one {ext.target} module in {CMAKE_TREE / 'python' / 'wagener'}, found {built}")
        destination = Path(self.get_ext_fullpath(ext.name))
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], destination)


CMAKE_TREE.mkdir(exist_ok=True)  # egg_info's folder must exist before any command runs
setup(
    version=project_version(),
    packages=["wagener"],
    package_dir={"": "python"},
    package_data={"wagener": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("wagener._wagener", target="_wagener")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    # setuptools' own folders (build/, *.egg-info) in the CMake tree too, out of the sources.
    options={"build": {"build_base": str(CMAKE_TREE / "setuptools")},
             "egg_info": {"egg_base": str(CMAKE_TREE)}},
)
