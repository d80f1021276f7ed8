import { ZoneTopology } from './zone-topology';
import { invalidProp } from '../shared/errors';
import { labelKeyProblem, labelValueProblem } from '../shared/kubernetes-names';
import { checkArg, Props } from '../shared/props';

/**
 * Builds node selectors (pure). The generated keys win over the user's value for the same key; every
 * other key of the user's selector is kept.
 */
export class NodeSelectors {
  /**
   * Merges a generated node selector into the user's: the generated value wins for the same key, every
   * other user key is kept. Both are validated as Kubernetes labels.
   */
  public static merge(
    generated: { [key: string]: string }, user?: { [key: string]: string },
  ): { [key: string]: string } {
    checkArg('NodeSelectors.merge', 'generated', generated, Props.mapOf(Props.string()));
    return mergeNodeSelector('NodeSelectors.merge', user, generated);
  }

  /** The user's node selector with the topology's zone (and region) labels for `zone` merged in. */
  public static forZone(
    topology: ZoneTopology, zone: string, user?: { [key: string]: string },
  ): { [key: string]: string } {
    checkArg('NodeSelectors.forZone', 'topology', topology, Props.instanceOf(ZoneTopology));
    return mergeNodeSelector('NodeSelectors.forZone', user, topology.nodeLabelsForZone(zone));
  }

  private constructor() {}
}

/** Merge with validation; `where` names the caller in error messages. */
export function mergeNodeSelector(
  where: string, user: { [key: string]: string } | undefined, generated: { [key: string]: string },
): { [key: string]: string } {
  checkArg(where, 'user', user, Props.optional(Props.mapOf(Props.string())));
  const merged: { [key: string]: string } = {};
  for (const [key, value] of Object.entries({ ...user, ...generated })) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) throw invalidProp(where, 'nodeSelector key', key, keyProblem);
    const valueProblem = labelValueProblem(value);
    if (valueProblem) throw invalidProp(where, `nodeSelector[${JSON.stringify(key)}]`, value, valueProblem);
    merged[key] = value;
  }
  return merged;
}
