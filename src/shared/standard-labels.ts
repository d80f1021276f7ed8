import { toLabelValue } from './kubernetes-names';

/**
 * The recommended `app.kubernetes.io/*` labels of an object the library synthesizes: `name` is the
 * application (e.g. prometheus), `instance` the construct's name, `component` its part. A value that is
 * not a valid label value (an object name longer than 63 characters, a construct id) is made one.
 */
export function standardLabels(name: string, instance: string, component: string): { [key: string]: string } {
  return {
    'app.kubernetes.io/name': toLabelValue(name),
    'app.kubernetes.io/instance': toLabelValue(instance),
    'app.kubernetes.io/component': toLabelValue(component),
    'app.kubernetes.io/managed-by': 'cdk8s-zones',
  };
}
