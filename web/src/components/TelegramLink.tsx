/**
 * Linking a Telegram chat, the same for a customer (Ajustes) and a manager (Seguridad): "Vincular
 * Telegram" asks for a one-time t.me link and opens it (the bot confirms in the chat); until the
 * status says linked, the link can be opened again and "Ya lo vinculé" re-reads the status; once
 * linked, "Desvincular". Only the two pages import this module, so it travels in the chunk they
 * already share with their texts and calls (no extra file).
 */
import { useMutation, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import type { TelegramLink, TelegramStatus } from '../api/telegram';
import { esTelegram } from '../i18n/es.telegram';
import { ui } from './ui';

const c = esTelegram.customer;

interface TelegramLinking {
  /** The status query (the unlink answer replaces its data). */
  status: UseQueryResult<TelegramStatus>;
  key: readonly string[];
  link: () => Promise<TelegramLink>;
  unlink: () => Promise<TelegramStatus>;
  onError: (error: unknown) => void;
  /** False where the server would refuse linking anyway (a manager without two-factor). */
  canLink?: boolean;
}

/**
 * The linking state and its two pieces, for the page to place: `opened` (the "Se abrió Telegram…"
 * note with the link again, while the chat is not linked yet) and `button` (the one that fits).
 */
export function useTelegramLink({ status, key, link, unlink, onError, canLink = true }: TelegramLinking) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: link,
    onSuccess: (answer) => {
      setUrl(answer.url);
      window.open(answer.url, '_blank', 'noopener');
    },
    onError,
  });
  const stop = useMutation({
    mutationFn: unlink,
    onSuccess: (answer) => {
      queryClient.setQueryData(key, answer);
      setUrl(null);
      toast.success(c.unlinked);
    },
    onError,
  });
  const s = status.data;
  return {
    opened: (className: string) =>
      url &&
      !s?.linked && (
        <p role="status" className={className}>
          {c.opened}{' '}
          <a className={ui.link} href={url} target="_blank" rel="noopener noreferrer">
            {c.openAgain}
          </a>
        </p>
      ),
    button: s?.linked ? (
      <button
        type="button"
        className={ui.buttonSecondary}
        disabled={stop.isPending}
        onClick={() => stop.mutate()}
      >
        {c.unlink}
      </button>
    ) : url ? (
      <button type="button" className={ui.buttonSecondary} onClick={() => void status.refetch()}>
        {c.refresh}
      </button>
    ) : (
      s?.available && (
        <button
          type="button"
          className={ui.buttonPrimary}
          disabled={start.isPending || !canLink}
          onClick={() => start.mutate()}
        >
          {c.link}
        </button>
      )
    ),
  };
}
