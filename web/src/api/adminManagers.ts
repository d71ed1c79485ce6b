/**
 * The console's calls for managers (owner only), the signed-in manager's two-factor sign-in and the
 * audit log. Answers are checked against the shared contracts.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import {
  AdminManager,
  AuditEntry,
  MessageBody,
  ReauthAnswer,
  RecoveryCodes,
  TotpEnrolment,
  TotpStatus,
  paged,
  type ManagerPatchBody,
  type NewManagerBody,
  type Paged,
  type Role,
} from '@vpn/contracts';
import { listSearch, PAGE_SIZE } from './adminList';
import { authRequest } from './session';

export type { AdminManager, AuditEntry } from '@vpn/contracts';

const ManagerPage = paged(AdminManager);
const AuditPage = paged(AuditEntry);

export interface ManagerFilters {
  q: string;
  role: Role | '';
  page: number;
}

export interface AuditFilters {
  q: string;
  manager: string;
  target_type: string;
  target_id: string;
  page: number;
}

export const managerKeys = {
  all: ['manager', 'managers'] as const,
  list: (f: ManagerFilters) => ['manager', 'managers', f] as const,
  audit: ['manager', 'audit'] as const,
  auditList: (f: AuditFilters) => ['manager', 'audit', f] as const,
  totp: ['manager', 'me', 'totp'] as const,
};

export function managersQuery(f: ManagerFilters) {
  return queryOptions({
    queryKey: managerKeys.list(f),
    queryFn: ({ signal }): Promise<Paged<AdminManager>> =>
      authRequest(
        'manager',
        `/api/admin/managers${listSearch({ q: f.q, role: f.role, page: f.page, page_size: PAGE_SIZE })}`,
        { signal },
        ManagerPage,
      ),
    placeholderData: keepPreviousData,
  });
}

/** Every manager (for the audit page's filter): the first 100 by id. */
export function allManagersQuery() {
  return queryOptions({
    queryKey: [...managerKeys.all, 'every'] as const,
    queryFn: ({ signal }): Promise<Paged<AdminManager>> =>
      authRequest('manager', '/api/admin/managers?page_size=100', { signal }, ManagerPage),
  });
}

export const createManager = (body: NewManagerBody) =>
  authRequest('manager', '/api/admin/managers', { method: 'POST', body }, AdminManager);

export const updateManager = (id: number, body: ManagerPatchBody) =>
  authRequest('manager', `/api/admin/managers/${id}`, { method: 'PATCH', body }, AdminManager);

export const deleteManager = (id: number) =>
  authRequest('manager', `/api/admin/managers/${id}`, { method: 'DELETE' }, MessageBody);

export const resetManagerTotp = (id: number) =>
  authRequest('manager', `/api/admin/managers/${id}/totp`, { method: 'DELETE' }, MessageBody);

export function auditQuery(f: AuditFilters) {
  return queryOptions({
    queryKey: managerKeys.auditList(f),
    queryFn: ({ signal }): Promise<Paged<AuditEntry>> =>
      authRequest(
        'manager',
        `/api/admin/audit${listSearch({
          q: f.q,
          manager: f.manager,
          target_type: f.target_type,
          target_id: f.target_id,
          page: f.page,
          page_size: PAGE_SIZE,
        })}`,
        { signal },
        AuditPage,
      ),
    placeholderData: keepPreviousData,
  });
}

export function totpStatusQuery() {
  return queryOptions({
    queryKey: managerKeys.totp,
    queryFn: ({ signal }) => authRequest('manager', '/api/admin/me/totp', { signal }, TotpStatus),
  });
}

/** `POST /api/admin/me/reauth`: the password (and code) again before a sensitive operation. */
export const confirmReauth = (body: { password: string; code?: string }) =>
  authRequest('manager', '/api/admin/me/reauth', { method: 'POST', body }, ReauthAnswer);

export const startTotp = () =>
  authRequest('manager', '/api/admin/me/totp', { method: 'POST' }, TotpEnrolment);

export const confirmTotp = (code: string) =>
  authRequest('manager', '/api/admin/me/totp/confirm', { method: 'POST', body: { code } }, RecoveryCodes);

export const disableTotp = (proof: { code?: string; password?: string }) =>
  authRequest('manager', '/api/admin/me/totp', { method: 'DELETE', body: proof }, MessageBody);
