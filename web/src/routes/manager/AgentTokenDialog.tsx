import { TriangleAlert } from 'lucide-react';
import { CopyButton } from '../../components/CopyButton';
import { Modal } from '../../components/Modal';
import { esManager } from '../../i18n/es.manager';

const t = esManager.servers.token;

export interface ShownToken {
  serverName: string;
  token: string;
}

/**
 * The agent token, shown once (after creating a server or rotating its token): the token, the agent
 * command line for this site, copy buttons and the warning that it will not be shown again. Closing
 * the dialog drops the token from memory.
 */
export function AgentTokenDialog({ shown, onClose }: { shown: ShownToken | null; onClose: () => void }) {
  const command = shown ? t.command(window.location.origin, shown.token) : '';
  return (
    <Modal
      open={shown !== null}
      onOpenChange={(open) => (open ? undefined : onClose())}
      title={t.title}
      description={shown ? t.description(shown.serverName) : undefined}
    >
      {shown && (
        <div className="space-y-5">
          <p
            role="alert"
            className="flex items-start gap-2 rounded-lg border border-amber-500/40 bg-amber-500/10 px-3 py-2.5 text-sm text-amber-200"
          >
            <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            {t.warning}
          </p>
          <Block label={t.tokenLabel} value={shown.token} copy={t.copyToken} copied={t.tokenCopied} />
          <Block label={t.commandLabel} value={command} copy={t.copyCommand} copied={t.commandCopied} />
        </div>
      )}
    </Modal>
  );
}

function Block({
  label,
  value,
  copy,
  copied,
}: {
  label: string;
  value: string;
  copy: string;
  copied: string;
}) {
  return (
    <div>
      <div className="mb-1.5 flex items-center justify-between gap-3">
        <h3 className="text-sm font-medium text-slate-200">{label}</h3>
        <CopyButton
          text={value}
          label={t.copy}
          copiedLabel={t.copied}
          ariaLabel={copy}
          ariaCopiedLabel={copied}
          successToast={t.copiedToast}
          errorToast={t.copyError}
        />
      </div>
      <code
        aria-label={label}
        className="block rounded-lg border border-slate-700 bg-navy-950/80 px-3 py-2.5 font-mono text-sm break-all text-emerald-200"
      >
        {value}
      </code>
    </div>
  );
}
