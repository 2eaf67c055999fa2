#!/usr/bin/env bash
# Compiles every contract header on its own (so each is self-contained) with the project's C flags.
# Usage: check-headers.sh GCC INCLUDE_DIR
set -euo pipefail
gcc=${1:-gcc}
inc=${2:?include dir}
shopt -s nullglob
headers=("$inc"/*.h)
if [ ${#headers[@]} -eq 0 ]; then
  echo "check-headers: no headers in $inc" >&2
  exit 1
fi
for h in "${headers[@]}"; do
  printf '#include "%s"\n' "$(basename "$h")" |
    "$gcc" -std=c11 -Wall -Wextra -Werror -pedantic -I"$inc" -x c -fsyntax-only - ||
    { echo "check-headers: $(basename "$h") does not compile cleanly with -std=c11 -Wall -Wextra -Werror -pedantic" >&2; exit 1; }
done
echo "check-headers: ${#headers[@]} headers compile cleanly (gcc -std=c11 -Wall -Wextra -Werror -pedantic)"
