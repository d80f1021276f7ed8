import { PROJECT_DOMAIN } from './labels';
import { checkArg, Props } from '../shared/props';

/**
 * The contract between the runtime controller's zone annotator and the pods that use it. Pure data, so
 * the controller (run time) and the constructs (synth time) share one definition.
 */
export class ZoneAnnotation {
  /** Pods opt in to the zone annotator with this label (value `enabled`). */
  public static readonly OPT_IN_LABEL = `${PROJECT_DOMAIN}/zone-annotation`;

  /** The value of `OPT_IN_LABEL` that opts a pod in. */
  public static readonly OPT_IN_VALUE = 'enabled';

  /**
   * The annotation the controller writes once the pod is bound: the node's values of the topology keys,
   * in the order of `KEYS_ANNOTATION`, joined with `_` (e.g. `eu-west-1a` or `region-1_eu-west-1a`).
   */
  public static readonly VALUE_ANNOTATION = `${PROJECT_DOMAIN}/zone`;

  /**
   * Optional pod annotation naming the node label keys to copy, comma-separated; without it the
   * controller uses its `--topology-keys` flag (by default `topology.kubernetes.io/zone`).
   */
  public static readonly KEYS_ANNOTATION = `${PROJECT_DOMAIN}/zone-keys`;

  /** The separator between the values of several topology keys. */
  public static readonly VALUE_SEPARATOR = '_';

  /** The node's values for `keys`, joined; `undefined` when the node lacks one of the keys (or it is empty). */
  public static valueFor(nodeLabels: Record<string, string>, keys: string[]): string | undefined {
    checkArg('ZoneAnnotation.valueFor', 'nodeLabels', nodeLabels, Props.mapOf(Props.string()));
    checkArg('ZoneAnnotation.valueFor', 'keys', keys, Props.arrayOf(Props.string()));
    const values = keys.map((key) => nodeLabels[key]);
    if (values.some((v) => v === undefined || v === '')) return undefined;
    return values.join(ZoneAnnotation.VALUE_SEPARATOR);
  }
}
