"""`pip install . --no-build-isolation` (docs/PYTHON.md): the routelab package, built offline
with Debian's setuptools. The extension module is built by the project's CMake (target
_routelab, the same static libraries as the CLI) in ./build when it is configured, else in
./build-python; set ROUTELAB_BUILD_DIR to use another build directory."""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    """Builds routelab._routelab with CMake and copies it where setuptools packs it."""

    def build_extension(self, ext):
        build = os.environ.get("ROUTELAB_BUILD_DIR")
        if not build:
            build = os.path.join(ROOT, "build")
            if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
                build = os.path.join(ROOT, "build-python")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            subprocess.run(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                            "-DROUTELAB_TESTS=OFF", "-DROUTELAB_BENCHMARKS=OFF",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", build, "--target", "_routelab", "-j", str(os.cpu_count() or 1)],
                       check=True)
        built = os.path.join(build, "python", "routelab", os.path.basename(self.get_ext_filename(ext.name)))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="routelab",
    version="0.1.0",
    description="HPC interconnection networks: routing, deadlock verification, congestion, simulation",
    packages=["routelab"],
    package_dir={"": "python"},
    package_data={"routelab": ["py.typed", "*.pyi"]},
    ext_modules=[Extension("routelab._routelab", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=[],  # numpy, pandas, networkx: Debian's python3-numpy, -pandas, -networkx
    zip_safe=False,
    # setuptools' own build files go under the CMake build tree (ignored by git).
    options={"build": {"build_base": "build/setuptools"}},
)
