#!/usr/bin/env bash
# The release workflow's steps that can run here, on a throwaway clone: projen's bump from conventional commits
# (after a v0.0.0 tag and one `feat:` commit, so the bump has something to do), the jsii build and the npm
# tarball; then that tarball installed in a fresh app, whose default controller image must be the one the
# release pushes: tagged with the version the bump chose; and a cdk8s-plus-33 user app (test/user-app) on that
# tarball, synthesized with the cdk8s CLI and snapshot-tested. Leaves the checkout untouched.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git_as_ci() { git -c user.name=release-check -c user.email=release-check@localhost "$@"; }

git clone -q "$root" "$work/repo"
cd "$work/repo"
ln -s "$root/node_modules" node_modules
git_as_ci tag v0.0.0
git_as_ci commit -q --allow-empty -m "feat: release check"
npx projen bump >/dev/null
version=$(cat dist/version.txt)
if [ "$version" = 0.0.0 ]; then echo "release-check: the bump after a feat: commit kept version 0.0.0" >&2; exit 1; fi
grep -q 'release check' dist/changelog.md || { echo "release-check: the changelog does not list the feat: commit" >&2; exit 1; }
npx projen compile >/dev/null
npx projen package:js >/dev/null
tarball=$(ls "$PWD"/dist/js/*.tgz)

mkdir "$work/app"
cd "$work/app"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$tarball" cdk8s@2.70.97 cdk8s-plus-28@2.5.6 constructs@10.3.2 >/dev/null
node -e '
  const { ZoneController } = require("cdk8s-zones");
  const want = `ghcr.io/cdk8s-zones/controller:${process.argv[1]}`;
  if (ZoneController.DEFAULT_IMAGE !== want) {
    console.error(`release-check: the released library names ${ZoneController.DEFAULT_IMAGE}, not ${want}`);
    process.exit(1);
  }
  console.log(`release-check: version ${process.argv[1]}, tarball ${require("path").basename(process.argv[2])}, default image ${want}`);
' "$version" "$tarball"

# A user's app as `cdk8s init typescript-app` makes one today (cdk8s-plus-33; test/user-app), with the tarball
# installed: type-checked, synthesized by the cdk8s CLI, and its snapshot test passing (--ci: a missing or
# different snapshot fails).
cp -r "$root/test/user-app" "$work/user-app"
cd "$work/user-app"
npm install --no-audit --no-fund --loglevel=error >/dev/null
npm install --no-audit --no-fund --loglevel=error "$tarball" >/dev/null
npx tsc --noEmit -p .
npx cdk8s synth >/dev/null 2>"$work/synth.log" || { cat "$work/synth.log" >&2; exit 1; }
for kind in Deployment StatefulSet ZoneDisruptionBudget ZoneAwareUpdate; do
  grep -q "^kind: $kind\$" dist/my-zonal-app.k8s.yaml || { echo "release-check: the user app's synth has no $kind" >&2; exit 1; }
done
test "$(grep -c 'topology.kubernetes.io/zone' dist/my-zonal-app.k8s.yaml)" -ge 4 || { echo "release-check: the user app's workloads are not spread across zones" >&2; exit 1; }
npx jest --ci
# the package's CLI, as installed: the app survives losing any zone
npx cdk8s-zones check --zones zone-a,zone-b,zone-c dist/ >"$work/check.txt" || { cat "$work/check.txt" >&2; exit 1; }
echo "release-check: a cdk8s-plus-33 app synthesized with the cdk8s CLI and passed its snapshot test, from the tarball"

# Its cdk8s.yaml runs the zone check as a validation plugin: the synth above passed it; the same app with a
# one-replica Deployment added must fail the synth, naming the rule and the workload.
cat > unsafe.ts <<'TS'
import { App } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { MyChart } from './main';
const app = new App();
const chart = new MyChart(app, 'unsafe');
new kplus.Deployment(chart, 'singleton', { replicas: 1, containers: [{ image: 'registry.k8s.io/pause:3.10', portNumber: 8080 }] });
app.synth();
TS
if npx cdk8s synth --app 'npx ts-node unsafe.ts' >"$work/unsafe.log" 2>&1; then
  cat "$work/unsafe.log" >&2; echo "release-check: a zone-unsafe app passed the validation plugin" >&2; exit 1
fi
grep -q 'single-replica' "$work/unsafe.log" && grep -q 'singleton' "$work/unsafe.log" \
  || { cat "$work/unsafe.log" >&2; echo "release-check: the validation plugin failed the synth without naming the rule and the workload" >&2; exit 1; }
echo "release-check: the zone check, as a cdk8s validation plugin, passed the app and failed it with a one-replica Deployment"
