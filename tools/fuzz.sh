#!/usr/bin/env bash
# Coverage-guided fuzzing of the parsers and the CPU reference paths (docs/security.md).
#
#   tools/fuzz.sh --list                 the targets, one per line
#   tools/fuzz.sh TARGET [SECONDS]       fuzz TARGET for SECONDS (default 3600)
#   tools/fuzz.sh --all SECONDS          every target in turn, SECONDS each (CI: 60)
#   tools/fuzz.sh --regressions          every target over its kept findings, once each
#
# Builds build-fuzz/ with clang (-fsanitize=fuzzer,address,undefined) on first use. The corpus
# of a target grows in build-fuzz/corpus/TARGET from its seeds (tests/data and, where it is
# beside the checkout, ../shared/conformance); a crash, leak, timeout or out-of-memory is
# written to build-fuzz/findings/TARGET/ and fails the run. A finding, once fixed, is kept as
# fuzz/regressions/TARGET/<what was wrong>, which --regressions (and CTest, as
# fuzz-regressions) runs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
targets=(jpeg_decode png_decode ljpeg_decode png_encode)
build=${HETCODEC_FUZZ_BUILD:-$root/build-fuzz}

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }

seeds_of() {  # the seed directories of a target
  local shared=$root/../shared/conformance
  case $1 in
    jpeg_decode) echo "$root/tests/data/jpeg" "$shared/jpeg" ;;
    ljpeg_decode) echo "$root/tests/data/ljpeg" ;;
    png_decode) echo "$root/tests/data/pngsuite" "$root/tests/data/png-imagemagick" "$shared/pngsuite" ;;
    png_encode) echo "$root/fuzz/seeds/png_encode" ;;
  esac
}

dict_of() {
  case $1 in
    jpeg_decode | ljpeg_decode) echo "-dict=$root/fuzz/jpeg.dict" ;;
    png_decode) echo "-dict=$root/fuzz/png.dict" ;;
  esac
}

build_targets() {
  mkdir -p "$build"
  if [[ ! -f $build/build.ninja && ! -f $build/Makefile ]]; then
    local gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DHETCODEC_FUZZ=ON -DHETCODEC_WITH_CUDA=OFF -DHETCODEC_WITH_OPENCL=OFF \
      -DHETCODEC_BUILD_TESTS=OFF >"$build/fuzz-configure.log" 2>&1 ||
      { cat "$build/fuzz-configure.log"; exit 1; }
  fi
  local names=() name
  for name in "${targets[@]}"; do names+=("fuzz_$name"); done
  cmake --build "$build" -j"$(nproc)" --target "${names[@]}" >"$build/fuzz-build.log" 2>&1 ||
    { tail -40 "$build/fuzz-build.log"; exit 1; }
}

# The corpus directory of a target, seeded with the files of its seed directories (flattened,
# each once) the first time.
corpus_of() {
  local dir=$build/corpus/$1
  if [[ ! -d $dir ]]; then
    mkdir -p "$dir"
    local s
    for s in $(seeds_of "$1"); do
      [[ -d $s ]] || continue
      find "$s" -type f ! -name '*.txt' ! -name '*.md' ! -name 'LICENSE*' ! -name 'README*' \
        -size -2M -print0 | while IFS= read -r -d '' f; do
        cp "$f" "$dir/$(sha1sum "$f" | cut -c1-16)"
      done
    done
  fi
  echo "$dir"
}

run_target() {
  local t=$1 seconds=$2
  local findings=$build/findings/$t
  mkdir -p "$findings"
  local corpus
  corpus=$(corpus_of "$t")
  echo "fuzz $t for ${seconds}s: corpus $corpus ($(ls "$corpus" | wc -l) files), findings in $findings" >&2
  # -rss_limit_mb and -malloc_limit_mb: a decoder that allocates past them for a small input has
  # no limit where it needs one. -timeout: a single input that takes longer hangs.
  "$build/fuzz/fuzz_$t" $(dict_of "$t") -max_total_time="$seconds" -rss_limit_mb=2560 \
    -malloc_limit_mb=2048 -timeout=30 -print_final_stats=1 -artifact_prefix="$findings/" \
    "$corpus"
}

run_regressions() {
  local failed=0 t
  for t in "${targets[@]}"; do
    local dir=$root/fuzz/regressions/$t
    [[ -d $dir ]] || continue
    local files=("$dir"/*)
    [[ -e ${files[0]} ]] || continue
    echo "fuzz $t: ${#files[@]} regression files" >&2
    "$build/fuzz/fuzz_$t" -runs=1 "${files[@]}" >/dev/null 2>&1 || { echo "fuzz $t: a regression file fails" >&2; failed=1; }
  done
  return $failed
}

case ${1:-} in
  "" | -h | --help) usage ;;
  --list) printf '%s\n' "${targets[@]}" ;;
  --all)
    seconds=${2:?"--all needs SECONDS"}
    build_targets
    run_regressions
    for target in "${targets[@]}"; do run_target "$target" "$seconds"; done
    ;;
  --regressions)
    build_targets
    run_regressions
    ;;
  *)
    target=$1
    [[ " ${targets[*]} " == *" $target "* ]] || { echo "fuzz.sh: no target '$target' (--list)" >&2; exit 2; }
    build_targets
    run_target "$target" "${2:-3600}"
    ;;
esac
