"""setuptools' side of pyproject.toml: the extension `ringmaster._core` is built by the project's own CMake + Ninja
(the same sources and flags as the binary), the pure-Python files come from python/ringmaster."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.abspath(os.environ.get("RINGMASTER_BUILD_DIR", os.path.join(HERE, "build-pip")))
        subprocess.run(["cmake", "-S", HERE, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                        "-DRINGMASTER_TESTS=OFF", "-DRINGMASTER_BENCH=OFF", f"-DPython3_EXECUTABLE={sys.executable}"],
                       check=True)
        subprocess.run(["ninja", "-C", build, "ringmaster_pypkg"], check=True)
        built = glob.glob(os.path.join(build, "python", "ringmaster", "_core*.so"))
        if not built:
            raise RuntimeError(f"no _core*.so in {build}/python/ringmaster")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(built[0], dest)


setup(
    packages=["ringmaster"],
    package_dir={"": "python"},
    ext_modules=[Extension("ringmaster._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
