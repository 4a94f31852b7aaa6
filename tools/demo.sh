#!/usr/bin/env bash
# Installs the dependencies, builds, lists the devices and runs the transfer benchmark on every
# device found (the emulator excepted). Extra arguments go to `hetcodec bench transfer`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -G Ninja
cmake --build build -j"$(nproc)"
build/tools/hetcodec devices
build/tools/hetcodec --device all bench transfer "$@"
