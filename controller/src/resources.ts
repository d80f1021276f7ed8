/**
 * Every kind of object the controller reads or writes, built-in or ours, declared once: its API version, its
 * plural (the REST path) and whether it lives in namespaces. Reconcilers, webhooks, the lease and the Events
 * name them from here, and so do the watches they declare.
 */
import type { Resource } from './kube/api';
import { ZONE_AWARE_UPDATE_PLURAL, ZONE_DISRUPTION_BUDGET_PLURAL, ROLLOUT_API_VERSION } from '../../src/contract/rollout';
import { ZONE_AUTOSHIFT_PLURAL } from '../../src/contract/zone-autoshift';
import { ZONE_SHIFT_PLURAL } from '../../src/contract/zone-shift';
import { KARPENTER_GROUP, NODE_POOL_PLURAL } from '../../src/contract/zone-shift-node-pools';

export const PODS: Resource = { apiVersion: 'v1', plural: 'pods', namespaced: true };
export const NODES: Resource = { apiVersion: 'v1', plural: 'nodes', namespaced: false };
export const SERVICES: Resource = { apiVersion: 'v1', plural: 'services', namespaced: true };
export const EVENTS: Resource = { apiVersion: 'v1', plural: 'events', namespaced: true };
export const SECRETS: Resource = { apiVersion: 'v1', plural: 'secrets', namespaced: true };
export const CONFIGMAPS: Resource = { apiVersion: 'v1', plural: 'configmaps', namespaced: true };
export const VOLUMES: Resource = { apiVersion: 'v1', plural: 'persistentvolumes', namespaced: false };
export const CLAIMS: Resource = { apiVersion: 'v1', plural: 'persistentvolumeclaims', namespaced: true };
export const LEASES: Resource = { apiVersion: 'coordination.k8s.io/v1', plural: 'leases', namespaced: true };
export const STATEFULSETS: Resource = { apiVersion: 'apps/v1', plural: 'statefulsets', namespaced: true };
export const DEPLOYMENTS: Resource = { apiVersion: 'apps/v1', plural: 'deployments', namespaced: true };
export const REPLICASETS: Resource = { apiVersion: 'apps/v1', plural: 'replicasets', namespaced: true };
export const VALIDATING_WEBHOOK_CONFIGURATIONS: Resource = {
  apiVersion: 'admissionregistration.k8s.io/v1', plural: 'validatingwebhookconfigurations', namespaced: false,
};

/** Ours (src/contract): cluster-wide, as a zone is. */
export const ZONE_SHIFTS: Resource = { apiVersion: ROLLOUT_API_VERSION, plural: ZONE_SHIFT_PLURAL, namespaced: false };
export const ZONE_AUTOSHIFTS: Resource = {
  apiVersion: ROLLOUT_API_VERSION, plural: ZONE_AUTOSHIFT_PLURAL, namespaced: false,
};
export const ZONE_AWARE_UPDATES: Resource = {
  apiVersion: ROLLOUT_API_VERSION, plural: ZONE_AWARE_UPDATE_PLURAL, namespaced: true,
};
export const ZONE_DISRUPTION_BUDGETS: Resource = {
  apiVersion: ROLLOUT_API_VERSION, plural: ZONE_DISRUPTION_BUDGET_PLURAL, namespaced: true,
};
/** Karpenter's NodePools: the zonal shift leaves shifted zones out of them (`--shift-karpenter-node-pools`). */
export const NODE_POOLS: Resource = { apiVersion: `${KARPENTER_GROUP}/v1`, plural: NODE_POOL_PLURAL, namespaced: false };
