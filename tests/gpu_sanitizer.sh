#!/bin/sh
# Runs the backend suite on the first CUDA device under one compute-sanitizer tool; any report
# fails. Exits 77 (CTest: skipped) where there is no CUDA device.
# usage: gpu_sanitizer.sh COMPUTE_SANITIZER TOOL HETCODEC_CLI TEST_BINARY [DOCTEST OPTIONS...]
# (the options choose a part of the suite, as --first=N --last=M)
sanitizer=$1 tool=$2 cli=$3 suite=$4
shift 4
if ! "$cli" --device cuda devices >/dev/null 2>&1; then
  echo "no CUDA device on this machine: compute-sanitizer $tool skipped"
  exit 77
fi
# --duration=true names each test case as it ends, so a run that stalls shows where. The test
# cases named [large] (megapixel images, for paths that only large inputs take: their kernels
# are the same as the others') are left out, as they take minutes under racecheck.
# memcheck also checks for leaks: device memory still allocated when the process ends.
# racecheck leaves out the cases named [threads] too (many threads of whole pipelines: their
# kernels are those of the other cases).
leaks=
exclude='*[large]*'
[ "$tool" = memcheck ] && leaks="--leak-check full"
[ "$tool" = racecheck ] && exclude='*[large]*,*[threads]*'
HETCODEC_TEST_DEVICES=cuda:0 exec "$sanitizer" --tool "$tool" $leaks --error-exitcode 1 "$suite" \
  --duration=true "--test-case-exclude=$exclude" "$@"
