/**
 * NetworkPolicies the constructs emit by default: each workload admits only the traffic it needs (its own
 * pods, the clients the user names, the controller), on the ports that traffic uses. Ingress only: egress
 * stays open (Prometheus scrapes everywhere, every pod resolves DNS), and a policy that forgot an egress
 * path would break the workload in ways no synth-time check can see.
 */
import { Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { KubeProps } from './kubernetes-props';
import { NAMESPACE_NAME_LABEL } from './standard-labels';
import { invalidProp } from '../shared/errors';
import { Props, PropSpec } from '../shared/props';

/**
 * Pods that may connect, as a NetworkPolicy names them: by namespace labels, pod labels or both. `{}` is
 * every pod of the workload's own namespace.
 */
export interface NetworkPeer {
  /**
   * Namespaces by label (`kubernetes.io/metadata.name` names one); `{}` is every namespace.
   *
   * @default - the workload's own namespace
   */
  readonly namespaceLabels?: { [key: string]: string };

  /**
   * Pods by label, in the namespaces `namespaceLabels` chooses.
   *
   * @default - every pod of those namespaces
   */
  readonly podLabels?: { [key: string]: string };
}

/** The NetworkPolicies a construct emits, and who may connect to the ports it serves clients on. */
export interface NetworkPolicyOptions {
  /**
   * Emit the NetworkPolicies. Turn it off only when something else isolates the pods (a mesh, policies
   * written by hand): without them any pod in the cluster may connect.
   *
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * Who may connect to the ports the construct serves clients on (each construct's docs say which).
   * The construct's own pods and the runtime controller always may where they need to. An empty list lets
   * no other pod connect.
   *
   * @default - every pod of the construct's namespace
   */
  readonly clients?: NetworkPeer[];
}

const PEER_PROPS: PropSpec<NetworkPeer> = {
  namespaceLabels: Props.optional(KubeProps.labels()),
  podLabels: Props.optional(KubeProps.labels()),
};

/** The check of a `networkPolicy` prop. */
export const NETWORK_POLICY_PROPS: PropSpec<NetworkPolicyOptions> = {
  enabled: Props.optional(Props.boolean()),
  clients: Props.optional(Props.arrayOf(Props.struct(PEER_PROPS, 'NetworkPeer'))),
};

/** Every pod of the workload's own namespace: the default `clients`. */
const SAME_NAMESPACE: NetworkPeer = {};

/** A NetworkPolicy peer for `peer`. */
export function toPolicyPeer(peer: NetworkPeer): k8s.NetworkPolicyPeer {
  return {
    ...(peer.namespaceLabels !== undefined ? { namespaceSelector: { matchLabels: peer.namespaceLabels } } : {}),
    podSelector: { matchLabels: peer.podLabels ?? {} },
  };
}

/** The pods with `podLabels` in the namespace named `namespace`. */
export function podsInNamespace(namespace: string, podLabels: { [key: string]: string }): NetworkPeer {
  return { namespaceLabels: { [NAMESPACE_NAME_LABEL]: namespace }, podLabels };
}

/** Who may connect, for one group of ports. */
export type IngressSources =
  /** Any source, in or out of the cluster (the API server calling a webhook has no pod labels). */
  | 'anywhere'
  /**
   * The peers listed (an empty list admits nobody: the rule is left out, as one without peers would admit everyone).
   */
  | readonly NetworkPeer[]
  /** The peers, known only when the app is synthesized (e.g. the app's controller, created after the workload). */
  | (() => readonly NetworkPeer[]);

/** Ports and who may connect to them. */
export interface IngressRule {
  /** Container port numbers or names. */
  readonly ports: ReadonlyArray<number | string>;
  readonly from: IngressSources;
}

export interface WorkloadPolicy {
  readonly name: string;
  readonly namespace?: string;
  readonly labels: { [key: string]: string };
  /** The pods the policy isolates. */
  readonly podSelector: { [key: string]: string };
  readonly ingress: readonly IngressRule[];
}

/** The client peers of `options` (the construct's namespace when not given). */
export function clientPeers(options: NetworkPolicyOptions | undefined): readonly NetworkPeer[] {
  return options?.clients ?? [SAME_NAMESPACE];
}

/**
 * Emits the NetworkPolicy that isolates a workload's pods to `policy.ingress`, unless `options` turns
 * policies off. A rule whose peers are an empty list admits nobody, so it is left out (an ingress rule
 * without `from` would admit everyone).
 */
export function emitNetworkPolicy(
  scope: Construct, id: string, where: string, options: NetworkPolicyOptions | undefined, policy: WorkloadPolicy,
): void {
  if (options?.enabled === false) {
    if (options.clients !== undefined) {
      throw invalidProp(where, 'networkPolicy.clients', options.clients, 'is set while networkPolicy.enabled is false: nothing would restrict who connects');
    }
    return;
  }
  const ingress = (): k8s.NetworkPolicyIngressRule[] => policy.ingress.flatMap((rule) => {
    const ports = rule.ports.map((port) => ({
      protocol: 'TCP',
      port: typeof port === 'number' ? k8s.IntOrString.fromNumber(port) : k8s.IntOrString.fromString(port),
    }));
    if (rule.from === 'anywhere') return [{ ports }];
    const peers = typeof rule.from === 'function' ? rule.from() : rule.from;
    return peers.length > 0 ? [{ ports, from: peers.map(toPolicyPeer) }] : [];
  });
  new k8s.KubeNetworkPolicy(scope, id, {
    metadata: { name: policy.name, namespace: policy.namespace, labels: policy.labels },
    spec: {
      podSelector: { matchLabels: policy.podSelector },
      policyTypes: ['Ingress'],
      ingress: Lazy.any({ produce: ingress }),
    },
  });
}
