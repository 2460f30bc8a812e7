#!/usr/bin/env bash
# CI: builds the Maven artifact dynalease-fake (fake/java) with the server binary in its jar, and
# runs its tests against that jar.
#
#   bash .ci/java-package.sh [BINARY]
#
# BINARY is the server the jar carries (default: target/debug/dynalease-fake, which CI has built).
# When Maven can resolve the artifact's dependencies (the AWS SDK for Java v2, JUnit 5, Jackson),
# `mvn -B -q verify` builds and tests the whole artifact. A machine whose Maven cannot reach its
# registry still builds and tests what needs no AWS SDK: the server's process, the control API and
# the JUnit extension, compiled by javac against the distribution's JUnit 5 and Jackson packages,
# packed into a jar with the binary, and run by JUnit's console launcher; the SDK's clients
# (src/main/java/.../sdk) and the tests that use them (src/test/java/.../sdk) are then left out,
# and the script says so.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="$(realpath "${1:-$root/target/debug/dynalease-fake}")"
project="$root/fake/java"
work="$(mktemp -d /tmp/dynalease-java-package.XXXXXX)"
trap 'rm -rf "$work"' EXIT
[ "$(basename "$binary")" = dynalease-fake ] || { echo "the binary must be named dynalease-fake: $binary" >&2; exit 1; }

echo "-- can Maven resolve the artifact's dependencies?"
if timeout 300 mvn -B -q -f "$project/pom.xml" dependency:resolve -DincludeScope=test >"$work/resolve.out" 2>&1; then
    echo "-- mvn -B -q verify (the whole artifact: the extension, the SDK's clients, every test)"
    mvn -B -q -f "$project/pom.xml" verify -Ddynalease.fake.binary.dir="$(dirname "$binary")" \
        -Dproject.build.directory="$work/target"
    exit 0
fi
if ! grep -qiE "could not (transfer|resolve)|failure to transfer|unknown host|network is unreachable|UnknownHostException" "$work/resolve.out"; then
    cat "$work/resolve.out" >&2
    exit 1
fi
echo "Maven cannot reach its registry here: $(grep -m1 -oiE "(could not transfer|failure to transfer|could not resolve|unknown host)[^:]*" "$work/resolve.out")"
echo "-- without the AWS SDK: javac against the distribution's JUnit 5 and Jackson"
if [ ! -e /usr/share/java/junit-platform-console-standalone.jar ] || [ ! -e /usr/share/java/jackson-databind.jar ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends junit5 libjackson2-databind-java >/dev/null
fi
jars=/usr/share/java
jackson="$jars/jackson-databind.jar:$jars/jackson-core.jar:$jars/jackson-annotations.jar"
junit_api="$jars/junit-jupiter-api.jar:$jars/junit-platform-commons.jar:$jars/apiguardian-api.jar:$jars/opentest4j.jar"
left_out=$(cd "$project" && find src -path '*/sdk/*' -name '*.java' | sort)
echo "left out, for they need the AWS SDK:" $left_out
mkdir -p "$work/classes/dev/dynalease/fake/linux-x64" "$work/test-classes"
(cd "$project" && javac -Xlint:all -Werror -d "$work/classes" -cp "$jackson:$junit_api" \
    $(find src/main/java -name '*.java' -not -path '*/sdk/*'))
cp "$binary" "$work/classes/dev/dynalease/fake/linux-x64/dynalease-fake"
jar --create --file "$work/dynalease-fake.jar" -C "$work/classes" .
(cd "$project" && javac -Xlint:all -Werror -d "$work/test-classes" -cp "$work/dynalease-fake.jar:$jackson:$junit_api" \
    $(find src/test/java -name '*.java' -not -path '*/sdk/*'))
unset DYNALEASE_FAKE_BIN
cd "$work"
java -Ddynalease.fake.controlApi="$root/fake/control-api.json" -Ddynalease.fake.java="$project" -jar "$jars/junit-platform-console-standalone.jar" \
    --class-path "$work/test-classes:$work/dynalease-fake.jar:$jackson" --scan-class-path "$work/test-classes" \
    --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests
