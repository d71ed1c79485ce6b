import { Info } from 'lucide-react';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useCurrentUser } from './DashboardLayout';
import { PageHeader } from './PageHeader';

/**
 * `/dashboard/settings`: the account's data as the server reports it. Username is read-only; alias
 * only where rooms are allowed, email only where email is allowed. The edit dialogs arrive later.
 */
export function AccountSettings() {
  const user = useCurrentUser();
  const t = es.dashboard.settings;
  const rows: { label: string; value: string; note?: string }[] = [
    { label: t.username, value: user.username },
  ];
  if (user.web_settings.allow_partys) rows.push({ label: t.alias, value: user.alias ?? t.notSet });
  if (user.web_settings.allow_email) {
    rows.push({
      label: t.email,
      value: user.email ?? t.notSet,
      note: user.email ? (user.email_verified ? t.verified : t.notVerified) : undefined,
    });
  }
  rows.push({ label: t.password, value: '••••••••' });

  return (
    <>
      <PageHeader title={t.title} subtitle={t.subtitle} />
      <div className={`${ui.card} divide-y divide-slate-800`}>
        <dl>
          {rows.map((row) => (
            <div key={row.label} className="grid gap-1 px-6 py-4 sm:grid-cols-3">
              <dt className="text-sm font-medium text-slate-400">{row.label}</dt>
              <dd className="flex items-center gap-2 text-slate-100 sm:col-span-2">
                {row.value}
                {row.note && (
                  <span className="rounded-full bg-white/5 px-2 py-0.5 text-xs text-slate-300">
                    {row.note}
                  </span>
                )}
              </dd>
            </div>
          ))}
        </dl>
        <p className="flex items-center gap-2 px-6 py-4 text-sm text-slate-400">
          <Info className="size-4 shrink-0" aria-hidden="true" />
          {t.editSoon}
        </p>
      </div>
    </>
  );
}
