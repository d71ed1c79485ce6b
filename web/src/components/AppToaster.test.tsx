import { act, render, screen } from '@testing-library/react';
import { toast } from 'react-hot-toast';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppToaster } from './AppToaster';

/** Lets the toaster's effects and timers run. */
async function advance(ms: number) {
  await act(async () => {
    vi.advanceTimersByTime(ms);
  });
}

describe('AppToaster', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never shows more than 20 toasts at once, keeping the newest', async () => {
    render(<AppToaster />);
    act(() => {
      for (let i = 1; i <= 25; i++) toast(`Aviso ${i}`);
    });
    await act(async () => {});
    const shown = screen.getAllByText(/^Aviso \d+$/).map((el) => el.textContent);
    expect(shown).toHaveLength(20);
    expect(shown).toContain('Aviso 25');
    expect(shown).toContain('Aviso 6');
    expect(shown).not.toContain('Aviso 5');
  });

  it('keeps successes 2 s, errors and plain toasts 4 s, and loading toasts until dismissed', async () => {
    vi.useFakeTimers();
    render(<AppToaster />);
    let loading = '';
    act(() => {
      toast.success('Hecho');
      toast.error('Fallo');
      toast('Nota');
      loading = toast.loading('Cargando');
    });
    await advance(0);
    expect(screen.getByText('Hecho')).toBeInTheDocument();

    // Dismissed toasts leave the DOM after react-hot-toast's 1 s exit delay.
    await advance(1900);
    expect(screen.getByText('Hecho')).toBeInTheDocument();
    await advance(1200);
    await advance(1000);
    expect(screen.queryByText('Hecho')).not.toBeInTheDocument();
    expect(screen.getByText('Fallo')).toBeInTheDocument();
    expect(screen.getByText('Nota')).toBeInTheDocument();

    await advance(2000);
    await advance(1000);
    expect(screen.queryByText('Fallo')).not.toBeInTheDocument();
    expect(screen.queryByText('Nota')).not.toBeInTheDocument();

    await advance(60_000);
    expect(screen.getByText('Cargando')).toBeInTheDocument();
    act(() => toast.dismiss(loading));
    await advance(1100);
    expect(screen.queryByText('Cargando')).not.toBeInTheDocument();
  });
});
