/**
 * A user of the CLI's live commands with exactly the ClusterRole rules a runbook gives (src/cli/cli-rbac.ts): a
 * ServiceAccount bound to them, and a kubeconfig with its token (TokenRequest API), so the Kubernetes tier proves
 * the rules are enough; and the program run as such a user.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ClusterInfo } from './control-plane';
import { KubeClient } from './kube-client';
import { CliRule } from '../../../src/cli/cli-rbac';
import { main } from '../../../src/cli/main';

const NAMESPACE = 'default';

/** The kubeconfig of ServiceAccount `name`, bound (cluster-wide) to `rules` alone. */
export async function cliUserKubeconfig(
  client: KubeClient,
  info: ClusterInfo,
  name: string,
  rules: readonly CliRule[],
): Promise<string> {
  await client.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: NAMESPACE } });
  await client.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: rules as any });
  await client.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace: NAMESPACE }],
  });
  return tokenKubeconfig(client, info, NAMESPACE, name);
}


/** A kubeconfig that authenticates as ServiceAccount `namespace/name`, with a token from the TokenRequest API. */
export async function tokenKubeconfig(
  client: KubeClient,
  info: ClusterInfo,
  namespace: string,
  name: string,
): Promise<string> {
  const request = await client.request<any>('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
  const file = path.join(info.runDir, `${namespace}-${name}.kubeconfig`);
  fs.writeFileSync(file, JSON.stringify({
    'apiVersion': 'v1',
    'kind': 'Config',
    'clusters': [{ name: 'test', cluster: { 'server': info.server, 'certificate-authority': info.ca } }],
    'users': [{ name, user: { token: request.body.status.token } }],
    'contexts': [{ name: 'test', context: { cluster: 'test', user: name } }],
    'current-context': 'test',
  }));
  return file;
}

/** `cdk8s-zones <args> --kubeconfig <kubeconfig>` in this process: its exit code and output. */
export async function runCliAs(
  kubeconfig: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, '--kubeconfig', kubeconfig], {
    stdin: process.stdin,
    stdout: (s) => { stdout += s; },
    stderr: (s) => { stderr += s; },
  });
  return { code, stdout, stderr };
}
