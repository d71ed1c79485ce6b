/**
 * Runtime configuration: company name, captcha provider, support and public URLs. It is served by the
 * control plane at `/config.json` and read once before the first render, so one build serves every
 * deployment (nothing is baked in at build time).
 */
import { createContext, useContext } from 'react';
import type { ReactNode } from 'react';
import type { Plan, PublicSettings } from '@vpn/contracts';
import type { RuntimeConfig } from '@vpn/contracts';
import { es } from '../i18n/es';

export const DEFAULT_CONFIG: RuntimeConfig = {
  company_name: es.appName,
  support_url: null,
  public_url: null,
  captcha: { provider: 'altcha', challenge_url: '/api/client/captcha' },
};

/**
 * Fetches `/config.json`. A missing or malformed file must not leave a blank page: it falls back to
 * the defaults (company name "VPN Service", self-hosted ALTCHA) and says so in the console.
 */
export async function loadRuntimeConfig(fetchImpl: typeof fetch = fetch): Promise<RuntimeConfig> {
  try {
    const res = await fetchImpl('/config.json', {
      headers: { Accept: 'application/json' },
      cache: 'no-cache',
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    // The schemas (and zod) are fetched only here: pages served by the control plane carry the
    // configuration inline and never need them.
    const { RuntimeConfig } = await import('@vpn/contracts');
    const parsed = RuntimeConfig.safeParse(await res.json());
    if (!parsed.success) throw parsed.error;
    return {
      ...parsed.data,
      company_name: parsed.data.company_name.trim() || DEFAULT_CONFIG.company_name,
    };
  } catch (error) {
    console.warn('No se pudo leer /config.json; se usa la configuración por defecto.', error);
    return DEFAULT_CONFIG;
  }
}

/** What the control plane writes inline into every page it serves (`server/src/plugins/webPages.ts`). */
export interface BootData {
  config: RuntimeConfig;
  settings?: PublicSettings;
  plans?: Plan[];
}

/**
 * The inline boot data of the page (`<script id="vpn-boot" type="application/json">`), or null when
 * there is none or it cannot be read (then the SPA asks /config.json and the API as before).
 */
export function readBootData(doc: Document): BootData | null {
  const text = doc.getElementById('vpn-boot')?.textContent;
  if (!text) return null;
  try {
    const data = JSON.parse(text) as BootData;
    if (!data?.config?.company_name) return null;
    return data;
  } catch (error) {
    console.warn('Datos de arranque ilegibles; se piden al servidor.', error);
    return null;
  }
}

const RuntimeConfigContext = createContext<RuntimeConfig>(DEFAULT_CONFIG);

export function RuntimeConfigProvider({ value, children }: { value: RuntimeConfig; children: ReactNode }) {
  return <RuntimeConfigContext.Provider value={value}>{children}</RuntimeConfigContext.Provider>;
}

export function useRuntimeConfig(): RuntimeConfig {
  return useContext(RuntimeConfigContext);
}
