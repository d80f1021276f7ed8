/**
 * The operators' resources the check models (one row each, in rows/), and the resources that belong to another's
 * system (Strimzi's node pools are read through their Kafka).
 */
import { OperatorModel } from './model';
import { CASS_OPERATOR_DATACENTER } from './rows/cass-operator';
import { CRUNCHY_POSTGRES_CLUSTER } from './rows/crunchy-pgo';
import { ECK_ELASTICSEARCH } from './rows/eck';
import { MONGODB_COMMUNITY } from './rows/mongodb-community';
import { OT_REDIS_CLUSTER, OT_REDIS_REPLICATION, OT_REDIS_SENTINEL } from './rows/ot-redis';
import { RABBITMQ_CLUSTER } from './rows/rabbitmq';
import { SPOTAHOME_REDIS_FAILOVER } from './rows/spotahome-redis';
import { STRIMZI_KAFKA } from './rows/strimzi';
import { VICTORIAMETRICS_CLUSTER } from './rows/victoriametrics';
import { ZALANDO_POSTGRESQL } from './rows/zalando-postgres';
import { asResource, KindedResource } from '../../kubernetes/objects';

export const OPERATOR_MODELS: readonly OperatorModel[] = [
  STRIMZI_KAFKA, ECK_ELASTICSEARCH, RABBITMQ_CLUSTER, MONGODB_COMMUNITY, CASS_OPERATOR_DATACENTER,
  CRUNCHY_POSTGRES_CLUSTER, ZALANDO_POSTGRESQL,
  SPOTAHOME_REDIS_FAILOVER, OT_REDIS_CLUSTER, OT_REDIS_REPLICATION, OT_REDIS_SENTINEL,
  VICTORIAMETRICS_CLUSTER,
];

/** A kind whose resources are parts of another resource's system: the label that names the owner. */
interface PartKind {
  readonly group: string;
  readonly kind: string;
  readonly ownerKind: string;
  readonly ownerLabel: string;
}

const PART_KINDS: readonly PartKind[] = [
  { group: 'kafka.strimzi.io', kind: 'KafkaNodePool', ownerKind: 'Kafka', ownerLabel: 'strimzi.io/cluster' },
];

const groupOf = (o: KindedResource) => (typeof o.apiVersion === 'string' ? o.apiVersion.split('/')[0] : '');

/** The model of `o`'s kind, if the check has one. */
export function modelFor(o: KindedResource): OperatorModel | undefined {
  const group = groupOf(o);
  return OPERATOR_MODELS.find((m) => m.group === group && m.kind === o.kind);
}

/**
 * For a part of another resource's system: undefined when its owner is in the input (the owner reads it), else why it
 * is not checked; not a part: null.
 */
export function partOwnerMissing(o: KindedResource, others: readonly unknown[]): string | undefined | null {
  const group = groupOf(o);
  const part = PART_KINDS.find((p) => p.group === group && p.kind === o.kind);
  if (part === undefined) return null;
  const owner = o.metadata?.labels?.[part.ownerLabel];
  const found = typeof owner === 'string' && others.some((other) => {
    const r = asResource(other);
    return r?.kind === part.ownerKind && groupOf(r) === part.group && r.metadata?.name === owner
      && r.metadata?.namespace === o.metadata?.namespace;
  });
  return found ? undefined
    : `is part of ${part.ownerKind} ${typeof owner === 'string' ? owner : '(no ' + part.ownerLabel + ' label)'}, which is not in the input`;
}
