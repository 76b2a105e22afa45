#!/usr/bin/env bash
# Runs the test suite under AddressSanitizer and UndefinedBehaviorSanitizer:
#
#   bash tests/sanitize.sh [pytest args]      (default: tests/python)
#
# Builds the sanitized flavour in place (TVMLITE_SANITIZE=address,undefined; incremental, a no-op when it is
# current), then runs pytest with libasan and libstdc++ preloaded into the (unsanitized) python. Every ASan or
# UBSan report is fatal and goes to a log file, including those of the subprocesses the tests spawn (they inherit
# the environment): pytest hides their stderr, so this script fails if any log file was written, and prints them.
# Leaks are not checked (CPython itself does not free everything at exit). Exits non-zero on any test failure or
# sanitizer report. ASan suppressions (one false positive of the runtime itself): tests/sanitize_site/asan.supp.
# The tree is left with the sanitized build: restore the normal one with
#   python setup.py -q build_ext --inplace        (or pip install -e .), without TVMLITE_SANITIZE.
set -euo pipefail
cd "$(dirname "$0")/.."
CXX="${CXX:-g++}"

if python -c "import Cython" 2>/dev/null; then
  TVMLITE_SANITIZE=address,undefined python -W ignore setup.py -q build_ext --inplace
elif ! grep -qs "^sanitize-address-undefined:" tvmlite/lib/.build-flavour; then
  # Without Cython here (pip builds in an isolated environment), pip must build it:
  echo 'no sanitized build: run TVMLITE_SANITIZE=address,undefined python -m pip install -e ".[test]"' >&2
  exit 1
fi

LOG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/tvmlite-sanitize.XXXXXX")"
# libasan first (it must be), libstdc++ with it (else ASan aborts at the first C++ throw), libubsan so that
# sanitize_site/sitecustomize.py can point its reports at the log file, in every Python process.
LD_PRELOAD="$("$CXX" -print-file-name=libasan.so) $("$CXX" -print-file-name=libstdc++.so) \
$("$CXX" -print-file-name=libubsan.so)${LD_PRELOAD:+ $LD_PRELOAD}"
export LD_PRELOAD PYTHONPATH="$PWD/tests/sanitize_site${PYTHONPATH:+:$PYTHONPATH}"
# quarantine_size_mb=0: freed memory is reused at once, so the RSS bounds of test_leak.py hold.
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:halt_on_error=1:quarantine_size_mb=0:abort_on_error=0:\
suppressions=$PWD/tests/sanitize_site/asan.supp:log_path=$LOG_DIR/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$LOG_DIR/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

export TVMLITE_SANITIZE_RUN=1  # longer time limits where tests have them (the fuzz test's hang detection)
status=0
start=$SECONDS
python -m pytest -q -p no:cacheprovider "${@:-tests/python}" || status=$?
echo "sanitized run: $((SECONDS - start)) s, pytest exit $status"

# A log holding only allocator_may_return_null's warnings (tests of huge allocations) is not a report.
shopt -s nullglob
reports=0
for f in "$LOG_DIR"/*; do
  if grep -qv "WARNING: AddressSanitizer failed to allocate" "$f"; then
    reports=$((reports + 1))
    echo "===== $f" >&2
    cat "$f" >&2
  fi
done
if [ "$reports" -gt 0 ]; then
  echo "FAILED: $reports sanitizer report(s), kept in $LOG_DIR" >&2
  exit 1
fi
rm -rf "$LOG_DIR"
exit "$status"
