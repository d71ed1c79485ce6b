/**
 * Human verification for the register form: the self-hosted ALTCHA widget (default) or Cloudflare
 * Turnstile, as the runtime config says. Either way the form gets `onToken(token | null)` and a
 * `reset()` handle (the spec resets the captcha after every attempt; tokens are single use).
 */
import { useEffect, useImperativeHandle, useRef, useState } from 'react';
import type { Ref } from 'react';
import { useRuntimeConfig } from '../config/runtime';
import { es } from '../i18n/es';

export interface CaptchaHandle {
  reset(): void;
}

interface CaptchaProps {
  onToken: (token: string | null) => void;
  ref?: Ref<CaptchaHandle>;
  /**
   * Added to the ALTCHA challenge's URL by the login forms (`username=…`, `realm=manager`): the
   * server makes the proof of work longer while failures for that account go on.
   */
  query?: string;
  /**
   * Solves itself (ALTCHA's own `auto="onload"`: the proof of work starts as soon as the widget has
   * loaded, at the visitor's first touch of the form), and again after every reset: no "No soy un
   * robot" to tick (issue 32). Turnstile decides by itself anyway.
   */
  auto?: boolean;
}

export function Captcha({ onToken, ref, query, auto = false }: CaptchaProps) {
  const { captcha } = useRuntimeConfig();
  if (captcha.provider === 'turnstile')
    return <TurnstileCaptcha siteKey={captcha.site_key} onToken={onToken} ref={ref} />;
  const base = captcha.challenge_url;
  const url = query ? `${base}${base.includes('?') ? '&' : '?'}${query}` : base;
  return <AltchaCaptcha challengeUrl={url} onToken={onToken} ref={ref} auto={auto} />;
}

/** Keeps the latest callback without re-subscribing listeners on every render. */
function useLatest<T>(value: T) {
  const ref = useRef(value);
  useEffect(() => {
    ref.current = value;
  }, [value]);
  return ref;
}

function CaptchaLoadError() {
  return (
    <p role="alert" className="text-sm text-red-300">
      {es.captcha.loadError}
    </p>
  );
}

// ---------------------------------------------------------------------------------------------
// ALTCHA

const INTERACTIONS = ['focusin', 'pointerdown', 'keydown', 'touchstart'] as const;
let interacted: Promise<void> | null = null;

/**
 * Resolves at the visitor's first focus, key or touch on the page (at once if a field already has
 * the focus). A visitor fills the form before the captcha matters, so the ~20 KiB widget is not part
 * of the page's first load on mobile data.
 */
function firstInteraction(): Promise<void> {
  interacted ??= new Promise<void>((resolve) => {
    const active = document.activeElement;
    if (active && active !== document.body) return resolve();
    const done = () => {
      for (const type of INTERACTIONS) document.removeEventListener(type, done, true);
      resolve();
    };
    for (const type of INTERACTIONS) document.addEventListener(type, done, { capture: true, passive: true });
  });
  return interacted;
}

let widgetModule: Promise<unknown> | null = null;

/** One download of the widget for the whole page, however many forms mount it (retried after a failure). */
function loadWidget(): Promise<unknown> {
  widgetModule ??= firstInteraction()
    .then(() => import('altcha'))
    .catch((error: unknown) => {
      widgetModule = null;
      throw error;
    });
  return widgetModule;
}

interface AltchaStateDetail {
  state?: string;
  payload?: string;
}

type AltchaElement = HTMLElement & { reset?: () => void; verify?: () => Promise<unknown> };

const ALTCHA_STRINGS = JSON.stringify(es.captcha.altchaStrings);

function AltchaCaptcha({
  challengeUrl,
  onToken,
  ref,
  auto,
}: {
  challengeUrl: string;
  onToken: (token: string | null) => void;
  ref?: Ref<CaptchaHandle>;
  auto: boolean;
}) {
  const widget = useRef<HTMLElement>(null);
  const latest = useLatest(onToken);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    // Loaded on demand: only the register page pays for the widget (and its proof-of-work worker),
    // and only once the visitor starts on the form, so the page's first load stays small.
    loadWidget().catch((error: unknown) => {
      console.error(error);
      setFailed(true);
    });
  }, []);

  useEffect(() => {
    const node = widget.current;
    if (!node) return;
    const onStateChange = (event: Event) => {
      const detail = (event as CustomEvent<AltchaStateDetail>).detail;
      latest.current(detail?.state === 'verified' && detail.payload ? detail.payload : null);
    };
    node.addEventListener('statechange', onStateChange);
    return () => node.removeEventListener('statechange', onStateChange);
  }, [latest]);

  useImperativeHandle(ref, () => ({
    reset() {
      const node = widget.current as AltchaElement | null;
      if (typeof node?.reset === 'function') node.reset();
      // `auto="onload"` solves once, when the widget loads: a new solution is started here.
      if (auto && typeof node?.verify === 'function') void node.verify().catch(() => undefined);
    },
  }));

  if (failed) return <CaptchaLoadError />;
  return (
    <div className="min-h-16">
      {/* data-testid: the widget renders its own checkbox; browser tests reach it through this. */}
      <altcha-widget
        ref={widget}
        challengeurl={challengeUrl}
        auto={auto ? 'onload' : undefined}
        strings={ALTCHA_STRINGS}
        data-testid="captcha"
      />
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Cloudflare Turnstile

interface TurnstileOptions {
  sitekey: string;
  language?: string;
  theme?: 'light' | 'dark' | 'auto';
  callback?: (token: string) => void;
  'expired-callback'?: () => void;
  'error-callback'?: () => void;
}

interface TurnstileApi {
  render(container: HTMLElement, options: TurnstileOptions): string | undefined;
  reset(widgetId?: string): void;
  remove(widgetId: string): void;
}

declare global {
  interface Window {
    turnstile?: TurnstileApi;
  }
}

const TURNSTILE_SRC = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
let turnstileScript: Promise<TurnstileApi> | null = null;

/** Injects Cloudflare's script once (only when Turnstile is the configured provider). */
function loadTurnstile(): Promise<TurnstileApi> {
  if (window.turnstile) return Promise.resolve(window.turnstile);
  turnstileScript ??= new Promise<TurnstileApi>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = TURNSTILE_SRC;
    script.async = true;
    script.onload = () => (window.turnstile ? resolve(window.turnstile) : reject(new Error('turnstile')));
    script.onerror = () => {
      turnstileScript = null;
      reject(new Error('turnstile'));
    };
    document.head.appendChild(script);
  });
  return turnstileScript;
}

function TurnstileCaptcha({
  siteKey,
  onToken,
  ref,
}: {
  siteKey: string;
  onToken: (token: string | null) => void;
  ref?: Ref<CaptchaHandle>;
}) {
  const container = useRef<HTMLDivElement>(null);
  const widgetId = useRef<string | undefined>(undefined);
  const latest = useLatest(onToken);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let cancelled = false;
    loadTurnstile()
      .then((api) => {
        if (cancelled || !container.current) return;
        widgetId.current = api.render(container.current, {
          sitekey: siteKey,
          language: 'es',
          theme: 'dark',
          callback: (token) => latest.current(token),
          'expired-callback': () => latest.current(null),
          'error-callback': () => latest.current(null),
        });
      })
      .catch(() => {
        if (!cancelled) setFailed(true);
      });
    return () => {
      cancelled = true;
      if (widgetId.current && window.turnstile) window.turnstile.remove(widgetId.current);
      widgetId.current = undefined;
    };
  }, [siteKey, latest]);

  useImperativeHandle(ref, () => ({
    reset() {
      if (widgetId.current && window.turnstile) window.turnstile.reset(widgetId.current);
    },
  }));

  if (failed) return <CaptchaLoadError />;
  return <div ref={container} className="min-h-16" />;
}
