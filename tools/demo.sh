#!/usr/bin/env bash
# Installs the dependencies, builds, and runs `hetcodec demo`: real photos decoded and encoded on
# every device found (the emulator excepted), checked byte for byte against libjpeg-turbo and
# libpng and across devices, timed against them; the files go to ./hetcodec-demo. Then the
# devices, and host<->device transfer speeds on each. Extra arguments go to `hetcodec demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
source tools/cuda_archs.sh
cmake -S . -B build -G Ninja -DHETCODEC_CUDA_ARCHITECTURES="$(hetcodec_cuda_architectures)"
cmake --build build -j"$(nproc)"
build/tools/hetcodec -d all demo "$@"
echo
build/tools/hetcodec devices
echo
build/tools/hetcodec -d all bench transfer --sizes 16 --min-time 0.2
