import { k8s } from 'cdk8s-plus-28';

/**
 * The container security context every synthesized container gets: what Pod Security "restricted"
 * requires (no privilege escalation, non-root, no capabilities, RuntimeDefault seccomp), plus a
 * read-only root filesystem (writable paths are mounted volumes).
 */
export function restrictedContainerSecurity(): k8s.SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/**
 * The pod security context of a workload whose image runs as `uid` (numeric, so the kubelet can check
 * runAsNonRoot); `fsGroup` makes mounted volumes writable by that group.
 */
export function restrictedPodSecurity(uid: number, fsGroup?: number): k8s.PodSecurityContext {
  return { runAsNonRoot: true, runAsUser: uid, runAsGroup: uid, fsGroup, seccompProfile: { type: 'RuntimeDefault' } };
}

/** `nobody`, the unprivileged user the Prometheus image runs as. */
export const NOBODY_UID = 65534;
