/**
 * A fake zonal volume provisioner, so StatefulSets with volume claims schedule as they do on a cloud
 * with zonal disks (EBS, PD): the default StorageClass binds on first consumer; once the scheduler has
 * picked a node for the pod and annotated the claim, this creates a PersistentVolume of the requested size
 * pinned to that node's zone (a `local` volume on a path nothing ever reads). A pod that comes back later
 * is therefore held to the zone of its volume, and Pending while that zone is gone.
 *
 * It polls (no watch to keep alive) from the process that started the control plane, and deletes the
 * volumes it made once they are released.
 */
import { KubeClient, KubeObject } from './kube-client';
import { REGION_KEY, ZONE_KEY } from './nodes';

export const PROVISIONER = 'cdk8s-zones.test/fake-zonal';
export const STORAGE_CLASS = 'fake-zonal';
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';

/** The default StorageClass of the test cluster. */
export function storageClassObject(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
  };
}

function volumeFor(claim: any, node: any, reclaimPolicy: string): KubeObject {
  const zone = node.metadata.labels?.[ZONE_KEY];
  const region = node.metadata.labels?.[REGION_KEY];
  const name = `pvc-${claim.metadata.uid}`;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name,
      labels: { [ZONE_KEY]: zone, ...(region ? { [REGION_KEY]: region } : {}) },
      annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER },
    },
    spec: {
      capacity: { storage: claim.spec.resources.requests.storage },
      accessModes: claim.spec.accessModes,
      volumeMode: claim.spec.volumeMode ?? 'Filesystem',
      storageClassName: claim.spec.storageClassName,
      persistentVolumeReclaimPolicy: reclaimPolicy,
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: claim.metadata.namespace,
        name: claim.metadata.name,
        uid: claim.metadata.uid,
      },
      local: { path: `/var/lib/fake-zonal/${name}` },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [zone] }] }] },
      },
    },
  };
}

export class FakeZonalProvisioner {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** The last error of a pass (the next pass retries); the control plane reports it when it stops. */
  public lastError?: string;

  constructor(private readonly client: KubeClient, private readonly intervalMs = 500) {}

  public start(): void {
    const tick = () => {
      this.running = this.pass()
        .then(() => { this.lastError = undefined; })
        .catch((err) => { this.lastError = err.message; })
        .finally(() => { if (this.timer) this.timer = setTimeout(tick, this.intervalMs); });
    };
    this.timer = setTimeout(tick, 0);
  }

  public async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass: provision for every claim the scheduler has placed, delete released volumes. */
  public async pass(): Promise<void> {
    const classes = new Map((await this.client.list('storage.k8s.io/v1', 'StorageClass'))
      .filter((c: any) => c.provisioner === PROVISIONER).map((c: any) => [c.metadata.name, c]));
    const waiting = (await this.client.list('v1', 'PersistentVolumeClaim'))
      .filter((c: any) => !c.spec.volumeName
        && classes.has(c.spec.storageClassName)
        && c.metadata.annotations?.[SELECTED_NODE]);
    for (const claim of waiting) {
      const node = await this.client.find('v1', 'Node', claim.metadata.annotations[SELECTED_NODE]);
      if (!node) continue; // the node went away; the scheduler will pick another one
      try {
        const storageClass = classes.get(claim.spec.storageClassName) as any;
        await this.client.create(volumeFor(claim, node, storageClass.reclaimPolicy ?? 'Delete'));
      } catch (err: any) {
        if (err.status !== 409) throw err; // 409: made by an earlier pass, the PV controller binds it
      }
    }
    for (const pv of await this.client.list('v1', 'PersistentVolume')) {
      const ours = pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] === PROVISIONER;
      if (ours && pv.status?.phase === 'Released' && pv.spec.persistentVolumeReclaimPolicy === 'Delete') {
        await this.client.delete('v1', 'PersistentVolume', pv.metadata.name);
      }
    }
  }
}
