# Sourced by the suites: `check NAME COMMAND...` runs the command with its output in
# $build/NAME.log, prints "ok   NAME" or "FAIL NAME" with the log's tail, and counts both in
# $passed and $failed.
passed=0
failed=0
check() {
  local name=$1
  shift
  if "$@" >"$build/$name.log" 2>&1; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name (log: $build/$name.log)"
    tail -n 20 "$build/$name.log" | sed 's/^/     | /'
    failed=$((failed + 1))
  fi
}
