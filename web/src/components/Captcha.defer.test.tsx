import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../test/api';
import { renderApp } from '../test/render';

// Its own file: the widget module and the "first interaction" wait are loaded once per file.
const loaded = vi.hoisted(() => ({ count: 0 }));
vi.mock('altcha', () => {
  loaded.count += 1;
  return {};
});

describe('ALTCHA widget on the register page', () => {
  it('is downloaded only once the visitor starts on the form', async () => {
    fakeApi();
    renderApp('/register');
    await screen.findByTestId('captcha');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(loaded.count).toBe(0);

    await userEvent.type(screen.getByLabelText('Usuario'), 'j');
    await vi.waitFor(() => expect(loaded.count).toBe(1));
  });
});
