/** Ajustes → Uso simultáneo (issue 19): the policy for peers in use on more than one device. */
import { queryOptions } from '@tanstack/react-query';
import type { ConcurrentUsePolicy, ConcurrentUsePolicyPatch } from '@vpn/contracts';
import { authRequest } from './session';

export type { ConcurrentUsePolicy } from '@vpn/contracts';

const PATH = '/api/admin/settings/concurrent-use';
export const concurrentUseKey = ['manager', 'settings', 'concurrent-use'] as const;

export function concurrentUsePolicyQuery() {
  return queryOptions({
    queryKey: concurrentUseKey,
    queryFn: ({ signal }) => authRequest<ConcurrentUsePolicy>('manager', PATH, { signal }),
  });
}

export function patchConcurrentUsePolicy(body: ConcurrentUsePolicyPatch): Promise<ConcurrentUsePolicy> {
  return authRequest<ConcurrentUsePolicy>('manager', PATH, { method: 'PATCH', body });
}
