#!/usr/bin/env bash
# Checks a report written by `./nic reproduce` as CI sees it: every experiment the registry lists has a row in the
# summary, none broke, and (where chromium is installed) the page renders with every plot and a silent console.
#   tools/check-reproduce-report.sh DIR
set -euo pipefail
dir=${1:?usage: $0 REPORT_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fail() { echo "check-reproduce-report: $*" >&2; exit 1; }

[ -s "$dir/index.html" ] || fail "no $dir/index.html"
[ -s "$dir/points.csv" ] || fail "no $dir/points.csv"
expected=$("$root/nic" reproduce --list | wc -l)
rows=$(grep -c '^| .* | `' "$dir/summary.md" || true)
[ "$rows" -eq "$expected" ] || fail "summary.md has $rows experiment rows, the registry lists $expected"
if grep -q '| \*\*error\*\* |' "$dir/summary.md"; then
  fail "an experiment broke: $(grep '| \*\*error\*\* |' "$dir/summary.md")"
fi
grep -q 'Complete run' "$dir/index.html" || fail "the page says the run did not complete"
plots=$(find "$dir/plots" -name '*.svg' | wc -l)
[ "$plots" -gt 0 ] || fail "no plots in $dir/plots"

if command -v chromium >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile" \
    --enable-logging=stderr --v=0 --dump-dom "file://$(cd "$dir" && pwd)/index.html" >"$tmp/dom" 2>"$tmp/err" ||
    fail "chromium could not render the page: $(tail -3 "$tmp/err")"
  if grep -E ':CONSOLE[:(]' "$tmp/err"; then
    fail "the browser console is not silent (above)"
  fi
  svgs=$(grep -o '<svg' "$tmp/dom" | wc -l)
  [ "$svgs" -eq "$plots" ] || fail "the rendered page holds $svgs plots, $dir/plots has $plots"
  echo "check-reproduce-report: chromium rendered $svgs plots, console silent"
else
  echo "check-reproduce-report: chromium not installed; the page was not rendered"
fi
echo "check-reproduce-report: $rows experiments in the summary, none broke, $plots plots"
