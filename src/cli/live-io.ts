/** What the CLI's live commands (`shift`, `drill`) take from outside: the API, the output, the clock, Ctrl-C. */
import { KubeApi } from '../kubernetes/kube-api';

/**
 * What the live commands need from outside: the API (of `--kubeconfig`, or as kubectl chooses), the output, the clock
 * and a way to wait.
 */
export interface LiveIo {
  readonly connect: (kubeconfig: string | undefined) => KubeApi;
  readonly stdout: (s: string) => void;
  /** Progress, apart from the report on stdout. */
  readonly stderr: (s: string) => void;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** True once the user asked to stop (Ctrl-C). */
  readonly interrupted: () => boolean;
}

/** Runs `use` on the API of `kubeconfig`, and closes it after. */
export async function withApi<T>(
  io: LiveIo, kubeconfig: string | undefined, use: (api: KubeApi) => Promise<T>,
): Promise<T> {
  const api = io.connect(kubeconfig);
  try {
    return await use(api);
  } finally {
    api.close();
  }
}
