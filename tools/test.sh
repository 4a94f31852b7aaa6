#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the whole test suite: unit, backend (every device
# found), emulator (Oclgrind) and gpu (skipped without an NVIDIA GPU). HETCODEC_TEST_STRICT=1
# makes a missing emulator a failure rather than a skip, since the dependencies include it.
# The Python package is built with the library and tested (tests/python) from a virtual
# environment, build/venv, with python/requirements-test.txt from PyPI (HETCODEC_PYTHON=0
# leaves it out). Then every libFuzzer target for HETCODEC_FUZZ_SECONDS (60) each, after its
# kept findings (tools/fuzz.sh; HETCODEC_FUZZ_SECONDS=0 leaves fuzzing out).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
source tools/cuda_archs.sh
python_args=(-DHETCODEC_PYTHON=OFF)
if [[ ${HETCODEC_PYTHON:-1} != 0 ]]; then
  [[ -x build/venv/bin/python ]] || python3 -m venv build/venv
  build/venv/bin/python -m pip install -q --disable-pip-version-check -r python/requirements-test.txt
  python_args=(-DHETCODEC_PYTHON=ON -DPython_EXECUTABLE="$PWD/build/venv/bin/python")
fi
cmake -S . -B build -G Ninja -DHETCODEC_CUDA_ARCHITECTURES="$(hetcodec_cuda_architectures)" \
  "${python_args[@]}"
cmake --build build -j"$(nproc)"
cd build
HETCODEC_TEST_STRICT=1 ctest --output-on-failure -j"$(nproc)"
cd ..
fuzz_seconds=${HETCODEC_FUZZ_SECONDS:-60}
if [[ $fuzz_seconds != 0 ]]; then
  bash tools/fuzz.sh --all "$fuzz_seconds"
fi
