#!/usr/bin/env bash
# Builds hetcodec on a machine with an NVIDIA GPU, runs the whole test suite (CUDA, NVIDIA
# OpenCL and PoCL side by side; compute-sanitizer over the gpu label), then `hetcodec devices`
# and the transfer benchmark. Logs and JSON go to LOGDIR.
# usage: tools/gpu_check.sh [LOGDIR] [CUDA_ARCHS]      (defaults: build-gpu/logs, 90)
# With HETCODEC_BENCH_CORPUS=DIR (holding imagenet/ and large/ from `hetcodec corpus`) it also
# runs `bench jpeg` on every device (batches of 256 ImageNet-like images and single large
# ones), `bench jpeg-encode` (the 256 ImageNet-like images one at a time and as one
# encode_batch, and a 3840x2160 crop of the first large one; a file that differs from
# libjpeg-turbo's fails the check), `bench png-encode` and `bench png-decode` on 2040x1356
# crops of the large ones; HETCODEC_BENCH_PNG_DECODE=1 alone runs `bench png-decode` on its
# built-in images. HETCODEC_GPU_CHECK_SKIP_TESTS=1 skips the test suite (a second run for the
# benchmarks alone).
# With HETCODEC_EXTRA_DEBS=DIR, the Debian packages there (libdeflate, say, where the machine
# lacks it) are unpacked into build-gpu/extra and found through pkg-config (pngcheck through
# HETCODEC_PNGCHECK).
# Some drivers install libnvidia-opencl.so.1 without an .icd file; HETCODEC_OPENCL_ICDS makes
# the ICD loader see it anyway (backends/opencl/icd_setup.cpp).
set -uo pipefail
logs=${1:-build-gpu/logs}
archs=${2:-90}
mkdir -p "$logs"
export HETCODEC_OPENCL_ICDS=${HETCODEC_OPENCL_ICDS:-libnvidia-opencl.so.1}
export HETCODEC_TEST_EXPECT=${HETCODEC_TEST_EXPECT:-cuda:0,opencl:nvidia,opencl:pocl}
nvidia-smi -L > "$logs/nvidia-smi.txt" 2>&1
if [ -n "${HETCODEC_EXTRA_DEBS:-}" ]; then
  extra=$PWD/build-gpu/extra
  mkdir -p "$extra"
  for deb in "$HETCODEC_EXTRA_DEBS"/*.deb; do dpkg -x "$deb" "$extra"; done
  export PKG_CONFIG_PATH="$extra/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export PKG_CONFIG_SYSROOT_DIR="$extra"
  # pkg-config leaves out -I/usr/include and -L/usr/lib/...: keep them, so the sysroot applies.
  export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
  # Some .pc files name a libdir other than the multiarch one their library is in.
  export LIBRARY_PATH="$extra/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$extra/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # pngcheck, if among them, checks the PNG encoder's files in the backend suite.
  if [ -x "$extra/usr/bin/pngcheck" ]; then export HETCODEC_PNGCHECK="$extra/usr/bin/pngcheck"; fi
fi
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETCODEC_CUDA_ARCHITECTURES="$archs" \
  > "$logs/configure.log" 2>&1 || { tail -30 "$logs/configure.log"; exit 1; }
grep -A14 'configuration:' "$logs/configure.log"
cmake --build build-gpu -j"$(nproc)" > "$logs/build.log" 2>&1 || { grep -E 'error' -A5 "$logs/build.log" | head -60; exit 1; }
rc=0
if [ "${HETCODEC_GPU_CHECK_SKIP_TESTS:-0}" != 1 ]; then
  (cd build-gpu && ctest --output-on-failure -j4 -LE gpu) > "$logs/ctest.log" 2>&1 || rc=1
  (cd build-gpu && ctest --output-on-failure -L gpu) > "$logs/ctest-gpu.log" 2>&1 || rc=1
  grep -E 'Test +#|tests passed' "$logs/ctest.log" "$logs/ctest-gpu.log"
fi
./build-gpu/tools/hetcodec devices | tee "$logs/devices.txt"
./build-gpu/tools/hetcodec devices --json > "$logs/devices.json"
./build-gpu/tools/hetcodec -d all bench transfer --json "$logs/transfer.json" 2>/dev/null | tee "$logs/transfer.txt"
if [ -n "${HETCODEC_BENCH_CORPUS:-}" ]; then
  ./build-gpu/tools/hetcodec -d all bench jpeg "$HETCODEC_BENCH_CORPUS/imagenet" --batch 256 \
    --json "$logs/bench_jpeg_imagenet.json" 2>&1 | tee "$logs/bench_jpeg_imagenet.txt"
  ./build-gpu/tools/hetcodec -d all bench jpeg "$HETCODEC_BENCH_CORPUS/large" --batch 1 \
    --json "$logs/bench_jpeg_large.json" 2>&1 | tee "$logs/bench_jpeg_large.txt"
  ./build-gpu/tools/hetcodec -d all bench jpeg-encode --imagenet-from "$HETCODEC_BENCH_CORPUS/imagenet" \
    --batch 256 --large-from "$HETCODEC_BENCH_CORPUS/large" \
    --json "$logs/bench_jpeg_encode.json" 2>&1 | tee "$logs/bench_jpeg_encode.txt" || rc=1
  ./build-gpu/tools/hetcodec -d all bench png-encode "$HETCODEC_BENCH_CORPUS/large" \
    --json "$logs/bench_png_encode.json" 2>&1 | tee "$logs/bench_png_encode.txt"
fi
if [ -n "${HETCODEC_BENCH_CORPUS:-}${HETCODEC_BENCH_PNG_DECODE:-}" ]; then
  ./build-gpu/tools/hetcodec -d all bench png-decode ${HETCODEC_BENCH_CORPUS:+"$HETCODEC_BENCH_CORPUS/large"} \
    --json "$logs/bench_png_decode.json" 2>&1 | tee "$logs/bench_png_decode.txt"
fi
exit $rc
