/**
 * The controller's side of src/kubernetes/kube-connection.ts (the one reading of kubeconfigs and in-cluster
 * config, shared with the zone check): its kubeconfig parser, and the cluster `--kubeconfig` or the
 * environment selects, read with it.
 */
import { createRequire } from 'module';
import { ClusterConfig, ConfigSelection, loadClusterConfig as selectCluster } from '../../../src/kubernetes/kube-connection';

/** Loads a package when first needed (jest, which runs this file, cannot run `import()`). */
const requireLazily = createRequire(__filename);

/**
 * A kubeconfig's text as data. JSON (which is YAML) is parsed as JSON; the YAML parser is loaded only for
 * YAML, so a controller in a pod (no kubeconfig) or on a JSON kubeconfig never holds it in memory.
 */
export function parseKubeconfig(_file: string, text: string): unknown {
  if (text.trimStart().startsWith('{')) return JSON.parse(text);
  const { parse } = requireLazily('yaml') as typeof import('yaml');
  return parse(text);
}

/** The cluster to connect to (see the shared `loadClusterConfig`), kubeconfigs read with `parseKubeconfig`. */
export function loadClusterConfig(opts: ConfigSelection = {}): ClusterConfig {
  return selectCluster(opts, parseKubeconfig);
}
