import { toLabelValue } from './kubernetes-names';

/** The recommended label naming the tool that manages an object, and its value on the library's own objects. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'cdk8s-zones';

/** The label Kubernetes sets on every namespace to its name: a selector names namespaces with it. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

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
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
  };
}
