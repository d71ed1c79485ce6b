import { useMutation } from '@tanstack/react-query';
import type { Advertisement } from '@vpn/contracts';
import { useId, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import toast from 'react-hot-toast';
import { deleteAdvertisement, publishAdvertisement, publishClientVersion } from '../../api/admin';
import { errorMessage } from '../../api/http';
import { TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Spinner } from '../../components/Spinner';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { esTelegramManager } from '../../i18n/es.telegram.manager';
import { ManagerPageHeader } from './shared';

const t = esManager.content;

function Card({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className={`${ui.card} p-6`}>
      <h2 id={id} className="mb-4 text-lg font-semibold text-white">
        {title}
      </h2>
      {children}
    </section>
  );
}

function Submit({ busy, label }: { busy: boolean; label: string }) {
  return (
    <button type="submit" className={ui.buttonPrimary} disabled={busy}>
      {busy && <Spinner className="size-4" />}
      {label}
    </button>
  );
}

/** `/manager/dashboard/content`: announcements and client-app releases. */
export function ManagerContent() {
  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      <div className="grid gap-6 lg:grid-cols-2">
        <AnnouncementForm />
        <VersionForm />
      </div>
    </section>
  );
}

function AnnouncementForm() {
  const messageId = useId();
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const [telegram, setTelegram] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [published, setPublished] = useState<Advertisement[]>([]);
  const publish = useMutation({
    mutationFn: publishAdvertisement,
    onSuccess: (ad) => {
      setPublished((list) => [ad, ...list]);
      setName('');
      setMessage('');
      setTelegram(false);
      toast.success(t.announcementPublished);
    },
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });
  const withdraw = useMutation({
    mutationFn: (ad: Advertisement) => deleteAdvertisement(ad.id),
    onSuccess: (_, ad) => {
      setPublished((list) => list.filter((item) => item.id !== ad.id));
      toast.success(t.withdrawn);
    },
    onError: (err) => toast.error(errorMessage(err, esManager.requestError)),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim() || !message.trim()) return setError(t.announcementRequired);
    setError(null);
    publish.mutate({ name: name.trim(), message: message.trim(), ...(telegram ? { telegram } : {}) });
  }

  return (
    <Card title={t.announcementTitle}>
      <form noValidate onSubmit={submit} className="space-y-4">
        <FormError message={error} />
        <TextField
          label={t.announcementName}
          value={name}
          onChange={(e) => setName(e.target.value)}
          disabled={publish.isPending}
        />
        <div>
          <label htmlFor={messageId} className={ui.label}>
            {t.announcementMessage}
          </label>
          <textarea
            id={messageId}
            rows={4}
            className={ui.input}
            value={message}
            onChange={(e) => setMessage(e.target.value)}
            disabled={publish.isPending}
          />
        </div>
        <label className="flex items-start gap-2 text-sm text-slate-200">
          <input
            type="checkbox"
            className="mt-0.5 size-4 accent-emerald-500"
            checked={telegram}
            disabled={publish.isPending}
            onChange={(e) => setTelegram(e.target.checked)}
          />
          <span>
            {esTelegramManager.content.sendTelegram}
            <span className="block text-xs text-slate-400">{esTelegramManager.content.sendTelegramHint}</span>
          </span>
        </label>
        <Submit busy={publish.isPending} label={t.announcementSubmit} />
      </form>
      {published.length > 0 && (
        <div className="mt-6 border-t border-slate-800 pt-4">
          <h3 className="mb-2 text-sm font-medium text-slate-300">{t.publishedList}</h3>
          <ul className="space-y-2">
            {published.map((ad) => (
              <li key={ad.id} className="flex items-center justify-between gap-3 text-sm text-slate-200">
                <span>{ad.name}</span>
                <button
                  type="button"
                  className={`${ui.buttonGhost} text-sm`}
                  aria-label={t.withdrawLabel(ad.name)}
                  disabled={withdraw.isPending}
                  onClick={() => withdraw.mutate(ad)}
                >
                  {t.withdraw}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </Card>
  );
}

function VersionForm() {
  const [version, setVersion] = useState('');
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  const publish = useMutation({
    mutationFn: publishClientVersion,
    onSuccess: (_, body) => {
      setVersion('');
      setUrl('');
      toast.success(t.versionPublished(body.version));
    },
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!version.trim() || !url.trim()) return setError(t.versionRequired);
    setError(null);
    publish.mutate({ version: version.trim(), url: url.trim() });
  }

  return (
    <Card title={t.versionTitle}>
      <form noValidate onSubmit={submit} className="space-y-4">
        <FormError message={error} />
        <TextField
          label={t.version}
          placeholder="1.4.0"
          value={version}
          onChange={(e) => setVersion(e.target.value)}
          disabled={publish.isPending}
        />
        <TextField
          label={t.url}
          type="url"
          placeholder="https://"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          disabled={publish.isPending}
        />
        <Submit busy={publish.isPending} label={t.versionSubmit} />
      </form>
    </Card>
  );
}
