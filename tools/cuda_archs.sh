# Sourced by tools/demo.sh and tools/test.sh: the CUDA architectures a build on this machine
# needs, passed on every configure as -DHETCODEC_CUDA_ARCHITECTURES (an existing build directory
# keeps its cache, so a value given once would otherwise stay).
#  - With NVIDIA GPUs: each GPU's own architecture (nvidia-smi's compute capability, 9.0 -> 90),
#    machine code plus PTX, and nothing else.
#  - Without one: PTX alone for the oldest architecture the project supports (Turing, 75), which
#    the driver of any newer GPU compiles when the library first loads. One nvcc pass instead
#    of the eight of CMake's default list, on a machine that cannot run the code anyway.
# Packaging builds keep CMakeLists.txt's broad default (Turing to Blackwell, plus PTX).
hetcodec_cuda_architectures() {
  local caps=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
      tr -d ' .' | grep -E '^[0-9]+$' | sort -u | paste -sd ';' -) || caps=""
  fi
  echo "${caps:-75-virtual}"
}
