#!/usr/bin/env bash
# Installs hetcodec's build and test dependencies from Debian packages (Debian 12 or newer, or
# Ubuntu 24.04), as root. Packages already installed are left alone, so a second run is quick.
# The CUDA backend also needs nvcc (NVIDIA's CUDA Toolkit); without it that backend is left out.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers clinfo
  pocl-opencl-icd oclgrind
  libjpeg-dev libpng-dev zlib1g-dev libdeflate-dev
  doctest-dev libcli11-dev nlohmann-json3-dev
  pngcheck
  clang
  python3-dev python3-venv
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
