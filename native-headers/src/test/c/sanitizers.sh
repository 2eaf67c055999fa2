# Sourced by the C test runners after require.sh: the sanitizer build of the same tests.
#
# When NICBRIDGE_C_SANITIZE=1 (native-headers' pom sets it for the *-sanitized executions, which run each runner a
# second time into its own output directory), the runner compiles its tests and the shim sources with
# AddressSanitizer (+ LeakSanitizer) and UndefinedBehaviorSanitizer, every check fatal (-fno-sanitize-recover=all,
# halt_on_error), and runs them natively instead of under valgrind (the two do not mix). A report makes the test
# binary exit non-zero, which fails the runner and the build. Otherwise this file changes nothing.
#
# Sets: sanitizing (1 or 0) and sanitize_flags (compiler flags to append; empty when not sanitizing).
sanitizing=0
sanitize_flags=()
if [ "${NICBRIDGE_C_SANITIZE:-0}" = 1 ]; then
  sanitizing=1
  sanitize_flags=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86"
  export LSAN_OPTIONS="exitcode=86"
  echo "C tests: AddressSanitizer + UndefinedBehaviorSanitizer build (every report fatal), no valgrind"
fi
