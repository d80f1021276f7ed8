/** The prefix of the labels cdk8s-zones itself puts on objects (zone, shard). */
export const LABEL_PREFIX = 'cdk8s-zones.dev';

/**
 * The recommended `app.kubernetes.io/*` labels of an object the library synthesizes: `name` is the
 * application (e.g. prometheus), `instance` the construct's name, `component` its part.
 */
export function standardLabels(name: string, instance: string, component: string): { [key: string]: string } {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/instance': instance,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/managed-by': 'cdk8s-zones',
  };
}
