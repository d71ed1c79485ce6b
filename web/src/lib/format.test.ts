import { describe, expect, it } from 'vitest';
import { absoluteUrl, descriptionLines, formatDate, formatPrice, formatValidity } from './format';

describe('formatValidity', () => {
  it('names single units in the singular', () => {
    expect(formatValidity('30 days 00:00:00')).toBe('1 mes');
    expect(formatValidity('365 days 00:00:00')).toBe('1 año');
    expect(formatValidity('1 day 00:00:00')).toBe('1 día');
  });
  it('joins several units in Spanish', () => {
    expect(formatValidity('60 days 00:00:00')).toBe('2 meses');
    expect(formatValidity('400 days 00:00:00')).toBe('1 año, 1 mes y 5 días');
    expect(formatValidity('37 days 00:00:00')).toBe('1 mes y 7 días');
  });
  it('says less than a day for a few hours and keeps unknown text as it is', () => {
    expect(formatValidity('0 days 12:00:00')).toBe('Menos de 1 día');
    expect(formatValidity('ilimitado')).toBe('ilimitado');
  });
});

describe('formatPrice', () => {
  it('shows two decimals and the currency', () => {
    expect(formatPrice(5)).toBe('5,00 US$');
    expect(formatPrice(12.5)).toBe('12,50 US$');
  });
});

describe('descriptionLines', () => {
  it('splits the description at sentence breaks', () => {
    expect(descriptionLines('Un dispositivo. Servidores en Europa. Soporte 24/7.')).toEqual([
      'Un dispositivo',
      'Servidores en Europa',
      'Soporte 24/7',
    ]);
    expect(descriptionLines('')).toEqual([]);
  });
});

describe('formatDate', () => {
  it('writes dates in Spanish long form', () => {
    expect(formatDate('2025-03-05T10:00:00.000Z')).toBe('5 de marzo de 2025');
    expect(formatDate('2024-12-31T12:00:00Z')).toBe('31 de diciembre de 2024');
  });
  it('keeps text that is not a date as it came', () => {
    expect(formatDate('pronto')).toBe('pronto');
  });
});

describe('absoluteUrl', () => {
  it('completes a bare path with the origin and keeps absolute links', () => {
    expect(absoluteUrl('/api/mirror/abc', 'https://vpn.example.com')).toBe(
      'https://vpn.example.com/api/mirror/abc',
    );
    expect(absoluteUrl('https://m.example.com/api/mirror/abc', 'https://vpn.example.com')).toBe(
      'https://m.example.com/api/mirror/abc',
    );
  });
});
