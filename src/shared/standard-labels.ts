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
