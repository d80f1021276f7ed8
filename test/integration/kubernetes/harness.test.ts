/**
 * The harness fails, it never skips: a missing program or one that does not start stops the run with a
 * message that says which program and what to do (or what its log says).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { programPath } from '../programs';
import { ControlPlane } from './control-plane';

test('a missing binary: the error names it and the setup command', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'no-programs-'));
  try {
    await expect(ControlPlane.start({ name: 'missing', program: (n) => programPath(n, empty) }))
      .rejects.toThrow(`etcd is not installed at ${path.join(empty, 'etcd')}: run \`npm run test:integration:setup\``);
  } finally {
    fs.rmSync(empty, { recursive: true });
  }
});

test('a binary that exits at once: the error names it, its exit status and the end of its log', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'broken-programs-'));
  try {
    for (const name of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok']) {
      const file = path.join(dir, name);
      const script = name === 'kube-apiserver' ? 'echo "Error: unknown flag: --no-such-thing" >&2; exit 3' : `exec ${programPath(name)} "$@"`;
      fs.writeFileSync(file, `#!/bin/sh\n${script}\n`);
      fs.chmodSync(file, 0o755);
    }
    const started = ControlPlane.start({ name: 'broken', program: (n) => programPath(n, dir) });
    await expect(started).rejects.toThrow(/the Kubernetes test control plane did not start \(logs in .*\): kube-apiserver stopped \(exit code 3\); the end of .*kube-apiserver\.log:\n# .*\nError: unknown flag: --no-such-thing/);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});
