import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../test/api';
import { renderApp } from '../test/render';

vi.mock('altcha', () => ({}));

interface RenderOptions {
  sitekey: string;
  callback?: (token: string) => void;
}

const turnstileConfig = {
  company_name: 'VPN Service',
  support_url: null,
  public_url: null,
  captcha: { provider: 'turnstile' as const, site_key: '0x4AAAA-site' },
};

describe('captcha provider', () => {
  afterEach(() => {
    delete window.turnstile;
    document.head.querySelectorAll('script[src*="turnstile"]').forEach((s) => s.remove());
  });

  it('uses ALTCHA by default and never loads Cloudflare', async () => {
    fakeApi();
    renderApp('/register');
    expect(await screen.findByTestId('captcha')).toBeInTheDocument();
    expect(document.head.querySelector('script[src*="challenges.cloudflare.com"]')).toBeNull();
  });

  it('renders Turnstile with the runtime site key and sends its token, resetting it after the attempt', async () => {
    let options: RenderOptions | undefined;
    const reset = vi.fn();
    window.turnstile = {
      render: vi.fn((_el: HTMLElement, opts: RenderOptions) => {
        options = opts;
        return 'widget-1';
      }),
      reset,
      remove: vi.fn(),
    };
    const api = fakeApi({ 'PUT /api/client/register': { status: 201, body: { message: 'ok' } } });
    renderApp('/register', { config: turnstileConfig });
    await screen.findByLabelText('Usuario');
    await vi.waitFor(() => expect(options?.sitekey).toBe('0x4AAAA-site'));
    expect(screen.queryByTestId('captcha')).not.toBeInTheDocument();

    act(() => options?.callback?.('turnstile-token'));
    await userEvent.type(screen.getByLabelText('Usuario'), 'juan');
    await userEvent.type(screen.getByLabelText('Contraseña'), 'secreto123');
    await userEvent.type(screen.getByLabelText('Confirmar contraseña'), 'secreto123');
    await userEvent.click(screen.getByRole('button', { name: 'Registrarse' }));

    expect(await screen.findByRole('heading', { name: 'Registro Completado' })).toBeInTheDocument();
    expect(api.callsTo('PUT /api/client/register')[0]?.body).toMatchObject({
      captcha_token: 'turnstile-token',
    });
    expect(reset).toHaveBeenCalledWith('widget-1');
  });

  it("loads Cloudflare's script only when Turnstile is configured", async () => {
    fakeApi();
    renderApp('/register', { config: turnstileConfig });
    await screen.findByLabelText('Usuario');
    const script = document.head.querySelector<HTMLScriptElement>('script[src*="challenges.cloudflare.com"]');
    expect(script?.src).toBe('https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit');
  });
});
