# Sourced by ./nic and .ci/run: sets NIC_JAVA_HOME to a JDK >= 25 or prints one line and exits.
#
# Looks where JDKs usually are, so a fresh machine whose default `java` is older and whose
# JAVA_HOME is unset still works: $NICBRIDGE_JAVA_HOME, $JAVA_HOME, the `java` on PATH, then the
# platforms' JDK folders. Picks the newest JDK that is 25 or later. Maven's toolchains plugin
# searches the same folders, so the launcher and the build agree.

nic_jdk_major() { # $1 = JDK home; prints its feature version or nothing
  local release="$1/release" v
  [ -x "$1/bin/java" ] || return 0
  if [ -f "$release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release" | head -n 1)
  else
    v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 |
        sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p' | head -n 1)
  fi
  [ -n "$v" ] && echo "$v"
  return 0
}

nic_find_jdk() {
  local wanted=${NICBRIDGE_MIN_JDK:-25} best="" best_major=0 c m path_java
  local -a candidates=()
  [ -n "${NICBRIDGE_JAVA_HOME:-}" ] && candidates+=("$NICBRIDGE_JAVA_HOME")
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if path_java=$(command -v java 2>/dev/null); then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$path_java")")")")
  fi
  for c in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* /usr/local/jdk* \
           "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/* \
           /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -d "$c" ] && candidates+=("$c")
  done
  for c in "${candidates[@]}"; do
    m=$(nic_jdk_major "$c")
    if [ -n "$m" ] && [ "$m" -ge "$wanted" ] && [ "$m" -gt "$best_major" ]; then
      best="$c"; best_major="$m"
    fi
  done
  if [ -z "$best" ]; then
    echo "nicbridge needs a JDK $wanted or newer and found none (looked at JAVA_HOME, PATH, /usr/lib/jvm and the usual JDK folders): install one, e.g. Eclipse Temurin $wanted, or point NICBRIDGE_JAVA_HOME at it." >&2
    return 1
  fi
  NIC_JAVA_HOME="$best"
  export NIC_JAVA_HOME
}
