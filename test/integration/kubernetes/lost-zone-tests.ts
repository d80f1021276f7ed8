/**
 * What the tier's lost-zone tests of real systems share: a pod's volume by its claim (a claim made again is a new,
 * empty volume), and the clean-up after a zone declared lost (its shift, the test's namespace, and the stand-in
 * labels, which go once the namespace's pods and claims do).
 */
import { deleteNamespace } from './examples';
import { KubeClient } from './kube-client';
import { waitFor } from './wait';
import { standInLabel } from '../../../src/contract/lost-zone';

const GROUP = 'cdk8s-zones.dev/v1alpha1';

/** The uid of the claim of a pod's first claim volume (`no-claim` without one): the folder its data is kept in. */
export function claimUidOf(client: KubeClient, namespace: string): (pod: any) => Promise<string> {
  return async (pod) => {
    const claim = pod.spec.volumes?.find((v: any) => v.persistentVolumeClaim)?.persistentVolumeClaim.claimName;
    const found = claim && await client.find<any>('v1', 'PersistentVolumeClaim', claim, namespace);
    return found?.metadata.uid ?? 'no-claim';
  };
}

/**
 * Deletes the shift `shift` and waits until its finalizer (the controller's, which must still run) let it go, deletes
 * `namespace`, and waits until no node carries the stand-in label of `zone`. Best effort: for an `afterAll`.
 */
export async function endLostZone(client: KubeClient, shift: string, namespace: string, zone: string): Promise<void> {
  await client.delete(GROUP, 'ZoneShift', shift).catch(() => undefined);
  await waitFor('the lost zone\'s shift gone', async () => ({ done: !(await client.find(GROUP, 'ZoneShift', shift)) }))
    .catch(() => undefined);
  await deleteNamespace(client, namespace);
  await waitFor('no node left with a stand-in label', async () => {
    const labelled = (await client.list<any>('v1', 'Node'))
      .filter((n) => n.metadata.labels?.[standInLabel(zone)] !== undefined);
    return { done: labelled.length === 0, state: labelled.map((n) => n.metadata.name).join(', ') };
  }, { timeoutMs: 60_000 }).catch(() => undefined);
}
